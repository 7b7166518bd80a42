import { CompressedCubeTexture, HalfFloatType, LinearFilter, LinearMipmapLinearFilter, LinearSRGBColorSpace, RGBAFormat, type CompressedPixelFormat, type CompressedTextureMipmap } from 'three';

/**
 * A prefiltered environment cube made at build time (the low tier's studio:
 * scripts/assets/studio-prefiltered.ts), in the layout three 0.187's PMREMGenerator renders: a cube
 * with `log2(size) - 2` mip levels, level `lod` holding the GGX-filtered radiance for roughness
 * `PMREMGenerator.lodToRoughness(lod, levels - 1)`. Materials sample it exactly like a PMREM made
 * on the GPU (`isPMREMTexture`), so the load skips the prefiltering passes and their three program
 * links, which on a software GPU are about two seconds before the first picture.
 *
 * The file (little-endian):
 *   bytes 0..3  'PMR1'
 *   bytes 4..5  face size in pixels (a power of two)
 *   byte  6     mip levels
 *   byte  7     channels: 1 (grey) or 3 (RGB)
 *   bytes 8..   deflate-raw stream of half floats: for each level, each face (+x, -x, +y, -y, +z,
 *               -z), each row from t = 0, each texel, the channels
 *
 * The texels follow the cube map convention of a CubeTexture that is not a render target: three
 * mirrors x when it samples one (WebGLMaterials' envMapRotation), so the texel that a lookup along
 * (x, y, z) reads holds the radiance arriving along (-x, y, z).
 */
export const PREFILTERED_CUBE_MAGIC = 'PMR1';
export const PREFILTERED_CUBE_HEADER_BYTES = 8;

export interface PrefilteredCube {
  size: number;
  levels: number;
  channels: 1 | 3;
  /** data[level][face]: half floats, `channels` per texel, (size >> level)^2 texels. */
  data: Uint16Array[][];
}

/** The half float 1.0, for alpha. */
const HALF_ONE = 0x3c00;

/** Reads a prefiltered cube file; throws an Error naming what is wrong with it. */
export async function decodePrefilteredCube(bytes: ArrayBuffer | Uint8Array): Promise<PrefilteredCube> {
  const all = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (all.length < PREFILTERED_CUBE_HEADER_BYTES || String.fromCharCode(...all.subarray(0, 4)) !== PREFILTERED_CUBE_MAGIC) {
    throw new Error('not a prefiltered environment cube (no PMR1 header)');
  }
  const view = new DataView(all.buffer, all.byteOffset, all.byteLength);
  const size = view.getUint16(4, true);
  const levels = all[6];
  const channels = all[7];
  if (size < 8 || size > 1024 || (size & (size - 1)) !== 0) throw new Error(`prefiltered environment cube: face size ${size} is not a power of two from 8 to 1024`);
  if (levels < 1 || size >> (levels - 1) < 1) throw new Error(`prefiltered environment cube: ${levels} levels do not fit a ${size} px face`);
  if (channels !== 1 && channels !== 3) throw new Error(`prefiltered environment cube: ${channels} channels (1 or 3 expected)`);
  let texels = 0;
  for (let level = 0; level < levels; level++) texels += 6 * (size >> level) ** 2;
  const stream = new Blob([all.slice(PREFILTERED_CUBE_HEADER_BYTES)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  let payload: ArrayBuffer;
  try {
    payload = await new Response(stream).arrayBuffer();
  } catch (error) {
    throw new Error(`prefiltered environment cube: the data does not inflate (${(error as Error).message})`);
  }
  if (payload.byteLength !== texels * channels * 2) {
    throw new Error(`prefiltered environment cube: ${payload.byteLength} bytes of data, ${texels * channels * 2} expected for ${levels} levels of ${size} px`);
  }
  const halves = new Uint16Array(payload);
  const data: Uint16Array[][] = [];
  let offset = 0;
  for (let level = 0; level < levels; level++) {
    const faces: Uint16Array[] = [];
    const n = (size >> level) ** 2 * channels;
    for (let face = 0; face < 6; face++, offset += n) faces.push(halves.subarray(offset, offset + n));
    data.push(faces);
  }
  return { size, levels, channels: channels as 1 | 3, data };
}

/**
 * The cube as a texture three samples like a PMREM (RGBA half floats, the mip levels given, none
 * generated). The caller disposes it.
 */
export function prefilteredCubeTexture(cube: PrefilteredCube): CompressedCubeTexture {
  const faces = [];
  for (let face = 0; face < 6; face++) {
    const mipmaps: CompressedTextureMipmap[] = [];
    for (let level = 0; level < cube.levels; level++) {
      const side = cube.size >> level;
      mipmaps.push({ data: toRgba(cube.data[level][face], cube.channels), width: side, height: side });
    }
    faces.push({ width: cube.size, height: cube.size, mipmaps });
  }
  const texture = new CompressedCubeTexture(faces as unknown as ConstructorParameters<typeof CompressedCubeTexture>[0], RGBAFormat as unknown as CompressedPixelFormat, HalfFloatType);
  texture.name = 'PMREM (prefiltered at build time)';
  texture.colorSpace = LinearSRGBColorSpace;
  texture.minFilter = LinearMipmapLinearFilter;
  texture.magFilter = LinearFilter;
  texture.generateMipmaps = false;
  texture.isPMREMTexture = true;
  texture.needsUpdate = true;
  return texture;
}

function toRgba(values: Uint16Array, channels: 1 | 3): Uint16Array {
  const texels = values.length / channels;
  const rgba = new Uint16Array(texels * 4);
  for (let i = 0, j = 0; i < texels; i++, j += 4) {
    const k = i * channels;
    rgba[j] = values[k];
    rgba[j + 1] = values[channels === 1 ? k : k + 1];
    rgba[j + 2] = values[channels === 1 ? k : k + 2];
    rgba[j + 3] = HALF_ONE;
  }
  return rgba;
}
