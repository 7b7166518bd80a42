import { addComponent, hasComponent, query, removeEntity } from 'bitecs';
import { Transform } from '../../components';
import { addViewerEntity, type ViewerWorld } from './world';
import { unbatchEntity } from './model-batches';

/** Adds Transform to an entity with the given local transform; writes every field (ids are reused). */
export function addTransform(
  world: ViewerWorld,
  eid: number,
  parent: number,
  position: ArrayLike<number> = ZERO3,
  rotation: ArrayLike<number> = IDENTITY_QUAT,
  scale: ArrayLike<number> = ONE3,
): void {
  addComponent(world, eid, Transform);
  Transform.position.set(position as ArrayLike<number>, eid * 3);
  Transform.rotation.set(rotation as ArrayLike<number>, eid * 4);
  Transform.scale.set(scale as ArrayLike<number>, eid * 3);
  Transform.world.set(IDENTITY16, eid * 16);
  Transform.parent[eid] = parent;
  Transform.depth[eid] = 0;
  Transform.worldChanged[eid] = 0;
  markTransformDirty(world, eid);
  world.transform.version++;
}

/** A new entity with a Transform under `parent` (0 for a root). */
export function spawnTransformEntity(world: ViewerWorld, parent = 0): number {
  const eid = addViewerEntity(world);
  addTransform(world, eid, parent);
  return eid;
}

/** Moves an entity under another parent (0 for the root); its local transform is kept. */
export function setParent(world: ViewerWorld, eid: number, parent: number): void {
  if (!hasComponent(world, eid, Transform)) throw new Error(`Entity ${eid} has no Transform.`);
  // A parent must be a live Transform entity: anything else has a stale parent field and world matrix.
  if (parent !== 0 && !hasComponent(world, parent, Transform)) throw new Error(`Entity ${parent} has no Transform.`);
  for (let p = parent; p !== 0; p = Transform.parent[p]) {
    if (p === eid) throw new Error(`Entity ${parent} is a descendant of ${eid}; it cannot become its parent.`);
  }
  Transform.parent[eid] = parent;
  markTransformDirty(world, eid);
  world.transform.version++;
}

/** Flags a changed local transform for the transform system. */
export function markTransformDirty(world: ViewerWorld, eid: number): void {
  Transform.dirty[eid] = 1;
  world.transform.anyDirty = true;
}

/** Writes a local position and flags it. */
export function setPosition(world: ViewerWorld, eid: number, x: number, y: number, z: number): void {
  const i = eid * 3;
  Transform.position[i] = x;
  Transform.position[i + 1] = y;
  Transform.position[i + 2] = z;
  markTransformDirty(world, eid);
}

/** Removes an entity that has a Transform; call after its children are gone or reparented. */
export function removeTransformEntity(world: ViewerWorld, eid: number): void {
  // Its batch instance goes with it (the id is used again).
  unbatchEntity(world, eid);
  Transform.parent[eid] = 0;
  Transform.dirty[eid] = 0;
  Transform.worldChanged[eid] = 0;
  removeEntity(world, eid);
  world.transform.version++;
}

/**
 * Rebuilds world.transform.order: every Transform entity, sorted by depth so that parents come
 * before their children (a counting sort; O(n)). Runs only after the hierarchy changed.
 */
export function rebuildTransformOrder(world: ViewerWorld): void {
  const entities = query(world, [Transform]);
  const n = entities.length;
  const t = world.transform;
  if (t.order.length < n) t.order = new Uint32Array(Math.max(n, t.order.length * 2));
  // Depths, parents first: walk up until an entity whose depth was computed in this pass.
  const stamp = (depthStamp = (depthStamp + 1) & 0x7fffffff) || (depthStamp = 1);
  if (stamps.length < Transform.parent.length) stamps = new Int32Array(Transform.parent.length);
  let maxDepth = 0;
  for (let i = 0; i < n; i++) {
    const d = depthOf(entities[i], stamp);
    if (d > maxDepth) maxDepth = d;
  }
  const counts = new Uint32Array(maxDepth + 2);
  for (let i = 0; i < n; i++) counts[Transform.depth[entities[i]] + 1]++;
  for (let d = 1; d < counts.length; d++) counts[d] += counts[d - 1];
  for (let i = 0; i < n; i++) {
    const e = entities[i];
    t.order[counts[Transform.depth[e]]++] = e;
  }
  t.count = n;
  t.builtVersion = t.version;
}

let depthStamp = 0;
let stamps = new Int32Array(0);

/**
 * Depth of an entity, computed iteratively (no recursion: a long chain must not overflow the
 * stack): walk up to a root or to an ancestor already done in this pass, then come back down.
 */
function depthOf(eid: number, stamp: number): number {
  let top = eid;
  let steps = 0;
  while (stamps[top] !== stamp && Transform.parent[top] !== 0) {
    top = Transform.parent[top];
    steps++;
  }
  let depth = stamps[top] === stamp ? Transform.depth[top] : 0;
  if (stamps[top] !== stamp) {
    Transform.depth[top] = 0;
    stamps[top] = stamp;
  }
  // Assign depths from the top down: the entity `steps` levels below `top` has depth + steps.
  for (let e = eid, d = depth + steps; e !== top; e = Transform.parent[e], d--) {
    Transform.depth[e] = Math.min(d, 0xffff);
    stamps[e] = stamp;
  }
  depth += steps;
  return Math.min(depth, 0xffff);
}

const ZERO3 = [0, 0, 0];
const ONE3 = [1, 1, 1];
const IDENTITY_QUAT = [0, 0, 0, 1];
const IDENTITY16 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
