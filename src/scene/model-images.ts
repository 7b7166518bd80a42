import { checkGlb } from '../protocol/glb.ts';
import { imageHeaderSize } from './image-header.ts';
import { limitedSize, scaleOptions } from './texture-size.ts';
import { LOW_TEXTURE_LIMIT } from '../protocol/constants.ts';

/**
 * The images of a GLB decoded ahead of its parse, in the loader worker (container-worker.ts): the
 * worker has the model long before the main thread is free to parse it, and the decoding is most
 * of the parse (five 2048 px textures: about 400 ms on a weak device). GLTFLoader then takes the
 * bitmaps instead of decoding (gltf.ts). An image that cannot be decoded here is left to
 * GLTFLoader, which reports it as it reports any image.
 */

/** The image types the browser decodes (KTX2 and others go through their own loaders). */
const DECODED_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/avif']);

/** GLTFLoader's ImageBitmapLoader options: no premultiplied alpha, no colour space conversion. */
const DECODE_OPTIONS: ImageBitmapOptions = { premultiplyAlpha: 'none', colorSpaceConversion: 'none' };

export interface GlbImageSource {
  /** Index in the glTF's `images`. */
  index: number;
  mimeType: string;
  /** The image's bytes, a view into the GLB. */
  bytes: Uint8Array;
}

/**
 * The images of a GLB that its textures use and the browser decodes: each stored in a bufferView
 * of the BIN chunk, uncompressed. Throws the structural check's error for a broken GLB (its parse
 * reports the same error).
 */
export function glbImageSources(glb: Uint8Array): GlbImageSource[] {
  const { json, binLength } = checkGlb(glb);
  // Buffer 0 is the BIN chunk only when it has no URI of its own.
  if (binLength < 0 || !Array.isArray(json.buffers) || json.buffers[0]?.uri !== undefined) return [];
  // checkGlb holds the BIN chunk right after the JSON chunk.
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const binStart = 12 + 8 + view.getUint32(12, true) + 8;
  const images = Array.isArray(json.images) ? (json.images as { bufferView?: unknown; mimeType?: unknown }[]) : [];
  const views = Array.isArray(json.bufferViews) ? (json.bufferViews as { buffer?: unknown; byteOffset?: unknown; byteLength?: unknown; extensions?: unknown }[]) : [];
  const used = new Set<number>();
  for (const texture of Array.isArray(json.textures) ? (json.textures as { source?: unknown; extensions?: Record<string, { source?: unknown }> }[]) : []) {
    // A texture's extension (EXT_texture_webp, EXT_texture_avif, KHR_texture_basisu) names the
    // image three loads; its own source is then only a fallback, decoded by three if it is used.
    const extended = Object.values(texture?.extensions ?? {}).filter((extension) => typeof extension?.source === 'number');
    if (extended.length) for (const extension of extended) used.add(extension.source as number);
    else if (typeof texture?.source === 'number') used.add(texture.source);
  }
  const sources: GlbImageSource[] = [];
  for (const index of [...used].sort((a, b) => a - b)) {
    const image = images[index];
    if (!image || typeof image.bufferView !== 'number' || typeof image.mimeType !== 'string' || !DECODED_TYPES.has(image.mimeType)) continue;
    const bufferView = views[image.bufferView];
    // A view of another buffer, or a compressed one (EXT_meshopt_compression), is left to GLTFLoader.
    if (!bufferView || (bufferView.buffer ?? 0) !== 0 || bufferView.extensions !== undefined) continue;
    const offset = typeof bufferView.byteOffset === 'number' ? bufferView.byteOffset : 0;
    const length = typeof bufferView.byteLength === 'number' ? bufferView.byteLength : -1;
    if (offset < 0 || length <= 0 || offset + length > binLength) continue;
    sources.push({ index, mimeType: image.mimeType, bytes: glb.subarray(binStart + offset, binStart + offset + length) });
  }
  return sources;
}

