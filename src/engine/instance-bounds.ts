import { Box3 } from 'three';
import type { InstanceGroupRecord } from './instances';

/**
 * A group's local box (every instance inside it) and its meshes' bounds, which three's frustum
 * culling and fitting read: kept from the bounds index's root and the instances it does not hold,
 * never from a walk over every instance once the index is built.
 */

/** Marks a removed slot (src/engine/instances.ts REMOVED_ID). */
const REMOVED = 0xffffffff;

// Scratch.
const scratchBox = new Float32Array(6);
const box3 = new Box3();

export function recomputeLocalBox(group: InstanceGroupRecord): void {
  group.localBox.makeEmpty();
  let from = 0;
  if (!group.bvh.stale) {
    if (group.bvh.rootBox(scratchBox)) {
      group.localBox.min.set(scratchBox[0]!, scratchBox[1]!, scratchBox[2]!);
      group.localBox.max.set(scratchBox[3]!, scratchBox[4]!, scratchBox[5]!);
    }
    from = group.bvh.built;
  }
  // The instances the tree does not hold (all of them before it is built), in one tight loop.
  const m = group.attribute.array as Float32Array;
  const ids = group.ids;
  const b = group.asset.box;
  const cx = (b[0]! + b[3]!) / 2,
    cy = (b[1]! + b[4]!) / 2,
    cz = (b[2]! + b[5]!) / 2;
  const hx = (b[3]! - b[0]!) / 2,
    hy = (b[4]! - b[1]!) / 2,
    hz = (b[5]! - b[2]!) / 2;
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let slot = from, o = from * 16; slot < group.count; slot++, o += 16) {
    if (ids[slot] === REMOVED) continue;
    const m0 = m[o]!,
      m1 = m[o + 1]!,
      m2 = m[o + 2]!,
      m4 = m[o + 4]!,
      m5 = m[o + 5]!,
      m6 = m[o + 6]!,
      m8 = m[o + 8]!,
      m9 = m[o + 9]!,
      m10 = m[o + 10]!;
    const wx = m0 * cx + m4 * cy + m8 * cz + m[o + 12]!;
    const wy = m1 * cx + m5 * cy + m9 * cz + m[o + 13]!;
    const wz = m2 * cx + m6 * cy + m10 * cz + m[o + 14]!;
    const ex = Math.abs(m0) * hx + Math.abs(m4) * hy + Math.abs(m8) * hz;
    const ey = Math.abs(m1) * hx + Math.abs(m5) * hy + Math.abs(m9) * hz;
    const ez = Math.abs(m2) * hx + Math.abs(m6) * hy + Math.abs(m10) * hz;
    if (wx - ex < minX) minX = wx - ex;
    if (wy - ey < minY) minY = wy - ey;
    if (wz - ez < minZ) minZ = wz - ez;
    if (wx + ex > maxX) maxX = wx + ex;
    if (wy + ey > maxY) maxY = wy + ey;
    if (wz + ez > maxZ) maxZ = wz + ez;
  }
  if (minX <= maxX) {
    box3.min.set(minX, minY, minZ);
    box3.max.set(maxX, maxY, maxZ);
    group.localBox.union(box3);
  }
}

export function growLocalBox(group: InstanceGroupRecord, slot: number): void {
  group.bvh.instanceBox(group.attribute.array as Float32Array, slot, scratchBox);
  box3.min.set(scratchBox[0]!, scratchBox[1]!, scratchBox[2]!);
  box3.max.set(scratchBox[3]!, scratchBox[4]!, scratchBox[5]!);
  if (group.localBox.containsBox(box3)) return;
  group.localBox.union(box3);
  updateMeshBounds(group);
}

/** The meshes' bounds (three's frustum culling and fitting read them) from the group's box: never a walk over the instances. */
export function updateMeshBounds(group: InstanceGroupRecord): void {
  for (const mesh of [...group.meshes, ...group.levelMeshes]) {
    if (group.localBox.isEmpty()) {
      mesh.boundingBox!.makeEmpty();
      mesh.boundingSphere!.makeEmpty();
    } else {
      mesh.boundingBox!.copy(group.localBox);
      group.localBox.getBoundingSphere(mesh.boundingSphere!);
    }
  }
}
