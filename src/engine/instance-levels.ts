import type { Camera, Matrix4 } from 'three';

/**
 * Which level of detail each instance of a group is drawn at (issue 35, item 2), from its projected
 * size: a simplified level once its geometric error would cover less than LEVEL_TOLERANCE_PIXELS on
 * the screen, the impostor once the whole instance is smaller than IMPOSTOR_PIXELS across. With
 * hysteresis: a level is left for a coarser one only when the instance is LEVEL_HYSTERESIS smaller
 * than the change point, and for a finer one only when it is as much larger, so that an instance
 * on the boundary (or a camera that trembles) does not flicker between two levels. The choice is
 * idempotent: choosing again with the same view keeps the level, so every pass of a frame (the
 * shadow maps before the picture) finds the same one.
 *
 * The quantity compared is q = (s / d)^2 for an instance of largest scale s at distance d from the
 * camera (s^2 in an orthographic view, where size does not fall with distance): a level of error e
 * (asset units) covers e * s * P / d pixels, P the view's pixels per unit at distance 1, so it may
 * be drawn while q <= (tolerance / (e * P))^2. Level 0 (full detail) has no limit.
 *
 * `bias` scales the tolerance (the triangle budget raises it, src/engine/triangle-budget.ts).
 */

/** Screen-space error (pixels) a simplified level may show at bias 1. */
export const LEVEL_TOLERANCE_PIXELS = 1;
/** Projected diameter (pixels) below which an instance is drawn as its impostor, at bias 1. */
export const IMPOSTOR_PIXELS = 40;
/** How far (a share of its size) an instance must pass a change point before its level changes. */
export const LEVEL_HYSTERESIS = 0.15;

/** The view every pass of a frame chooses levels for (the picture's camera; set once a frame by the render system). */
export interface LevelView {
  /** Camera position, world space. */
  x: number;
  y: number;
  z: number;
  /** Pixels a unit covers at distance 1 (perspective) or anywhere (orthographic). */
  pixelsPerUnit: number;
  orthographic: boolean;
  /** Tolerance scale (1: LEVEL_TOLERANCE_PIXELS and IMPOSTOR_PIXELS as they are). */
  bias: number;
  /** Changes whenever anything above does: a pass list made for another view is made again. */
  stamp: number;
  /** False until a view is set: everything is drawn at full detail. */
  set: boolean;
}

export const levelView: LevelView = { x: 0, y: 0, z: 0, pixelsPerUnit: 1, orthographic: false, bias: 1, stamp: 0, set: false };

/** Sets the view levels are chosen for: `camera` drawn `heightPx` pixels high. */
export function setLevelView(camera: Camera, heightPx: number, bias = 1, view: LevelView = levelView): void {
  const e = camera.matrixWorld.elements;
  // projectionMatrix[5] is 1 / tan(fov / 2) (times zoom) for a perspective camera and
  // 2 zoom / (top - bottom) for an orthographic one: in both, pixels per unit = it x height / 2.
  const pixelsPerUnit = (camera.projectionMatrix.elements[5]! * heightPx) / 2;
  const orthographic = (camera as { isOrthographicCamera?: boolean }).isOrthographicCamera === true;
  if (
    view.set &&
    view.x === e[12] &&
    view.y === e[13] &&
    view.z === e[14] &&
    view.pixelsPerUnit === pixelsPerUnit &&
    view.orthographic === orthographic &&
    view.bias === bias
  )
    return;
  view.x = e[12]!;
  view.y = e[13]!;
  view.z = e[14]!;
  view.pixelsPerUnit = pixelsPerUnit;
  view.orthographic = orthographic;
  view.bias = bias;
  view.stamp++;
  view.set = true;
}

/** What choosing a level needs of an asset: each simplified level's error, and the impostor's radius (0: none). */
export interface LevelledAsset {
  errors: readonly number[];
  impostorRadius: number;
}

/**
 * The limits on q (see the top of the file) of each level for a view and a group of world scale
 * `groupScale`: `out[k]` for level k (k = 0 full detail: Infinity; the impostor last), never rising
 * with k. Returns how many levels (1 + simplified levels + 1 with an impostor).
 */
