/**
 * The studio environment (src/engine/studio-environment.ts STUDIO_BOXES) prefiltered on the CPU at
 * build time, for the low tier: what three's PMREMGenerator.fromScene(studio, 0.04) computes on
 * the GPU at load, done here so that a weak device skips the prefiltering passes and their program
 * links (about two seconds on a software GPU before the first picture).
 *
 * The same steps as three 0.187's PMREMGenerator:
 * 1. the scene seen from the origin, one ray per sample (the studio is boxes with flat, unlit grey
 *    faces: a ray finds the nearest face), blurred by a Gaussian of `sigma` radians (fromScene's
 *    blur; here 32 rays per texel spread as that Gaussian, which also antialiases the edges);
 * 2. that cube's box-filtered mip chain is the source;
 * 3. level 0 is the source; the sharp levels integrate the GGX lobe of their roughness with 256
 *    importance samples, each reading the source mip that matches its solid angle; the three
 *    roughest levels weight every texel of the 16 px source mip with the GGX lobe. The sample
 *    pattern, the mip choice and the weights are three's (PMREMGenerator's GGX and integration
 *    shaders), so the picture matches a GPU-made PMREM.
 *
 * Written in the file format of src/engine/prefiltered-cube.ts (grey: one channel). Deterministic.
 */
import { deflateRawSync } from 'node:zlib';
import { DataUtils, PMREMGenerator } from 'three';
import { PREFILTERED_CUBE_HEADER_BYTES, PREFILTERED_CUBE_MAGIC } from '../../src/engine/prefiltered-cube';
import { STUDIO_BLUR_SIGMA, STUDIO_BOXES, type StudioBox } from '../../src/engine/studio-environment';

/** three's PMREMGenerator constants (0.187). */
const LOD_MIN = 3;
const GGX_SAMPLES = 256;
const INTEGRATION_SIZE = 16;
const INTEGRATION_LEVELS = 3;
const BLUR_RAYS = 32;

type Vec3 = [number, number, number];

/** A cube of grey levels: faces[face] is size x size, row t = 0 first, in the GL cube map layout. */
interface GreyCube {
  size: number;
  faces: Float32Array[];
}

/** The direction through the centre of texel (i, j) of a face, in the GL cube map convention (unnormalised). */
export function texelDirection(face: number, i: number, j: number, size: number): Vec3 {
  const a = ((i + 0.5) / size) * 2 - 1;
  const b = ((j + 0.5) / size) * 2 - 1;
  switch (face) {
    case 0: return [1, -b, -a];
    case 1: return [-1, -b, a];
    case 2: return [a, 1, b];
    case 3: return [a, -1, -b];
    case 4: return [a, -b, 1];
    default: return [-a, -b, -1];
  }
}

/** The face and (s, t) in [0, 1] that a GL cube map lookup along `d` reads. */
export function cubeLookup(x: number, y: number, z: number): { face: number; s: number; t: number } {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const az = Math.abs(z);
  let face: number;
  let sc: number;
  let tc: number;
  let ma: number;
  if (ax >= ay && ax >= az) {
    ma = ax;
    if (x > 0) [face, sc, tc] = [0, -z, -y];
    else [face, sc, tc] = [1, z, -y];
  } else if (ay >= az) {
    ma = ay;
    if (y > 0) [face, sc, tc] = [2, x, z];
    else [face, sc, tc] = [3, x, -z];
  } else {
    ma = az;
    if (z > 0) [face, sc, tc] = [4, x, -y];
    else [face, sc, tc] = [5, -x, -y];
  }
  return { face, s: (sc / ma + 1) / 2, t: (tc / ma + 1) / 2 };
}

