import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeGlbImages, glbImageSources, likelyTextureLimit, STRONG_CORES, STRONG_MEMORY_GB } from '../../../src/scene/model-images';
import { LOW_TEXTURE_LIMIT } from '../../../src/protocol/constants';
import { cpuScore, gpuScore, memoryScore, tierForScore } from '../../../src/viewer/quality';
import { packGlb } from '../../support/glb';

const MODELS = new URL('../../../../shared/models/', import.meta.url);
const helmet = () => new Uint8Array(readFileSync(new URL('DamagedHelmet.glb', MODELS)));

/** A stand-in for the browser's decoder: a 'bitmap' records its size and the bytes it came from. */
class FakeBitmap {
  closed = false;
  constructor(
    readonly width: number,
    readonly height: number,
    readonly from: string,
  ) {}
  close(): void {
    this.closed = true;
  }
}

function stubDecoder(sizes: Record<string, [number, number]>) {
  const calls: { source: unknown; options: ImageBitmapOptions | undefined }[] = [];
  vi.stubGlobal('createImageBitmap', async (source: Blob | FakeBitmap, options?: ImageBitmapOptions) => {
    calls.push({ source, options });
    if (source instanceof FakeBitmap) {
      if (options?.resizeWidth === 13) throw new Error('cannot scale');
      return new FakeBitmap(options!.resizeWidth!, options!.resizeHeight!, `${source.from} scaled`);
    }
    const text = new TextDecoder().decode(new Uint8Array(await source.arrayBuffer()));
    if (!sizes[text]) throw new Error(`cannot decode ${text}`);
    return new FakeBitmap(sizes[text][0], sizes[text][1], `${text} (${source.type})`);
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('glbImageSources', () => {
  it("finds DamagedHelmet's five images in its BIN chunk, with their types", () => {
    const glb = helmet();
    const sources = glbImageSources(glb);
    expect(sources.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    for (const source of sources) {
      expect(source.mimeType).toBe('image/jpeg');
      // A JPEG starts with its SOI marker.
      expect([...source.bytes.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    }
  });

  it('takes only the images textures use, stored uncompressed in the BIN chunk, of a type the browser decodes', () => {
    const bin = new TextEncoder().encode('AAAABBBBCCCCDDDDEEEE');
    const glb = packGlb(
      {
        asset: { version: '2.0' },
        buffers: [{ byteLength: bin.length }],
        bufferViews: [
          { buffer: 0, byteOffset: 0, byteLength: 4 },
          { buffer: 0, byteOffset: 4, byteLength: 4 },
          { buffer: 0, byteOffset: 8, byteLength: 4, extensions: { EXT_meshopt_compression: {} } },
          { buffer: 0, byteOffset: 12, byteLength: 4 },
          { buffer: 0, byteOffset: 16, byteLength: 4 },
        ],
        images: [
          { bufferView: 0, mimeType: 'image/png' },
          { bufferView: 1, mimeType: 'image/ktx2' },
          { bufferView: 2, mimeType: 'image/png' },
          { bufferView: 3, mimeType: 'image/webp' },
          { bufferView: 4, mimeType: 'image/jpeg' },
          { uri: 'data:image/png;base64,AAAA' },
        ],
        textures: [
          { source: 0 },
          { source: 0 },
          { extensions: { KHR_texture_basisu: { source: 1 } } },
          { source: 2 },
          // 4 is only the fallback of the WebP image.
          { source: 4, extensions: { EXT_texture_webp: { source: 3 } } },
          { source: 5 },
        ],
      },
      bin,
    );
    const sources = glbImageSources(glb);
    // 1 is KTX2, 2 compressed, 4 a fallback, 5 not in the BIN chunk.
    expect(sources.map((s) => [s.index, s.mimeType, new TextDecoder().decode(s.bytes)])).toEqual([
      [0, 'image/png', 'AAAA'],
      [3, 'image/webp', 'DDDD'],
    ]);
  });

  it('finds none when buffer 0 has a URI of its own (the BIN chunk is then not its data)', () => {
    const bin = new TextEncoder().encode('AAAA');
    const json = { asset: { version: '2.0' }, buffers: [{ byteLength: 4, uri: 'data:application/octet-stream;base64,QUFBQQ==' }], bufferViews: [{ buffer: 0, byteLength: 4 }], images: [{ bufferView: 0, mimeType: 'image/png' }], textures: [{ source: 0 }] };
    expect(glbImageSources(packGlb(json, bin))).toEqual([]);
    const { uri: _uri, ...inBin } = json.buffers[0];
    expect(glbImageSources(packGlb({ ...json, buffers: [inBin] }, bin)).map((s) => s.index)).toEqual([0]);
  });

  it('throws the structural check of a broken GLB', () => {
    expect(() => glbImageSources(new Uint8Array(8))).toThrow(/shorter than its 12-byte header/);
  });
});

describe('decodeGlbImages', () => {
  const glb = () =>
    packGlb(
      {
        asset: { version: '2.0' },
        buffers: [{ byteLength: 12 }],
        bufferViews: [
          { buffer: 0, byteOffset: 0, byteLength: 4 },
          { buffer: 0, byteOffset: 4, byteLength: 4 },
          { buffer: 0, byteOffset: 8, byteLength: 4 },
        ],
        images: [
          { bufferView: 0, mimeType: 'image/png' },
          { bufferView: 1, mimeType: 'image/jpeg' },
          { bufferView: 2, mimeType: 'image/png' },
        ],
        textures: [{ source: 0 }, { source: 1 }, { source: 2 }],
      },
      new TextEncoder().encode('big smalbad!'),
    );

  it('decodes each image as GLTFLoader does, by glTF image index, and scales the ones above the limit', async () => {
    const calls = stubDecoder({ 'big ': [4096, 2048], smal: [512, 512] });
    const images = (await decodeGlbImages(glb(), 1024)) as unknown as (FakeBitmap | null)[];
    expect(images.map((b) => b && [b.from, b.width, b.height])).toEqual([
      ['big  (image/png) scaled', 1024, 512],
      ['smal (image/jpeg)', 512, 512],
      // 'bad!' does not decode: GLTFLoader decodes it again and reports it.
      null,
    ]);
    expect(calls[0].options).toEqual({ premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
    const scaling = calls.find((c) => c.source instanceof FakeBitmap)!;
    expect(scaling.options).toEqual({ resizeWidth: 1024, resizeHeight: 512, resizeQuality: 'medium', premultiplyAlpha: 'none' });
    // The full-size bitmap is closed once the smaller one exists.
    expect((scaling.source as FakeBitmap).closed).toBe(true);
  });

  it('decodes at once but scales only once the limit is known (index.html asks before the tier is); null keeps the size', async () => {
    const calls = stubDecoder({ 'big ': [4096, 2048], smal: [512, 512] });
    let tell!: (limit: number | null) => void;
    const limit = new Promise<number | null>((resolve) => (tell = resolve));
    let done = false;
    const decoding = decodeGlbImages(glb(), limit).then((images) => {
      done = true;
      return images as unknown as (FakeBitmap | null)[];
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toHaveLength(3);
    expect(done).toBe(false);
    tell(null);
    const images = await decoding;
    expect(images.map((b) => b && b.width)).toEqual([4096, 512, null]);
    expect(calls).toHaveLength(3);
  });

  it('decodes an image at the limited size in one step when the limit is known and its header gives its size', async () => {
    const [jpeg] = glbImageSources(helmet());
    const small = new TextEncoder().encode('smal');
    const bin = new Uint8Array(jpeg.bytes.length + small.length);
    bin.set(jpeg.bytes);
    bin.set(small, jpeg.bytes.length);
    const model = packGlb(
      {
        asset: { version: '2.0' },
        buffers: [{ byteLength: bin.length }],
        bufferViews: [
          { buffer: 0, byteOffset: 0, byteLength: jpeg.bytes.length },
          { buffer: 0, byteOffset: jpeg.bytes.length, byteLength: small.length },
        ],
        images: [
          { bufferView: 0, mimeType: 'image/jpeg' },
          { bufferView: 1, mimeType: 'image/png' },
        ],
        textures: [{ source: 0 }, { source: 1 }],
      },
      bin,
    );
    const calls: ImageBitmapOptions[] = [];
    vi.stubGlobal('createImageBitmap', async (source: Blob, options?: ImageBitmapOptions) => {
      if (!(source instanceof Blob)) throw new Error('scaled a decoded bitmap');
      calls.push(options!);
      const full = source.size === small.length ? 512 : 2048;
      return new FakeBitmap(options?.resizeWidth ?? full, options?.resizeHeight ?? full, source.type);
    });
    const images = (await decodeGlbImages(model, 1024)) as unknown as FakeBitmap[];
    expect(images.map((b) => [b.width, b.height])).toEqual([
      [1024, 1024],
      [512, 512],
    ]);
    // One decode each, the helmet's at the limit; 'smal' has no header, and fits anyway.
    expect(calls).toEqual([{ premultiplyAlpha: 'none', colorSpaceConversion: 'none', resizeWidth: 1024, resizeHeight: 1024, resizeQuality: 'medium' }, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' }]);
    // A limit still to come: decoded at full size, then scaled.
    calls.length = 0;
    vi.stubGlobal('createImageBitmap', async (source: Blob | FakeBitmap, options?: ImageBitmapOptions) => {
      calls.push(options!);
      return source instanceof FakeBitmap ? new FakeBitmap(options!.resizeWidth!, options!.resizeHeight!, 'scaled') : new FakeBitmap(source.size === small.length ? 512 : 2048, source.size === small.length ? 512 : 2048, source.type);
    });
    const later = (await decodeGlbImages(model, Promise.resolve(1024))) as unknown as FakeBitmap[];
    expect(later.map((b) => b.width)).toEqual([1024, 512]);
    expect(calls.map((options) => options.resizeWidth)).toEqual([undefined, undefined, 1024]);
  });

  it("a limit still to come, with a likely one: decoded at the likely limit at once, and again only if the limit comes out larger", async () => {
    const [jpeg] = glbImageSources(helmet()); // 2048 x 2048, its size in its header
    const model = packGlb(
      {
        asset: { version: '2.0' },
        buffers: [{ byteLength: jpeg.bytes.length }],
        bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: jpeg.bytes.length }],
        images: [{ bufferView: 0, mimeType: 'image/jpeg' }],
        textures: [{ source: 0 }],
      },
      jpeg.bytes,
    );
    const made: FakeBitmap[] = [];
    const calls: { scaling: boolean; resizeWidth?: number }[] = [];
    vi.stubGlobal('createImageBitmap', async (source: Blob | FakeBitmap, options?: ImageBitmapOptions) => {
      calls.push({ scaling: source instanceof FakeBitmap, resizeWidth: options?.resizeWidth });
      const side = options?.resizeWidth ?? 2048;
      const bitmap = new FakeBitmap(side, side, source instanceof FakeBitmap ? 'scaled' : 'file');
      made.push(bitmap);
      return bitmap;
    });
    const decode = async (limit: number | null) => {
      calls.length = 0;
      made.length = 0;
      let tell!: (value: number | null) => void;
      const coming = new Promise<number | null>((resolve) => (tell = resolve));
      const decoding = decodeGlbImages(model, coming, 1024);
      await new Promise((resolve) => setTimeout(resolve, 10));
      // Decoded at once, at the likely limit, before the limit is known.
      expect(calls).toEqual([{ scaling: false, resizeWidth: 1024 }]);
      tell(limit);
      const [image] = (await decoding) as unknown as FakeBitmap[];
      return image;
    };
    // The likely limit it is (a weak device): one decode.
    expect((await decode(1024)).width).toBe(1024);
    expect(calls).toHaveLength(1);
    // No limit (a strong device): decoded again from the file at full size; the small one closed.
    expect((await decode(null)).width).toBe(2048);
    expect(calls).toEqual([{ scaling: false, resizeWidth: 1024 }, { scaling: false, resizeWidth: undefined }]);
    expect(made[0].closed).toBe(true);
    // A larger limit that still halves it to the likely size (halved until it fits): kept.
    expect((await decode(2047)).width).toBe(1024);
    expect(calls).toHaveLength(1);
    // A limit it fits: decoded again at full size.
    expect((await decode(4096)).width).toBe(2048);
    expect(calls[1]).toEqual({ scaling: false, resizeWidth: undefined });
    // A smaller one: the decoded bitmap is scaled, not decoded again.
    expect((await decode(512)).width).toBe(512);
    expect(calls[1]).toEqual({ scaling: true, resizeWidth: 512 });
  });

  it('a limit already known wins over a likely one', async () => {
    const [jpeg] = glbImageSources(helmet());
    const model = packGlb(
      { asset: { version: '2.0' }, buffers: [{ byteLength: jpeg.bytes.length }], bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: jpeg.bytes.length }], images: [{ bufferView: 0, mimeType: 'image/jpeg' }], textures: [{ source: 0 }] },
      jpeg.bytes,
    );
    const calls: (number | undefined)[] = [];
    vi.stubGlobal('createImageBitmap', async (_source: Blob, options?: ImageBitmapOptions) => {
      calls.push(options?.resizeWidth);
      return new FakeBitmap(options?.resizeWidth ?? 2048, options?.resizeHeight ?? 2048, 'file');
    });
    expect(((await decodeGlbImages(model, null, 1024)) as unknown as FakeBitmap[])[0].width).toBe(2048);
    expect(((await decodeGlbImages(model, 512, 1024)) as unknown as FakeBitmap[])[0].width).toBe(512);
    expect(calls).toEqual([undefined, 512]);
  });

  it('the likely limit is the low tier\'s, unless the tier score cannot make the device low with a hardware GPU', () => {
    expect(likelyTextureLimit({})).toBe(LOW_TEXTURE_LIMIT);
    expect(likelyTextureLimit({ hardwareConcurrency: 2, deviceMemory: 8 })).toBe(LOW_TEXTURE_LIMIT);
    expect(likelyTextureLimit({ hardwareConcurrency: 8, deviceMemory: 4 })).toBe(LOW_TEXTURE_LIMIT);
    expect(likelyTextureLimit({ hardwareConcurrency: STRONG_CORES, deviceMemory: STRONG_MEMORY_GB })).toBeNull();
    // The table: the weakest 'strong' device with the weakest GPU that is not a software renderer
    // scores medium; one core or one step of memory less may score low.
    const hardware = gpuScore({ maxTextureSize: 4096, floatRenderTarget: false });
    expect(tierForScore(cpuScore(STRONG_CORES) + memoryScore(STRONG_MEMORY_GB) + hardware)).not.toBe('low');
    expect(tierForScore(cpuScore(STRONG_CORES - 1) + memoryScore(STRONG_MEMORY_GB) + hardware)).toBe('low');
    expect(tierForScore(cpuScore(STRONG_CORES) + memoryScore(STRONG_MEMORY_GB - 1) + hardware)).toBe('low');
  });

  it('an image that cannot be scaled is left to GLTFLoader', async () => {
    stubDecoder({ 'big ': [26, 26], smal: [8, 8] });
    const images = (await decodeGlbImages(glb(), 16)) as unknown as (FakeBitmap | null)[];
    expect(images.map((b) => b && b.width)).toEqual([null, 8, null]);
  });

  it('gives nothing, and never throws, without a decoder or for a broken GLB', async () => {
    await expect(decodeGlbImages(glb(), null)).resolves.toEqual([]);
    stubDecoder({});
    await expect(decodeGlbImages(new Uint8Array(20), null)).resolves.toEqual([]);
  });
});
