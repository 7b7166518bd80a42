import type { WebGLRenderer } from 'three';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { checkGlb, checkGltfJson } from '../protocol/glb';

/** Where the decoders are served (viewer specification section 7, "Static files"). */
export const DRACO_PATH = '/libs/draco/';
export const BASIS_PATH = '/libs/basis/';

export interface ModelLoader {
  parse(asset: ArrayBuffer, format: 'glb' | 'gltf'): Promise<GLTF>;
  dispose(): void;
}

/**
 * three's GLTFLoader with Draco (decoded in the DRACOLoader's workers), KTX2/Basis and meshopt.
 * Each asset's structure is checked first (src/protocol/glb.ts): glTF 2.0 or higher, a sound GLB
 * layout, buffers that exist.
 */
export function createModelLoader(renderer: WebGLRenderer | null, base = ''): ModelLoader {
  const draco = new DRACOLoader().setDecoderPath(base + DRACO_PATH);
  const ktx2 = new KTX2Loader().setTranscoderPath(base + BASIS_PATH);
  if (renderer) ktx2.detectSupport(renderer);
  const loader = new GLTFLoader().setDRACOLoader(draco).setKTX2Loader(ktx2).setMeshoptDecoder(MeshoptDecoder);
  return {
    async parse(asset, format) {
      const bytes = new Uint8Array(asset);
      if (format === 'glb') checkGlb(bytes);
      else checkGltfJson(bytes);
      return await new Promise<GLTF>((resolve, reject) => {
        try {
          loader.parse(asset, '', resolve, (error) => reject(asError(error)));
        } catch (error) {
          reject(asError(error));
        }
      });
    },
    dispose() {
      draco.dispose();
      ktx2.dispose();
    },
  };
}

function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (error && typeof error === 'object' && 'message' in error) return new Error(String((error as { message: unknown }).message));
  return new Error(`The model could not be parsed (${String(error)}).`);
}