/** The grey level a ray from the origin along `d` sees in the studio (the nearest box face). */
export function traceStudio(dx: number, dy: number, dz: number, boxes: readonly StudioBox[] = STUDIO_BOXES): number {
  let best = Infinity;
  let value = 0;
  const d = [dx, dy, dz];
  for (const box of boxes) {
    let near = -Infinity;
    let far = Infinity;
    let nearAxis = 0;
    let farAxis = 0;
    for (let axis = 0; axis < 3; axis++) {
      const lo = box.position[axis] - box.size[axis] / 2;
      const hi = box.position[axis] + box.size[axis] / 2;
      if (d[axis] === 0) {
        if (lo > 0 || hi < 0) {
          near = Infinity;
          break;
        }
        continue;
      }
      let t0 = lo / d[axis];
      let t1 = hi / d[axis];
      if (t0 > t1) [t0, t1] = [t1, t0];
      if (t0 > near) [near, nearAxis] = [t0, axis];
      if (t1 < far) [far, farAxis] = [t1, axis];
    }
    if (near > far) continue;
    if (box.inside) {
      // From inside: the wall the ray leaves through, on the side it travels to.
      if (far > 0 && far < best) [best, value] = [far, box.faces[farAxis * 2 + (d[farAxis] > 0 ? 0 : 1)]];
    } else if (near > 0 && near < best) {
      // From outside: the face the ray enters through, the one facing back along it.
      [best, value] = [near, box.faces[nearAxis * 2 + (d[nearAxis] > 0 ? 1 : 0)]];
    }
  }
  return value;
}

/**
 * Level 0: the studio seen along each texel's direction, blurred by a Gaussian of `sigma` radians.
 * Three samples a CubeTexture that is not a render target with x mirrored, so the texel a lookup
 * along (x, y, z) reads holds the light arriving along (-x, y, z).
 */
function renderStudio(size: number, sigma: number): GreyCube {
  const golden = Math.PI * (3 - Math.sqrt(5));
  return perTexel(size, ([x, y, z]) => {
    const [tx, ty, tz] = normalize(Math.abs(z) < 0.999 ? cross([0, 0, 1], [x, y, z]) : cross([1, 0, 0], [x, y, z]));
    const [bx, by, bz] = cross([x, y, z], [tx, ty, tz]);
    let sum = 0;
    for (let k = 0; k < BLUR_RAYS; k++) {
      // A Gaussian spiral: radius from the inverse CDF of the Rayleigh distribution.
      const r = sigma * Math.sqrt(-2 * Math.log(1 - (k + 0.5) / BLUR_RAYS));
      const phi = k * golden;
      const u = Math.tan(r) * Math.cos(phi);
      const v = Math.tan(r) * Math.sin(phi);
      sum += traceStudio(-(x + u * tx + v * bx), y + u * ty + v * by, z + u * tz + v * bz);
    }
    return sum / BLUR_RAYS;
  });
}

/** A level of `size` px whose every texel is `value` of the texel's unit direction. */
function perTexel(size: number, value: (direction: Vec3) => number): GreyCube {
  const faces: Float32Array[] = [];
  for (let face = 0; face < 6; face++) {
    const out = new Float32Array(size * size);
    for (let j = 0; j < size; j++) for (let i = 0; i < size; i++) out[j * size + i] = value(normalize(texelDirection(face, i, j, size)));
    faces.push(out);
  }
  return { size, faces };
}

/** A 2 x 2 box filter of each face, down to 1 px: the source's mip chain (the GPU's generateMipmap). */
function mipChain(base: GreyCube): GreyCube[] {
  const chain = [base];
  for (let cube = base; cube.size > 1; ) {
    const size = cube.size / 2;
    const faces = cube.faces.map((f) => {
      const out = new Float32Array(size * size);
      for (let j = 0; j < size; j++) {
        for (let i = 0; i < size; i++) {
          const a = 2 * j * cube.size + 2 * i;
          out[j * size + i] = (f[a] + f[a + 1] + f[a + cube.size] + f[a + cube.size + 1]) / 4;
        }
      }
      return out;
    });
    cube = { size, faces };
    chain.push(cube);
  }
  return chain;
}

