import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { imageHeaderSize } from '../../../src/scene/image-header';
import { glbImageSources } from '../../../src/scene/model-images';

const MODELS = new URL('../../../../shared/models/', import.meta.url);
const imagesOf = (file: string) => glbImageSources(new Uint8Array(readFileSync(new URL(file, MODELS))));

const bytes = (...parts: (number[] | string)[]) => new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...part].map((c) => c.charCodeAt(0)) : part)));
const be16 = (n: number) => [n >> 8, n & 0xff];
const be32 = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const le16 = (n: number) => [n & 0xff, n >> 8];
const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
const le24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];

/** A JPEG's markers up to its scan: JFIF, optional others, a frame header of the given kind, optional others. */
function jpeg(width: number, height: number, { sof = 0xc0, before = [] as number[][], after = [] as number[][] } = {}) {
  const jfif = [0xff, 0xe0, ...be16(16), ...bytes('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const frame = [0xff, sof, ...be16(17), 8, ...be16(height), ...be16(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return bytes([0xff, 0xd8], jfif, ...before, frame, ...after, [0xff, 0xda, ...be16(8), 1, 1, 0, 0, 0x3f, 0]);
}

/** An APP1 EXIF segment whose first directory holds an orientation tag (none: no tag), in either byte order. */
function exif(orientation: number | null, little = false) {
  const u16 = little ? le16 : be16;
  const u32 = little ? le32 : be32;
  const entries = orientation === null ? [] : [...u16(0x0112), ...u16(3), ...u32(1), ...u16(orientation), 0, 0];
  const tiff = [...bytes(little ? 'II' : 'MM'), ...u16(42), ...u32(8), ...u16(orientation === null ? 0 : 1), ...entries, ...u32(0)];
  const body = [...bytes('Exif\0\0'), ...tiff];
  return [0xff, 0xe1, ...be16(body.length + 2), ...body];
}

function png(width: number, height: number, chunks: string[] = []) {
  const chunk = (type: string, data: number[]) => [...be32(data.length), ...bytes(type), ...data, 0, 0, 0, 0];
  return bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], chunk('IHDR', [...be32(width), ...be32(height), 8, 2, 0, 0, 0]), ...chunks.map((type) => chunk(type, [1, 2, 3])), chunk('IDAT', [0, 0]));
}

const riff = (chunk: string, data: number[]) => bytes('RIFF', le32(4 + 8 + data.length), 'WEBP', chunk, le32(data.length), data);

