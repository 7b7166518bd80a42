import { Texture, type WebGLRenderer } from 'three';
import type { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import { GLTFLoader, type GLTF, type GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import { checkGlb, checkGltfJson, type GltfJson } from '../protocol/glb';

/** Where the decoders are served (viewer specification section 7, "Static files"). */
export const DRACO_PATH = '/libs/draco/';
export const BASIS_PATH = '/libs/basis/';

export interface ModelLoader {
  /**
   * `images`: the asset's images decoded ahead (by glTF image index, model-images.ts), taken
   * instead of decoding them; a null or missing entry is decoded as usual. Those not used are closed.
   */
  parse(asset: ArrayBuffer, format: 'glb' | 'gltf', images?: readonly (ImageBitmap | null)[]): Promise<GLTF>;
  /** The largest texture side its images are scaled to (the low tier's); null or absent: none. */
  readonly textureLimit?: number | null;
  dispose(): void;
}

/** The extensions that need a decoder of their own, loaded with its code only when a model uses it. */
const DRACO_EXTENSION = 'KHR_draco_mesh_compression';
const BASISU_EXTENSION = 'KHR_texture_basisu';
const MESHOPT_EXTENSION = 'EXT_meshopt_compression';

/**
 * three's GLTFLoader with Draco (decoded in the DRACOLoader's workers), KTX2/Basis and meshopt.
 * Each asset's structure is checked first (src/protocol/glb.ts): glTF 2.0 or higher, a sound GLB
 * layout, buffers that exist. The Draco and KTX2 loaders (and KTX2's zstd decoder) are fetched the
 * first time a model lists their extension, so a page that shows plain models never loads them.
 * The meshopt decoder, which our optimised models all use, is a chunk fetched as soon as the loader
 * is made, in parallel with the models' downloads, rather than a part of the page's first script.
 */
export function createModelLoader(renderer: WebGLRenderer | null, base = '', options: { textureLimit?: number | null } = {}): ModelLoader {
  const loader = new GLTFLoader();
  // The low tier's texture limit: its image loader is a chunk of its own, fetched with the models.
  const limit = options.textureLimit;
  let limited: Promise<void> | null = null;
  if (limit) {
    limited = import('./texture-limit').then(
      ({ limitTextures }) => limitTextures(loader, limit),
      (error: Error) => console.warn(`The texture limit could not be loaded (${error.message}): textures keep their size.`),
    );
  }
  // The images decoded ahead for the parse under way: GLTFLoader makes its parser, and calls its
  // plugins, synchronously inside parse().
  let ahead: { images: readonly (ImageBitmap | null)[]; taken: Set<number> } | null = null;
  loader.register((parser) => {
    if (ahead) useDecodedImages(parser, ahead.images, ahead.taken);
    return { name: 'decoded-images' };
  });
  const meshopt = import('three/examples/jsm/libs/meshopt_decoder.module.js').then(({ MeshoptDecoder }) => MeshoptDecoder);
  meshopt.catch(() => undefined);
  let meshoptSet = false;
  let draco: Promise<DRACOLoader> | null = null;
  let ktx2: Promise<KTX2Loader> | null = null;
  let disposed = false;

  const decodersFor = async (json: GltfJson) => {
    // extensionsUsed should list every extension; a file that names one only as required still gets its decoder.
    const used = [json.extensionsUsed, json.extensionsRequired].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
    if (used.includes(MESHOPT_EXTENSION) && !meshoptSet) {
      loader.setMeshoptDecoder(await meshopt);
      meshoptSet = true;
    }
    if (used.includes(DRACO_EXTENSION)) {
      draco ??= import('three/examples/jsm/loaders/DRACOLoader.js').then(({ DRACOLoader }) => new DRACOLoader().setDecoderPath(base + DRACO_PATH));
      loader.setDRACOLoader(await draco);
    }
    if (used.includes(BASISU_EXTENSION)) {
      ktx2 ??= import('three/examples/jsm/loaders/KTX2Loader.js').then(({ KTX2Loader }) => {
        const k = new KTX2Loader().setTranscoderPath(base + BASIS_PATH);
        if (renderer) k.detectSupport(renderer);
        return k;
      });
      loader.setKTX2Loader(await ktx2);
    }
  };

  return {
    textureLimit: limit ?? null,
    async parse(asset, format, images) {
      const taken = new Set<number>();
      let parsed = false;
      try {
        const bytes = new Uint8Array(asset);
        const { json } = format === 'glb' ? checkGlb(bytes) : checkGltfJson(bytes);
        await decodersFor(json);
        await limited;
        if (disposed) throw new Error('The model loader was disposed.');
        const gltf = await new Promise<GLTF>((resolve, reject) => {
          ahead = images ? { images, taken } : null;
          try {
            loader.parse(asset, '', resolve, (error) => reject(asError(error)));
          } catch (error) {
            reject(asError(error));
          } finally {
            ahead = null;
          }
        });
        parsed = true;
        return gltf;
      } finally {
        // The bitmaps no texture took, and all of them when the parse failed (its textures are
        // dropped), free their memory now.
        images?.forEach((bitmap, index) => {
          if (bitmap && (!parsed || !taken.has(index))) bitmap.close();
        });
      }
    },
    dispose() {
      disposed = true;
      void draco?.then((d) => d.dispose(), () => undefined);
      void ktx2?.then((k) => k.dispose(), () => undefined);
    },
  };
}

type ImageSourceLoader = { isImageBitmapLoader?: boolean };
type ParserInternals = {
  json: { images?: { mimeType?: string; extras?: unknown }[] };
  sourceCache: Record<number, Promise<Texture> | undefined>;
  loadImageSource(sourceIndex: number, loader: ImageSourceLoader): Promise<Texture>;
};

/**
 * Makes `parser` take the decoded bitmaps for its image sources: what three's loadImageSource does
 * once its ImageBitmapLoader has decoded one (a Texture of the bitmap, the source's extras and
 * mimeType in userData, one promise per source whose later users get clones), without the decode.
 * Only where three decodes with an ImageBitmapLoader too: three decodes with <img> where a
 * browser's bitmaps are unreliable (Safari before 17, Firefox before 98), and KTX2 images have a
 * loader of their own. Sources without a bitmap go through three's own code.
 */
function useDecodedImages(parser: GLTFParser, images: readonly (ImageBitmap | null)[], taken: Set<number>): void {
  const internals = parser as unknown as ParserInternals;
  const own = internals.loadImageSource.bind(parser);
  internals.loadImageSource = (sourceIndex, imageLoader) => {
    const bitmap = images[sourceIndex];
    if (!bitmap || imageLoader.isImageBitmapLoader !== true) return own(sourceIndex, imageLoader);
    const cached = internals.sourceCache[sourceIndex];
    if (cached !== undefined) return cached.then((texture) => texture.clone());
    taken.add(sourceIndex);
    const texture = new Texture(bitmap);
    texture.needsUpdate = true;
    const sourceDef = internals.json.images?.[sourceIndex] ?? {};
    if (sourceDef.extras !== null && typeof sourceDef.extras === 'object') Object.assign(texture.userData, sourceDef.extras);
    texture.userData.mimeType = sourceDef.mimeType;
    const promise = Promise.resolve(texture);
    internals.sourceCache[sourceIndex] = promise;
    return promise;
  };
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (error && typeof error === 'object' && 'message' in error) return new Error(String((error as { message: unknown }).message));
  return new Error(`The model could not be parsed (${String(error)}).`);
}