/** Bilinear lookup in one level (clamped at the face's edges). */
function sampleLevel(cube: GreyCube, x: number, y: number, z: number): number {
  const { face, s, t } = cubeLookup(x, y, z);
  const n = cube.size;
  const fx = Math.min(Math.max(s * n - 0.5, 0), n - 1);
  const fy = Math.min(Math.max(t * n - 0.5, 0), n - 1);
  const i0 = Math.floor(fx);
  const j0 = Math.floor(fy);
  const i1 = Math.min(i0 + 1, n - 1);
  const j1 = Math.min(j0 + 1, n - 1);
  const wx = fx - i0;
  const wy = fy - j0;
  const f = cube.faces[face];
  const top = f[j0 * n + i0] * (1 - wx) + f[j0 * n + i1] * wx;
  const bottom = f[j1 * n + i0] * (1 - wx) + f[j1 * n + i1] * wx;
  return top * (1 - wy) + bottom * wy;
}

/** Trilinear lookup (textureLod). */
function sampleLod(chain: GreyCube[], x: number, y: number, z: number, lod: number): number {
  const l = Math.min(Math.max(lod, 0), chain.length - 1);
  const l0 = Math.floor(l);
  const l1 = Math.min(l0 + 1, chain.length - 1);
  const w = l - l0;
  const a = sampleLevel(chain[l0], x, y, z);
  return w === 0 ? a : a * (1 - w) + sampleLevel(chain[l1], x, y, z) * w;
}

/** Van der Corput radical inverse (three's GGX shader). */
function radicalInverse(i: number): number {
  let bits = i >>> 0;
  bits = ((bits << 16) | (bits >>> 16)) >>> 0;
  bits = (((bits & 0x55555555) << 1) | ((bits & 0xaaaaaaaa) >>> 1)) >>> 0;
  bits = (((bits & 0x33333333) << 2) | ((bits & 0xcccccccc) >>> 2)) >>> 0;
  bits = (((bits & 0x0f0f0f0f) << 4) | ((bits & 0xf0f0f0f0) >>> 4)) >>> 0;
  bits = (((bits & 0x00ff00ff) << 8) | ((bits & 0xff00ff00) >>> 8)) >>> 0;
  return bits * 2.3283064365386963e-10;
}

/** One sharp level: GGX importance sampling with V = N (three's PMREMGGXConvolution). */
function ggxLevel(chain: GreyCube[], size: number, roughness: number): GreyCube {
  const cubeSize = chain[0].size;
  const alpha = roughness * roughness;
  const alpha2 = alpha * alpha;
  const lodBias = Math.log2(cubeSize) + 0.5 * Math.log2(6 / (GGX_SAMPLES * Math.pow(roughness, 4))) + 0.5;
  const samples: { invQ: number; nDotL: number; sinTheta: number; cos: number; sin: number; lod: number }[] = [];
  for (let i = 0; i < GGX_SAMPLES; i++) {
    const xi = i / GGX_SAMPLES;
    const yi = radicalInverse(i);
    const invQ = 1 / (1 - xi + alpha2 * xi);
    const nDotL = (1 - xi - alpha2 * xi) * invQ;
    if (nDotL <= 0) continue;
    const sinTheta = 2 * alpha * Math.sqrt(xi * (1 - xi)) * invQ;
    const phi = 2 * Math.PI * yi;
    samples.push({ invQ, nDotL, sinTheta, cos: Math.cos(phi), sin: Math.sin(phi), lod: Math.max(Math.log2(alpha2 * invQ) + lodBias, 0) });
  }
  return perTexel(size, (n) => {
    const t = normalize(cross(Math.abs(n[2]) < 0.999 ? [0, 0, 1] : [1, 0, 0], n));
    const b = cross(n, t);
    let sum = 0;
    let weight = 0;
    for (const s of samples) {
      const u = s.cos * s.sinTheta;
      const v = s.sin * s.sinTheta;
      const x = n[0] * s.nDotL + t[0] * u + b[0] * v;
      const y = n[1] * s.nDotL + t[1] * u + b[1] * v;
      const z = n[2] * s.nDotL + t[2] * u + b[2] * v;
      sum += sampleLod(chain, x, y, z, s.lod) * s.nDotL;
      weight += s.nDotL;
    }
    return sum / weight;
  });
}