describe('imageHeaderSize', () => {
  it("reads the size of DamagedHelmet's JPEGs (baseline and progressive frames) and of PNGs", () => {
    expect(imagesOf('DamagedHelmet.glb').map((s) => imageHeaderSize(s.bytes, s.mimeType))).toEqual(Array(5).fill({ width: 2048, height: 2048 }));
    expect(imagesOf('Duck.glb').map((s) => imageHeaderSize(s.bytes, s.mimeType))).toEqual([{ width: 512, height: 512 }]);
  });

  it('gives width and height in their order, past markers that are not a frame header', () => {
    expect(imageHeaderSize(jpeg(600, 300), 'image/jpeg')).toEqual({ width: 600, height: 300 });
    const dht = [0xff, 0xc4, ...be16(5), 0, 0, 0];
    const fill = [0xff];
    expect(imageHeaderSize(jpeg(33, 4000, { sof: 0xc2, before: [dht, fill] }), 'image/jpeg')).toEqual({ width: 33, height: 4000 });
    expect(imageHeaderSize(png(4096, 100), 'image/png')).toEqual({ width: 4096, height: 100 });
  });

  it("reads past EXIF that keeps the sides (CesiumMan's texture: orientation 1), and gives none for EXIF that may swap them", () => {
    const [cesium] = imagesOf('CesiumMan.glb');
    expect(imageHeaderSize(cesium.bytes, cesium.mimeType)).toEqual({ width: 1024, height: 1024 });
    for (const [orientation, little] of [[null, false], [1, false], [3, true], [4, false]] as const) {
      expect(imageHeaderSize(jpeg(600, 300, { before: [exif(orientation, little)] }), 'image/jpeg'), `orientation ${orientation}`).toEqual({ width: 600, height: 300 });
    }
    // 5-8 turn the image a quarter: the browser decodes it 300 x 600.
    for (const orientation of [5, 6, 7, 8]) {
      expect(imageHeaderSize(jpeg(600, 300, { before: [exif(orientation, orientation % 2 === 0)] }), 'image/jpeg'), `orientation ${orientation}`).toBeNull();
    }
    // EXIF may also come after the frame header (the browser reads every segment before the scan).
    expect(imageHeaderSize(jpeg(600, 300, { after: [exif(6)] }), 'image/jpeg')).toBeNull();
    // EXIF that cannot be read (no TIFF byte order; a directory past its end) might turn it.
    const unreadable = [0xff, 0xe1, ...be16(12), ...bytes('Exif\0\0'), ...bytes('XX'), 0, 42];
    expect(imageHeaderSize(jpeg(600, 300, { before: [unreadable] }), 'image/jpeg')).toBeNull();
    const cut = exif(6).slice(0, 22);
    cut.splice(2, 2, ...be16(cut.length - 2));
    expect(imageHeaderSize(jpeg(600, 300, { before: [cut] }), 'image/jpeg')).toBeNull();
    // Another APP1 (XMP) is not EXIF.
    const xmp = [0xff, 0xe1, ...be16(2 + 29), ...bytes('http://ns.adobe.com/xap/1.0/\0')];
    expect(imageHeaderSize(jpeg(600, 300, { before: [xmp] }), 'image/jpeg')).toEqual({ width: 600, height: 300 });
    // PNG eXIf and WebP's EXIF flag are not read: any of them gives none.
    expect(imageHeaderSize(png(600, 300, ['eXIf']), 'image/png')).toBeNull();
    // Other chunks before the image data do not matter.
    expect(imageHeaderSize(png(600, 300, ['gAMA', 'pHYs']), 'image/png')).toEqual({ width: 600, height: 300 });
  });

  it('reads the three kinds of WebP, and none with EXIF', () => {
    const lossy = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(640 | (1 << 14)), ...le16(480), 0, 0]);
    expect(imageHeaderSize(lossy, 'image/webp')).toEqual({ width: 640, height: 480 });
    const lossless = riff('VP8L', [0x2f, ...le32((300 - 1) | ((200 - 1) << 14)), 0]);
    expect(imageHeaderSize(lossless, 'image/webp')).toEqual({ width: 300, height: 200 });
    const extended = (flags: number) => riff('VP8X', [flags, 0, 0, 0, ...le24(5000 - 1), ...le24(70 - 1)]);
    expect(imageHeaderSize(extended(0x10), 'image/webp')).toEqual({ width: 5000, height: 70 });
    expect(imageHeaderSize(extended(0x08), 'image/webp')).toBeNull();
    // A lossless stream without its signature byte.
    expect(imageHeaderSize(riff('VP8L', [0x2e, ...le32(299 | (199 << 14)), 0]), 'image/webp')).toBeNull();
  });

  it('gives none for what it does not understand, never throws', () => {
    const helmet = imagesOf('DamagedHelmet.glb')[0].bytes;
    // Cut before the frame header, a wrong type, unknown bytes, an empty image, a zero size.
    expect(imageHeaderSize(helmet.subarray(0, 20), 'image/jpeg')).toBeNull();
    expect(imageHeaderSize(helmet, 'image/png')).toBeNull();
    expect(imageHeaderSize(helmet, 'image/avif')).toBeNull();
    expect(imageHeaderSize(bytes('big '), 'image/jpeg')).toBeNull();
    expect(imageHeaderSize(new Uint8Array(0), 'image/webp')).toBeNull();
    expect(imageHeaderSize(jpeg(0, 300), 'image/jpeg')).toBeNull();
    expect(imageHeaderSize(png(600, 300).subarray(0, 30), 'image/png')).toBeNull();
    // A chunk whose length runs past the end.
    const long = png(600, 300, ['gAMA']);
    long.set(be32(0x7fffffff), 33);
    expect(imageHeaderSize(long, 'image/png')).toBeNull();
    // A segment length below its own two bytes; the image's end before any scan; a cut before the scan.
    expect(imageHeaderSize(jpeg(600, 300, { before: [[0xff, 0xe2, 0, 1]] }), 'image/jpeg')).toBeNull();
    expect(imageHeaderSize(bytes([0xff, 0xd8, 0xff, 0xd9, 0, 0]), 'image/jpeg')).toBeNull();
    const frameOnly = jpeg(600, 300);
    expect(imageHeaderSize(frameOnly.subarray(0, frameOnly.length - 10), 'image/jpeg')).toBeNull();
  });

  it('steps over the markers that have no segment (TEM, RSTn) and fill bytes', () => {
    expect(imageHeaderSize(jpeg(600, 300, { before: [[0xff, 0x01], [0xff, 0xff, 0xd3]] }), 'image/jpeg')).toEqual({ width: 600, height: 300 });
  });
});
