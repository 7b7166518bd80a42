import { Matrix4 } from 'three';
import type { InstanceRayVisitor } from '../../engine/instance-bvh';
import { rebuildBounds, REMOVED_ID, type InstanceGroupRecord } from '../../engine/instances';
import { HELPER_LAYER } from '../../engine/layers';
import { castInstance, type RaycastContext } from './raycast';

/**
 * Picking instanced asset groups: the pick ray in each drawn group's local space walks the group's
 * bounds index (src/engine/instance-bvh.ts) near-first; only the instances whose boxes the ray
 * reaches before the nearest hit so far are cast precisely (their asset parts' triangle trees, in
 * the instance's matrix). The hit carries the instance's stable id. One instance among a million
 * costs a few dozen box tests and one or two triangle casts, not a walk over the instances.
 */

// Scratch: a pick allocates nothing here.
const inverse = new Matrix4();
const instanceWorld = new Matrix4();
const instanceLocal = new Matrix4();
const result = { distance: 0 };

/** The group being cast and the pick's context, read by the visitor. */
const current = { ctx: null as RaycastContext | null, group: null as InstanceGroupRecord | null };

const visitor: InstanceRayVisitor = {
  live: (slot) => current.group!.ids[slot] !== REMOVED_ID,
  test(slot) {
    const ctx = current.ctx!;
    const group = current.group!;
    instanceLocal.fromArray(group.attribute.array as Float32Array, slot * 16);
    instanceWorld.multiplyMatrices(group.object.matrixWorld, instanceLocal);
    return castInstance(ctx, group.meshes, instanceWorld, group.ids[slot]!) ? ctx.state.best.distance : Infinity;
  },
};

/** Casts the pick ray against every drawn instanced asset group; the nearest hit stays in `state.best`. */
export function castInstanceGroups(ctx: RaycastContext): void {
  const groups = ctx.world.instanceGroups;
  if (groups.size === 0) return;
  groups.forEach(castGroupOf, ctx);
}

function castGroupOf(this: RaycastContext, group: InstanceGroupRecord): void {
  castGroup(this, group);
}

/** Casts against one group through its bounds index. */
export function castGroup(ctx: RaycastContext, group: InstanceGroupRecord): void {
  if (group.live === 0 || group.meshes.length === 0 || !drawn(group)) return;
  if (group.bvh.needsRebuild(group.count)) rebuildBounds(group);
  const { ray } = ctx.state;
  // The ray in the group's space, its direction not renormalised: distances along it stay world distances.
  inverse.copy(group.object.matrixWorld).invert();
  const e = inverse.elements;
  const { x: px, y: py, z: pz } = ray.origin;
  const { x: vx, y: vy, z: vz } = ray.direction;
  const ox = e[0] * px + e[4] * py + e[8] * pz + e[12];
  const oy = e[1] * px + e[5] * py + e[9] * pz + e[13];
  const oz = e[2] * px + e[6] * py + e[10] * pz + e[14];
  const dx = e[0] * vx + e[4] * vy + e[8] * vz;
  const dy = e[1] * vx + e[5] * vy + e[9] * vz;
  const dz = e[2] * vx + e[6] * vy + e[10] * vz;
  current.ctx = ctx;
  current.group = group;
  try {
    group.bvh.matrices = group.attribute.array as Float32Array;
    group.bvh.raycast(ox, oy, oz, dx, dy, dz, Math.min(ctx.state.far, ctx.state.best.distance), group.count, visitor, result);
  } finally {
    current.ctx = null;
    current.group = null;
  }
}

/** Whether the group is drawn: it and its ancestors visible, none of them a helper, in a scene. */
function drawn(group: InstanceGroupRecord): boolean {
  for (let o: typeof group.object | null = group.object; o; o = o.parent) {
    if (!o.visible || o.layers.isEnabled(HELPER_LAYER)) return false;
    if (o.parent === null) return (o as { isScene?: boolean }).isScene === true;
  }
  return false;
}