/** One rough level: every texel of the 16 px source mip weighted by the GGX lobe (three's PMREMGGXIntegration). */
function integrationLevel(chain: GreyCube[], size: number, roughness: number): GreyCube {
  const sourceLod = Math.log2(chain[0].size / INTEGRATION_SIZE);
  const alpha = roughness * roughness;
  const alpha2 = alpha * alpha;
  const texelSize = 2 / INTEGRATION_SIZE;
  // The source texels (three's pairing of opposite faces: only the one in N's hemisphere counts).
  const dirs: { d: Vec3; invDistance: number; plus: number; minus: number }[] = [];
  for (let face = 0; face < 3; face++) {
    for (let y = 0; y < INTEGRATION_SIZE; y++) {
      for (let x = 0; x < INTEGRATION_SIZE; x++) {
        const u = (x + 0.5) * texelSize - 1;
        const v = (y + 0.5) * texelSize - 1;
        const d: Vec3 = face === 0 ? [1, u, v] : face === 1 ? [u, 1, v] : [u, v, 1];
        dirs.push({ d, invDistance: 1 / Math.sqrt(1 + u * u + v * v), plus: sampleLod(chain, d[0], d[1], d[2], sourceLod), minus: sampleLod(chain, -d[0], -d[1], -d[2], sourceLod) });
      }
    }
  }
  return perTexel(size, (n) => {
    let sum = 0;
    let total = 0;
    for (const s of dirs) {
      const dot = n[0] * s.d[0] + n[1] * s.d[1] + n[2] * s.d[2];
      const nDotL = Math.abs(dot) * s.invDistance;
      const q = 1 + alpha2 + (alpha2 - 1) * nDotL;
      const w = (nDotL * s.invDistance ** 3) / (q * q);
      sum += (dot < 0 ? s.minus : s.plus) * w;
      total += w;
    }
    return sum / total;
  });
}

/** three's mapping of a PMREM level to its roughness (a static its type declarations leave out). */
export const lodToRoughness: (lod: number, maxLod: number) => number = (PMREMGenerator as unknown as { lodToRoughness(lod: number, maxLod: number): number }).lodToRoughness;

/** The prefiltered studio's levels (grey, linear), as three's PMREMGenerator lays them out for a `size` px cube. */
export function prefilterStudio(size: number, sigma = STUDIO_BLUR_SIGMA): GreyCube[] {
  // Below 64 px three's layout integrates level 0 (roughness 0) over the 16 px mip: 0 / 0.
  if (!Number.isInteger(Math.log2(size)) || size < 64 || size > 256) throw new Error(`the studio is prefiltered at 64 to 256 px, a power of two (not ${size})`);
  const chain = mipChain(renderStudio(size, sigma));
  const maxLod = Math.log2(size) - LOD_MIN;
  const levels: GreyCube[] = [];
  for (let lod = 0; lod <= maxLod; lod++) {
    const roughness = lodToRoughness(lod, maxLod);
    const side = size >> lod;
    if (lod > maxLod - INTEGRATION_LEVELS) levels.push(integrationLevel(chain, side, roughness));
    else if (roughness < 0.001) levels.push(chain[0]);
    else levels.push(ggxLevel(chain, side, roughness));
  }
  return levels;
}

/** The file of src/engine/prefiltered-cube.ts for the studio prefiltered at `size` px. */
export function encodePrefilteredStudio(size: number): Uint8Array {
  const levels = prefilterStudio(size);
  let texels = 0;
  for (const level of levels) texels += 6 * level.size * level.size;
  const halves = new Uint16Array(texels);
  let k = 0;
  for (const level of levels) for (const face of level.faces) for (const value of face) halves[k++] = DataUtils.toHalfFloat(value);
  const payload = deflateRawSync(new Uint8Array(halves.buffer), { level: 9 });
  const out = new Uint8Array(PREFILTERED_CUBE_HEADER_BYTES + payload.length);
  out.set([...PREFILTERED_CUBE_MAGIC].map((c) => c.charCodeAt(0)), 0);
  new DataView(out.buffer).setUint16(4, size, true);
  out[6] = levels.length;
  out[7] = 1;
  out.set(payload, PREFILTERED_CUBE_HEADER_BYTES);
  return out;
}

function normalize([x, y, z]: Vec3): Vec3 {
  const l = Math.hypot(x, y, z);
  return [x / l, y / l, z / l];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