/**
 * Decodes a GLB's images (glbImageSources) in parallel: one entry per glTF image, null for an image
 * not decoded here. Images larger than the limit (the tier's texture limit, null for none) come out
 * scaled as the low tier's LimitedImageBitmapLoader scales them. When the limit is known at the call
 * and an image's header gives its size, the image is decoded at the scaled size in one step, which
 * costs about what the full-size decode alone costs.
 *
 * A limit still to come (index.html asks before a detected tier is known): the images are decoded
 * at once at `likely` (likelyTextureLimit: the low tier's limit, unless the device is clearly
 * stronger) and, if the limit comes out larger, decoded again from the file as soon as it comes (a
 * device whose tier has no limit then pays one small decode more, in the worker, and its full-size
 * decode starts when its tier is known); without `likely`, at full size and scaled when the limit
 * resolves (a second step that cost a weak device 110-125 ms for DamagedHelmet's five images).
 *
 * Never rejects: an image that fails is null, and a GLB whose structure is broken gives no images.
 */
export async function decodeGlbImages(glb: Uint8Array, limit: number | null | Promise<number | null>, likely: number | null = null): Promise<(ImageBitmap | null)[]> {
  if (typeof createImageBitmap !== 'function' || typeof Blob !== 'function') return [];
  let sources: GlbImageSource[];
  try {
    sources = glbImageSources(glb);
  } catch {
    return [];
  }
  if (sources.length === 0) return [];
  const pending = limit instanceof Promise;
  const now = pending ? likely : limit;
  const decode = (source: GlbImageSource, options: ImageBitmapOptions) =>
    createImageBitmap(new Blob([source.bytes as Uint8Array<ArrayBuffer>], { type: source.mimeType }), options).catch(() => null);
  const options = sources.map((source) => decodeOptions(source, now));
  const decoded = sources.map((source, i) => decode(source, options[i]));
  const cap = await limit;
  const out: (ImageBitmap | null)[] = [];
  await Promise.all(
    sources.map(async (source, i) => {
      let bitmap: Promise<ImageBitmap | null> = decoded[i];
      if (pending && options[i] !== DECODE_OPTIONS) {
        // Decoded smaller than the limit that came allows: again, from the file, at once (the
        // smaller one is closed whenever it is done).
        const wanted = decodeOptions(source, cap);
        if (wanted === DECODE_OPTIONS || (wanted.resizeWidth ?? 0) > (options[i].resizeWidth ?? 0)) {
          void decoded[i].then((small) => small?.close());
          bitmap = decode(source, wanted);
        }
      }
      const done = await bitmap;
      out[source.index] = done && cap ? await scaled(done, cap) : done;
    }),
  );
  for (let i = 0; i < out.length; i++) out[i] ??= null;
  return out;
}

/**
 * The limit to decode at while a detected tier is still unknown (decodeGlbImages' `likely`): the low
 * tier's, unless the device has at least 6 cores and 8 GB of memory (as its navigator says, in a
 * worker too). The tier score (src/viewer/quality.ts) puts such a device at medium or above with any
 * GPU that takes 4096 px textures: only a software renderer makes it low, and then its images are
 * scaled once the limit comes. Held to the score table by tests/unit/scene/model-images.test.ts.
 */
export function likelyTextureLimit(nav: { hardwareConcurrency?: number; deviceMemory?: number }): number | null {
  return (nav.hardwareConcurrency ?? 0) >= STRONG_CORES && (nav.deviceMemory ?? 0) >= STRONG_MEMORY_GB ? null : LOW_TEXTURE_LIMIT;
}
export const STRONG_CORES = 6;
export const STRONG_MEMORY_GB = 8;

/** DECODE_OPTIONS, scaling to `limit` in the decode when the image's header gives a size above it. */
function decodeOptions(source: GlbImageSource, limit: number | null): ImageBitmapOptions {
  if (!limit) return DECODE_OPTIONS;
  const size = imageHeaderSize(source.bytes, source.mimeType);
  if (!size) return DECODE_OPTIONS;
  const target = limitedSize(size.width, size.height, limit);
  return target.width === size.width && target.height === size.height ? DECODE_OPTIONS : { ...DECODE_OPTIONS, ...scaleOptions(target) };
}

async function scaled(bitmap: ImageBitmap, limit: number): Promise<ImageBitmap | null> {
  const size = limitedSize(bitmap.width, bitmap.height, limit);
  if (size.width === bitmap.width && size.height === bitmap.height) return bitmap;
  try {
    const smaller = await createImageBitmap(bitmap, scaleOptions(size));
    bitmap.close();
    return smaller;
  } catch {
    // GLTFLoader decodes and scales it again on the main thread, and says so if that fails too.
    bitmap.close();
    return null;
  }
}
