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

/** A JPEG's markers up to its scan: JFIF, optional others, a frame header of the given kind. */
function jpeg(width: number, height: number, { sof = 0xc0, before = [] as number[][] } = {}) {
  const jfif = [0xff, 0xe0, ...be16(16), ...bytes('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const frame = [0xff, sof, ...be16(17), 8, ...be16(height), ...be16(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return bytes([0xff, 0xd8], jfif, ...before, frame, [0xff, 0xda, ...be16(8), 1, 1, 0, 0, 0x3f, 0]);
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

  it('gives none for an image with orientation metadata: the browser may swap its sides when it decodes', () => {
    // CesiumMan's texture carries EXIF.
    const [cesium] = imagesOf('CesiumMan.glb');
    expect(imageHeaderSize(cesium.bytes, cesium.mimeType)).toBeNull();
    const exif = [0xff, 0xe1, ...be16(10), ...bytes('Exif\0\0'), 0, 0];
    expect(imageHeaderSize(jpeg(600, 300, { before: [exif] }), 'image/jpeg')).toBeNull();
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
  });
});