export function levelLimits(asset: LevelledAsset, view: LevelView, groupScale: number, out: Float64Array): number {
  // q is measured in the group's space: in perspective its scale cancels (size and distance both
  // carry it); in an orthographic view the size alone does.
  const p = view.orthographic ? view.pixelsPerUnit * groupScale : view.pixelsPerUnit;
  let n = 0;
  out[n++] = Infinity;
  for (const error of asset.errors) {
    const limit = error > 0 ? (LEVEL_TOLERANCE_PIXELS * view.bias) / (error * p) : Infinity;
    out[n] = Math.min(out[n - 1]!, limit * limit);
    n++;
  }
  if (asset.impostorRadius > 0) {
    const limit = (IMPOSTOR_PIXELS * view.bias) / (2 * asset.impostorRadius * p);
    out[n] = Math.min(out[n - 1]!, limit * limit);
    n++;
  }
  return n;
}

const GROW = (1 + LEVEL_HYSTERESIS) ** 2;
const SHRINK = (1 - LEVEL_HYSTERESIS) ** 2;

/** The coarsest level whose limit allows q (limits never rise with the level), without hysteresis. */
export function levelForMeasure(q: number, limits: Float64Array, n: number): number {
  let k = n - 1;
  while (k > 0 && q > limits[k]!) k--;
  return k;
}

/**
 * The level for an instance of measure q (see the top of the file) drawn at `previous` before:
 * kept while the instance stays within LEVEL_HYSTERESIS of the change points around it.
 */
export function chooseLevel(q: number, previous: number, limits: Float64Array, n: number): number {
  // At q grown the level can only be finer: the coarsest the hysteresis lets it go to.
  const coarsest = levelForMeasure(q * GROW, limits, n);
  // At q shrunk, coarser: the finest it must come back to.
  const finest = levelForMeasure(q * SHRINK, limits, n);
  // previous (if it was a level of these) clamped to [coarsest .. finest] in level order (finer = lower).
  if (previous < coarsest) return coarsest;
  if (previous > finest) return finest;
  return previous;
}

/**
 * q of the instance whose matrix starts at `o` in `m` (group space), of an asset whose centre is
 * (cx, cy, cz), seen from (vx, vy, vz) in group space.
 */
export function instanceMeasure(
  m: Float32Array,
  o: number,
  cx: number,
  cy: number,
  cz: number,
  vx: number,
  vy: number,
  vz: number,
  orthographic: boolean,
): number {
  const m0 = m[o]!;
  const m1 = m[o + 1]!;
  const m2 = m[o + 2]!;
  const m4 = m[o + 4]!;
  const m5 = m[o + 5]!;
  const m6 = m[o + 6]!;
  const m8 = m[o + 8]!;
  const m9 = m[o + 9]!;
  const m10 = m[o + 10]!;
  const a = m0 * m0 + m1 * m1 + m2 * m2;
  const b = m4 * m4 + m5 * m5 + m6 * m6;
  const c = m8 * m8 + m9 * m9 + m10 * m10;
  const s2 = a > b ? (a > c ? a : c) : b > c ? b : c;
  if (orthographic) return s2;
  const x = m0 * cx + m4 * cy + m8 * cz + m[o + 12]! - vx;
  const y = m1 * cx + m5 * cy + m9 * cz + m[o + 13]! - vy;
  const z = m2 * cx + m6 * cy + m10 * cz + m[o + 14]! - vz;
  const d2 = x * x + y * y + z * z;
  return d2 > 0 ? s2 / d2 : Infinity;
}

/** The view's position in the space of a group whose world matrix is `world`, and that matrix's largest scale. */
export function viewInGroup(view: LevelView, world: Matrix4, inverse: Matrix4, out: Float64Array): number {
  const e = inverse.copy(world).invert().elements;
  out[0] = e[0]! * view.x + e[4]! * view.y + e[8]! * view.z + e[12]!;
  out[1] = e[1]! * view.x + e[5]! * view.y + e[9]! * view.z + e[13]!;
  out[2] = e[2]! * view.x + e[6]! * view.y + e[10]! * view.z + e[14]!;
  return worldScale(world);
}

/** The largest scale of a world matrix's axes (how much a group's space is enlarged in the world). */
export function worldScale(world: Matrix4): number {
  const w = world.elements;
  return Math.max(Math.hypot(w[0]!, w[1]!, w[2]!), Math.hypot(w[4]!, w[5]!, w[6]!), Math.hypot(w[8]!, w[9]!, w[10]!));
}
