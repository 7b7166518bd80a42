import { NoColorSpace, SRGBColorSpace, Texture } from 'three';
import type { ModelRecord } from '../engine/world';
import { COLOR_TEXTURE_MAPS, isUploadedTextureId, textureUrl } from '../protocol/textures';

/**
 * Uploaded textures (src/protocol/textures.ts) in a loaded model. A texture map mutation may name
 * an uploaded texture ('u-…') rather than one of the model's own; before such a mutation is
 * applied (the saved log at load, or an edit live) the image is fetched, decoded as glTF images
 * are (no premultiplied alpha, no colour conversion, flipY false) and registered in the model's
 * textures under its id. applyMutations (src/scene/apply-mutations.ts) then uses it as any other
 * texture of the model, sampled in sRGB by colour maps and linearly by data maps (mapTexture).
 * An image that cannot be loaded is a problem naming it; the maps using it stay as they were.
 */

/** Decodes an image the way three's GLTFLoader (ImageBitmapLoader) does. */
export type DecodeImage = (blob: Blob) => Promise<ImageBitmap | HTMLImageElement | HTMLCanvasElement | OffscreenCanvas>;

export const decodeImage: DecodeImage = (blob) => createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });

export interface UploadedTextureOptions {
  signal?: AbortSignal;
  fetch?: typeof fetch;
  decode?: DecodeImage;
}

type Decoded = Awaited<ReturnType<DecodeImage>>;

/** The ids of uploaded textures that texture maps of a mutation log name, each once, in order. */
export function uploadedTextureIds(mutations: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const raw of mutations) {
    if (!raw || typeof raw !== 'object') continue;
    const { type, properties } = raw as { type?: unknown; properties?: unknown };
    if ((type !== 'updateMaterial' && type !== 'createMaterial') || !properties || typeof properties !== 'object') continue;
    for (const value of Object.values(properties as Record<string, unknown>)) {
      const id = value && typeof value === 'object' ? (value as { textureId?: unknown }).textureId : undefined;
      if (typeof id === 'string' && isUploadedTextureId(id)) ids.add(id);
    }
  }
  return [...ids];
}

/** Fetches and decodes one uploaded texture's image; rejects with a sentence saying why. */
export async function fetchUploadedImage(url: string, options: UploadedTextureOptions = {}): Promise<Decoded> {
  const response = await (options.fetch ?? fetch)(url, { signal: options.signal });
  if (!response.ok) {
    let reason = response.statusText;
    try {
      const body = (await response.json()) as { error?: unknown };
      if (typeof body?.error === 'string') reason = body.error;
    } catch {
      // Not a JSON error body: the status text says it.
    }
    throw new Error(`${url} answered ${response.status}${reason ? `: ${reason}` : ''}`);
  }
  const blob = await response.blob();
  try {
    return await (options.decode ?? decodeImage)(blob);
  } catch (error) {
    throw new Error(`${url} is not an image this browser can decode (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** A texture of an uploaded image, set up as glTF textures are. */
export function createUploadedTexture(textureId: string, image: Decoded): Texture {
  const texture = new Texture(image as never);
  texture.name = textureId;
  texture.flipY = false; // glTF's texture coordinates
  texture.colorSpace = NoColorSpace; // data maps; colour maps get an sRGB twin (mapTexture)
  texture.userData.uploadedTextureId = textureId;
  texture.needsUpdate = true;
  return texture;
}

/** Registers a decoded image in the model's textures under its id (once). */
export function registerUploadedTexture(record: ModelRecord, textureId: string, image: Decoded): Texture {
  const existing = record.textures.get(textureId);
  if (existing) return existing;
  const texture = createUploadedTexture(textureId, image);
  record.textures.set(textureId, texture);
  return texture;
}

/**
 * The images of the uploaded textures a log names, fetched and decoded at once (before the model
 * itself is loaded, if the caller likes): id -> image or the error that stopped it.
 */
export async function fetchUploadedImages(
  modelService: string,
  modelId: string,
  mutations: readonly unknown[],
  options: UploadedTextureOptions & { skip?: (textureId: string) => boolean } = {},
): Promise<Map<string, Decoded | Error>> {
  const ids = uploadedTextureIds(mutations).filter((id) => !options.skip?.(id));
  const entries = await Promise.all(
    ids.map(async (id): Promise<[string, Decoded | Error]> => {
      try {
        return [id, await fetchUploadedImage(textureUrl(modelService, modelId, id), options)];
      } catch (error) {
        if (options.signal?.aborted) throw error;
        return [id, error instanceof Error ? error : new Error(String(error))];
      }
    }),
  );
  return new Map(entries);
}

/** Registers fetched images in the model; returns a problem sentence for each one that failed. */
export function registerUploadedImages(record: ModelRecord, images: Map<string, Decoded | Error>): string[] {
  const problems: string[] = [];
  for (const [id, image] of images) {
    if (image instanceof Error) problems.push(`The uploaded texture '${id}' could not be loaded (${image.message}), so the maps that use it stay as they were.`);
    else registerUploadedTexture(record, id, image);
  }
  return problems;
}

/**
 * The pre-pass before applyMutations: loads the uploaded textures the log names that the model
 * does not have yet and registers them. Returns the problems (one sentence per texture that
 * failed); the log is then applied as it is, and its maps naming a failed texture are reported
 * and skipped there too.
 */
export async function loadUploadedTextures(modelService: string, record: ModelRecord, mutations: readonly unknown[], options: UploadedTextureOptions = {}): Promise<string[]> {
  const images = await fetchUploadedImages(modelService, record.modelId, mutations, { ...options, skip: (id) => record.textures.has(id) });
  return registerUploadedImages(record, images);
}

/** Each uploaded texture and its twin in the other colour space, both ways. */
const twins = new WeakMap<Texture, Texture>();

/**
 * The texture a map property samples: an uploaded texture in a colour map is sampled in sRGB and
 * in a data map linearly, as glTF's textures are; when a map needs the other colour space it gets
 * the texture's twin (the same image, made once). The model's own textures are returned as they are.
 */
export function mapTexture(texture: Texture, mapKey: string): Texture {
  if (texture.userData.uploadedTextureId === undefined) return texture;
  const wantsSrgb = COLOR_TEXTURE_MAPS.has(mapKey);
  if (wantsSrgb === (texture.colorSpace === SRGBColorSpace)) return texture;
  let twin = twins.get(texture);
  if (!twin) {
    twin = texture.clone();
    twin.colorSpace = wantsSrgb ? SRGBColorSpace : NoColorSpace;
    twins.set(texture, twin);
    twins.set(twin, texture);
  }
  return twin;
}
