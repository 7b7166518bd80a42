import { Transform } from '../components';
import { rebuildTransformOrder } from '../src/engine/hierarchy';
import type { ViewerWorld } from '../src/engine/world';

const { position: P, rotation: R, scale: S, world: W, parent: PARENT, dirty: DIRTY, worldChanged: CHANGED } = Transform;

/**
 * Recomputes world matrices from local transforms, parents before children, only for entities
 * whose transform changed or whose parent's world matrix changed this run. Sets worldChanged for
 * the render system. Nothing is allocated; a frame in which nothing moved costs one flag check
 * (plus one pass to clear last frame's worldChanged flags).
 */
export function transformSystem(world: ViewerWorld): ViewerWorld {
  const t = world.transform;
  if (t.builtVersion !== t.version) rebuildTransformOrder(world);
  if (!t.anyDirty) {
    if (t.changed !== 0) clearChanged(world);
    return world;
  }
  const order = t.order;
  const n = t.count;
  let changed = 0;
  for (let i = 0; i < n; i++) {
    const e = order[i];
    const p = PARENT[e];
    if (DIRTY[e] === 0 && (p === 0 || CHANGED[p] === 0)) {
      CHANGED[e] = 0;
      continue;
    }
    DIRTY[e] = 0;
    CHANGED[e] = 1;
    changed++;
    composeWorld(e, p);
  }
  t.anyDirty = false;
  t.changed = changed;
  t.epoch++;
  return world;
}

function clearChanged(world: ViewerWorld): void {
  const { order, count } = world.transform;
  for (let i = 0; i < count; i++) CHANGED[order[i]] = 0;
  world.transform.changed = 0;
  world.transform.epoch++;
}

/** W[e] = W[p] * compose(P[e], R[e], S[e]) (or the local matrix alone for a root), column-major. */
function composeWorld(e: number, p: number): void {
  const pi = e * 3;
  const ri = e * 4;
  const x = R[ri], y = R[ri + 1], z = R[ri + 2], w = R[ri + 3];
  const sx = S[pi], sy = S[pi + 1], sz = S[pi + 2];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2;
  const yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  // Local matrix (columns 0..2 scaled rotation, column 3 translation).
  const l0 = (1 - (yy + zz)) * sx, l1 = (xy + wz) * sx, l2 = (xz - wy) * sx;
  const l4 = (xy - wz) * sy, l5 = (1 - (xx + zz)) * sy, l6 = (yz + wx) * sy;
  const l8 = (xz + wy) * sz, l9 = (yz - wx) * sz, l10 = (1 - (xx + yy)) * sz;
  const l12 = P[pi], l13 = P[pi + 1], l14 = P[pi + 2];
  const o = e * 16;
  if (p === 0) {
    W[o] = l0; W[o + 1] = l1; W[o + 2] = l2; W[o + 3] = 0;
    W[o + 4] = l4; W[o + 5] = l5; W[o + 6] = l6; W[o + 7] = 0;
    W[o + 8] = l8; W[o + 9] = l9; W[o + 10] = l10; W[o + 11] = 0;
    W[o + 12] = l12; W[o + 13] = l13; W[o + 14] = l14; W[o + 15] = 1;
    return;
  }
  const q = p * 16;
  const a0 = W[q], a1 = W[q + 1], a2 = W[q + 2], a3 = W[q + 3];
  const a4 = W[q + 4], a5 = W[q + 5], a6 = W[q + 6], a7 = W[q + 7];
  const a8 = W[q + 8], a9 = W[q + 9], a10 = W[q + 10], a11 = W[q + 11];
  const a12 = W[q + 12], a13 = W[q + 13], a14 = W[q + 14], a15 = W[q + 15];
  W[o] = a0 * l0 + a4 * l1 + a8 * l2;
  W[o + 1] = a1 * l0 + a5 * l1 + a9 * l2;
  W[o + 2] = a2 * l0 + a6 * l1 + a10 * l2;
  W[o + 3] = a3 * l0 + a7 * l1 + a11 * l2;
  W[o + 4] = a0 * l4 + a4 * l5 + a8 * l6;
  W[o + 5] = a1 * l4 + a5 * l5 + a9 * l6;
  W[o + 6] = a2 * l4 + a6 * l5 + a10 * l6;
  W[o + 7] = a3 * l4 + a7 * l5 + a11 * l6;
  W[o + 8] = a0 * l8 + a4 * l9 + a8 * l10;
  W[o + 9] = a1 * l8 + a5 * l9 + a9 * l10;
  W[o + 10] = a2 * l8 + a6 * l9 + a10 * l10;
  W[o + 11] = a3 * l8 + a7 * l9 + a11 * l10;
  W[o + 12] = a0 * l12 + a4 * l13 + a8 * l14 + a12;
  W[o + 13] = a1 * l12 + a5 * l13 + a9 * l14 + a13;
  W[o + 14] = a2 * l12 + a6 * l13 + a10 * l14 + a14;
  W[o + 15] = a3 * l12 + a7 * l13 + a11 * l14 + a15;
}
