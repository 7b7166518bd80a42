import { HalfFloatType } from 'three';
import { HDRLoader } from 'three/examples/jsm/loaders/HDRLoader.js';
import { UltraHDRLoader } from 'three/examples/jsm/loaders/UltraHDRLoader.js';

/** Decoders of environment images (a chunk of its own, fetched by ./environments.ts when a scene uses one). */

/** A gain-map JPEG decodes asynchronously in the loader and never settles if an image is corrupt. */
export const ENVIRONMENT_DECODE_TIMEOUT_MS = 30_000;

export interface DecodedImage {
  width: number;
  height: number;
  data: Uint16Array;
}

/** Decodes a Radiance file with three's HDRLoader (half floats, RGBA). */
export function decodeRadiance(buffer: ArrayBuffer, url = 'the environment'): DecodedImage {
  try {
    const parsed = new HDRLoader().setDataType(HalfFloatType).parse(buffer);
    if (!parsed.width || !parsed.height || !parsed.data) throw new Error('no image data');
    return { width: parsed.width, height: parsed.height, data: parsed.data as Uint16Array };
  } catch (error) {
    throw new Error(`${url} is not a readable Radiance HDR file: ${messageOf(error)}`);
  }
}

/** Decodes a gain-map JPEG with three's UltraHDRLoader (half floats, RGBA). */
export function decodeGainMapJpeg(buffer: ArrayBuffer, url = 'the environment', timeoutMs = ENVIRONMENT_DECODE_TIMEOUT_MS): Promise<DecodedImage> {
  return new Promise<DecodedImage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${url} could not be decoded as a gain-map JPEG within ${timeoutMs / 1000} s.`)), timeoutMs);
    try {
      new UltraHDRLoader().setDataType(HalfFloatType).parse(buffer, (image) => {
        clearTimeout(timer);
        // three r187 passes the pixels as `data` (its type declarations say `hdrBuffer`).
        const data = (image as unknown as { data?: Uint16Array }).data ?? (image.hdrBuffer as Uint16Array);
        resolve({ width: image.width, height: image.height, data });
      });
    } catch (error) {
      clearTimeout(timer);
      reject(new Error(`${url} is not a readable gain-map JPEG: ${messageOf(error)}`));
    }
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
