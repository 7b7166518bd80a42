import { addComponent, hasComponent, removeComponent } from 'bitecs';
import {
  Box3,
  DynamicDrawUsage,
  InstancedBufferAttribute,
  InstancedMesh,
  Matrix4,
  Sphere,
  type BufferGeometry,
  type Material,
  type Object3D,
} from 'three';
import { InstanceGroup } from '../../components';
import { noInstanceError, unpackMatrices } from '../protocol/instances';
import { growLocalBox, recomputeLocalBox, updateMeshBounds } from './instance-bounds';
import { InstanceBVH } from './instance-bvh';
import { createGroupCulling, cullingBytes, cullingChanged, cullingResized, cullMesh, disposeGroupCulling, instanceCapacity, instanceMoved, matricesChanged, SLOTS_PER_ROW, type GroupCulling } from './instance-culling';
import { addLevelMeshes, assetLevelsOf } from './instance-level-meshes';
import { InstanceIndex } from './instance-index';
import type { ViewerWorld } from './world';

/**
 * Instanced asset groups in the engine (editor specification section 3; DESIGN.md 2): a group is
 * the entity of its scene object (component InstanceGroup); its instances are slots of typed
 * arrays, never entities or Object3Ds of their own:
 *
 *   ids       Uint32Array  slot -> stable instance id (REMOVED_ID for a removed, not yet compacted slot)
 *   index     InstanceIndex  id -> slot (open addressing, src/engine/instance-index.ts)
 *   matrices  Float32Array 16 floats a slot, group-local: the array of one InstancedBufferAttribute
 *             shared by every mesh of the group (one GPU buffer)
 *   bvh       InstanceBVH  the instances' bounds, for picking (src/engine/instance-bvh.ts); built
 *             lazily (idle time after the first picture, or the first pick that reaches the group)
 *
 * Drawing: one InstancedMesh per asset primitive (x material, a multi-material primitive draws
 * once per material), children of the group's Object3D, so the group's transform (written by the
 * ECS) carries all its instances. A changed matrix uploads only its range (addUpdateRange). Each
 * pass draws only the instances inside its frustum (src/engine/instance-culling.ts): the functions
 * here tell culling what changed.
 *
 * Removal marks a slot (its matrix becomes zero: nothing is drawn, the pick skips it) and counts
 * it in InstanceGroup.removed; the instance compaction system (systems/instanceCompactionSystem.ts)
 * packs the group's slots once INSTANCE_COMPACTION_THRESHOLD removals are marked, moving the last
 * instances into the holes: slots change, ids never do.
 *
 * The editor reads and writes instances through the functions here, by id; every unknown id throws
 * the specification's 'No instance found with id N'.
 */

/** Marks a removed slot in `ids`; never a valid instance id (ids are below 2^32 - 1). */
export const REMOVED_ID = 0xffffffff;

/** One drawable part of an asset: its geometry (in the asset's root space) and material(s). */
export interface InstanceAssetPart {
  name: string;
  geometry: BufferGeometry;
  material: Material | Material[];
}

/** A simplified level of an asset (src/protocol/asset-levels.ts): its parts, and its error in the asset's units. */
export interface InstanceAssetLevel {
  parts: InstanceAssetPart[];
  error: number;
}

/** An asset's impostor: a unit quad with the atlas's material, and the sphere every tile shows. */
export interface InstanceImpostor {
  geometry: BufferGeometry;
  material: Material;
  center: [number, number, number];
  radius: number;
  columns: number;
  /** Degrees, the atlas's rows top first. */
  elevations: number[];
}

/** An asset as instanced groups draw it: shared by every group of that asset. */
export interface InstanceAsset {
  assetId: string;
  /** Full detail: what picking, snapping, measuring and the editor use. */
  parts: InstanceAssetPart[];
  /** Simplified levels, coarser each (none: []), drawn where instances are small on the screen. */
  levels?: InstanceAssetLevel[];
  /** The impostor for the smallest (none: null). */
  impostor?: InstanceImpostor | null;
  /** The union of the parts' boxes in the asset's root space: min xyz, max xyz. */
  box: Float32Array;
  /** True for the red placeholder cube that stands in for an asset that could not be loaded. */
  placeholder: boolean;
}

export interface InstanceGroupRecord {
  eid: number;
  /** The group's scene object uuid. */
  uuid: string;
  asset: InstanceAsset;
  /** The group's Object3D (the scene object's); the meshes are its children. */
  object: Object3D;
  /** Slots in use, removed ones included (the meshes' count). */
  count: number;
  /** Live instances. */
  live: number;
  ids: Uint32Array;
  index: InstanceIndex;
  attribute: InstancedBufferAttribute;
  /** Full detail: one mesh a part (picking casts against these). */
  meshes: InstancedMesh[];
  /** The simplified levels' and the impostor's meshes (userData.instanceLevel), drawn through culling only. */
  levelMeshes: InstancedMesh[];
  bvh: InstanceBVH;
  /** Slots marked removed since the last compaction. */
  holes: Uint32Array;
  /** The group's next free id (ids are never reused: it only grows). */
  nextId: number;
  /** The server's revision of the group's instance set, as loaded (the editor keeps it current). */
  revision: number;
  /** Group-local box that holds every instance (grown by edits, recomputed at rebuilds). */
  readonly localBox: Box3;
  /** The slot range the dirty ranges of `attribute` cover, for collapsing many ranges into one. */
  dirtyMin: number;
  dirtyMax: number;
  /** Per-pass culling's state (null without a renderer: the meshes then draw every slot). */
  culling: GroupCulling | null;
}

/**
 * A group's instances in the form the group keeps them (the matrix buffer with room to grow, the
 * ids, the id index), made by prepareInstances before the group itself: the load makes it as each
 * instance set arrives, while the others still download, so that making the groups after the last
 * one is only attaching. A group made from it takes its arrays over (one group per preparation).
 */
export interface PreparedInstances {
  readonly count: number;
  /** capacity x 16 floats, the first count x 16 filled. */
  readonly matrices: Float32Array;
  /** capacity ids, the first count filled. */
  readonly ids: Uint32Array;
  readonly index: InstanceIndex;
  readonly nextId: number;
}

/**
 * The instances of group `uuid` as a group keeps them (see PreparedInstances). `matrices` are 16
 * floats per instance or the set's packed 12; ids must be unique ('Instance id … appears twice').
 */
export function prepareInstances(uuid: string, ids: ArrayLike<number>, matrices: ArrayLike<number>, nextId = 0): PreparedInstances {
  const n = ids.length;
  const packed = matrices.length === n * 12 && n > 0;
  if (!packed && matrices.length !== n * 16) throw new Error(`An instanced asset group of ${n} instances needs ${n * 16} matrix values (or ${n * 12} packed), not ${matrices.length}.`);
  const capacity = instanceCapacity(n);
  const array = new Float32Array(capacity * 16);
  if (packed) unpackMatrices(matrices, array, n);
  else array.set(matrices);
  const own = new Uint32Array(capacity);
  own.set(ids);
  const index = new InstanceIndex(n);
  let next = nextId;
  for (let slot = 0; slot < n; slot++) {
    const id = own[slot]!;
    if (index.get(id) >= 0) throw new Error(`Instance id ${id} appears twice in group ${uuid}.`);
    index.set(id, slot);
    if (id >= next) next = id + 1;
  }
  return { count: n, matrices: array, ids: own, index, nextId: next };
}

export interface InstanceGroupOptionsBase {
  uuid: string;
  asset: InstanceAsset;
  revision?: number;
  castShadow?: boolean;
  receiveShadow?: boolean;
}

/** A group's instances as arrays (copied into the group). */
export interface InstanceArrays {
  /** Instance ids in slot order. */
  ids: Uint32Array;
  /**
   * Group-local matrices in the order of ids: 16 floats per instance (three.js order), or 12 (the
   * instance set's packed form: three columns and the translation, src/protocol/instances.ts),
   * copied straight into the group's buffer.
   */
  matrices: Float32Array;
  nextId?: number;
  prepared?: undefined;
}

/** A group's instances given as arrays (copied), or already prepared (prepareInstances; taken over). */
export type CreateInstanceGroupOptions = InstanceGroupOptionsBase & (InstanceArrays | { prepared: PreparedInstances });

/** Ranges of a group's matrix buffer uploaded one by one; past this many, one range covers them. */
const MAX_UPDATE_RANGES = 32;

// Scratch.
const scratchBox = new Float32Array(6);

/**
 * Makes entity `eid` (a scene object's entity, bound to its Object3D) an instanced asset group with
 * these instances. The ids must be unique; the meshes are added under the entity's object.
 */
export function createInstanceGroup(world: ViewerWorld, eid: number, options: CreateInstanceGroupOptions): InstanceGroupRecord {
  const object = world.objects[eid];
  if (!object) throw new Error(`Entity ${eid} has no object to hold an instanced asset group.`);
  const { count: n, matrices: array, ids, index, nextId } = options.prepared ?? prepareInstances(options.uuid, options.ids, options.matrices, options.nextId);
  if (world.instanceGroups.has(eid)) disposeInstanceGroup(world, eid);
  const attribute = new InstancedBufferAttribute(array, 16);
  attribute.setUsage(DynamicDrawUsage);
  // The bounds index is built when first needed (a pick, or idle time after the first frame:
  // buildPendingBounds), never before the first picture: stale until then.
  const bvh = new InstanceBVH(options.asset.box);
  bvh.matrices = array;
  const group: InstanceGroupRecord = {
    eid,
    uuid: options.uuid,
    asset: options.asset,
    object,
    count: n,
    live: n,
    ids,
    index,
    attribute,
    meshes: [],
    levelMeshes: [],
    bvh,
    holes: new Uint32Array(64),
    nextId,
    revision: options.revision ?? 0,
    localBox: new Box3(),
    dirtyMin: Infinity,
    dirtyMax: -1,
    culling: null,
  };
  recomputeLocalBox(group);
  const makeMesh = (part: InstanceAssetPart, level: number): InstancedMesh => {
    // Made with no instances of its own (three would fill an identity per slot), then given the group's buffer.
    const mesh = new InstancedMesh(part.geometry, part.material, 0);
    mesh.instanceMatrix = attribute;
    mesh.count = n;
    mesh.name = part.name;
    mesh.castShadow = options.castShadow ?? true;
    mesh.receiveShadow = options.receiveShadow ?? true;
    mesh.userData.instanceGroup = eid;
    mesh.boundingBox = new Box3();
    mesh.boundingSphere = new Sphere();
    object.add(mesh);
    if (level > 0) {
      mesh.userData.instanceLevel = level;
      // Only the full-detail meshes are picked (a ray finds the instance there).
      mesh.raycast = () => undefined;
    }
    return mesh;
  };
  for (const part of options.asset.parts) group.meshes.push(makeMesh(part, 0));
  const levels = assetLevelsOf(options.asset);
  group.culling = createGroupCulling(world.render.renderer, group, array, levels);
  for (const mesh of group.meshes) cullMesh(world, group, mesh, 0);
  if (group.culling?.levels) addLevelMeshes(world, group, options.asset, makeMesh);
  updateMeshBounds(group);
  addComponent(world, eid, InstanceGroup);
  InstanceGroup.removed[eid] = 0;
  InstanceGroup.count[eid] = n;
  world.instanceGroups.set(eid, group);
  world.render.needsRender = true;
  return group;
}

/** Takes the group's meshes away (its asset's geometries and materials stay: other groups share them). */
export function disposeInstanceGroup(world: ViewerWorld, eid: number): void {
  const group = world.instanceGroups.get(eid);
  if (!group) return;
  for (const mesh of [...group.meshes, ...group.levelMeshes]) {
    mesh.removeFromParent();
    mesh.dispose();
  }
  group.meshes.length = 0;
  group.levelMeshes.length = 0;
  disposeGroupCulling(group);
  world.instanceGroups.delete(eid);
  if (hasComponent(world, eid, InstanceGroup)) removeComponent(world, eid, InstanceGroup);
  world.render.needsRender = true;
}

/** The instanced asset group of entity `eid`, or null. */
export function instanceGroupOf(world: ViewerWorld, eid: number): InstanceGroupRecord | null {
  return world.instanceGroups.get(eid) ?? null;
}

/** The instanced asset group whose scene object has this uuid, or null. */
export function instanceGroupByUuid(world: ViewerWorld, uuid: string): InstanceGroupRecord | null {
  for (const group of world.instanceGroups.values()) if (group.uuid === uuid) return group;
  return null;
}

/** The group of an InstancedMesh drawn by an instanced asset group, or null. */
export function instanceGroupOfMesh(world: ViewerWorld, object: Object3D): InstanceGroupRecord | null {
  const eid = object.userData.instanceGroup;
  return typeof eid === 'number' ? (world.instanceGroups.get(eid) ?? null) : null;
}

/** The slot of instance `id`, or -1. */
export function instanceSlot(group: InstanceGroupRecord, id: number): number {
  return group.index.get(id);
}

export function hasInstance(group: InstanceGroupRecord, id: number): boolean {
  return group.index.get(id) >= 0;
}

/** The slot of `id`, or throws 'No instance found with id N'. */
function requireSlot(group: InstanceGroupRecord, id: number): number {
  const slot = Number.isInteger(id) ? group.index.get(id) : -1;
  if (slot < 0) throw noInstanceError(id);
  return slot;
}

/** The group-local matrix of instance `id` into `out` (three.js order). */
export function getInstanceMatrix(group: InstanceGroupRecord, id: number, out: Matrix4): Matrix4 {
  const slot = requireSlot(group, id);
  return out.fromArray(group.attribute.array as Float32Array, slot * 16);
}

/** The world matrix of instance `id` (the group's world matrix times the instance's) into `out`. */
export function getInstanceWorldMatrix(group: InstanceGroupRecord, id: number, out: Matrix4): Matrix4 {
  getInstanceMatrix(group, id, out);
  return out.premultiply(group.object.matrixWorld);
}

/**
 * Sets the group-local matrix of instance `id`: uploads only its range, refits its bounds, asks
 * for a picture. `matrix` is a Matrix4 or 16 numbers in three.js order.
 */
export function setInstanceMatrix(world: ViewerWorld, group: InstanceGroupRecord, id: number, matrix: Matrix4 | ArrayLike<number>): void {
  const slot = requireSlot(group, id);
  writeSlot(group, slot, 'elements' in matrix ? matrix.elements : matrix, 0);
  group.bvh.moved(group.attribute.array as Float32Array, slot);
  instanceMoved(group, slot);
  growLocalBox(group, slot);
  markSlots(group, slot, 1);
  world.render.needsRender = true;
}

/** Sets the matrices of many instances (16 numbers per id, in the order of ids); all ids are checked first. */
export function setInstanceMatrices(world: ViewerWorld, group: InstanceGroupRecord, ids: ArrayLike<number>, matrices: ArrayLike<number>): void {
  checkMatrices(ids, matrices);
  for (let i = 0; i < ids.length; i++) requireSlot(group, ids[i]!);
  const array = group.attribute.array as Float32Array;
  for (let i = 0; i < ids.length; i++) {
    const slot = group.index.get(ids[i]!);
    writeSlot(group, slot, matrices, i * 16);
    group.bvh.moved(array, slot);
    instanceMoved(group, slot);
    growLocalBox(group, slot);
    markSlots(group, slot, 1);
  }
  world.render.needsRender = true;
}

/**
 * Adds instances with these ids (16 numbers per id in `matrices`). An id the group holds throws
 * 'Instance id N already exists in group G'; nothing is added then. The group's nextId grows past
 * the new ids.
 */
export function addInstances(world: ViewerWorld, group: InstanceGroupRecord, ids: ArrayLike<number>, matrices: ArrayLike<number>): void {
  checkMatrices(ids, matrices);
  const seen = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (!Number.isInteger(id) || id < 0 || id >= REMOVED_ID) throw new Error(`Instance ids are whole numbers from 0 to ${REMOVED_ID - 1} (got ${id}).`);
    if (group.index.get(id) >= 0 || seen.has(id)) throw new Error(`Instance id ${id} already exists in group ${group.uuid}`);
    seen.add(id);
  }
  ensureCapacity(group, group.count + ids.length);
  const first = group.count;
  for (let i = 0; i < ids.length; i++) {
    const slot = group.count++;
    const id = ids[i]!;
    group.ids[slot] = id;
    group.index.set(id, slot);
    writeSlot(group, slot, matrices, i * 16);
    growLocalBox(group, slot);
    if (id >= group.nextId) group.nextId = id + 1;
  }
  group.live += ids.length;
  // A tree that exists and would test too many pending instances is rebuilt; one never built waits.
  if (!group.bvh.stale && group.bvh.needsRebuild(group.count)) rebuildBounds(group);
  for (const mesh of group.meshes) mesh.count = group.count;
  for (const mesh of group.levelMeshes) mesh.count = group.count;
  markSlots(group, first, ids.length);
  cullingChanged(group);
  updateMeshBounds(group);
  InstanceGroup.count[group.eid] = group.live;
  world.render.needsRender = true;
}

/**
 * Removes instances by id: each slot is marked (zero matrix: not drawn, not picked) and counted for
 * the compaction system. An unknown id throws 'No instance found with id N' and removes nothing.
 */
export function removeInstances(world: ViewerWorld, group: InstanceGroupRecord, ids: ArrayLike<number>): void {
  for (let i = 0; i < ids.length; i++) requireSlot(group, ids[i]!);
  const seen = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const slot = group.index.delete(id);
    group.ids[slot] = REMOVED_ID;
    (group.attribute.array as Float32Array).fill(0, slot * 16, slot * 16 + 16);
    const removed = InstanceGroup.removed[group.eid]!;
    if (removed === group.holes.length) {
      const grown = new Uint32Array(group.holes.length * 2);
      grown.set(group.holes);
      group.holes = grown;
    }
    group.holes[removed] = slot;
    InstanceGroup.removed[group.eid] = removed + 1;
    markSlots(group, slot, 1);
  }
  group.live -= seen.size;
  InstanceGroup.count[group.eid] = group.live;
  world.render.needsRender = true;
}

/** Calls `fn` with each live instance's id and slot, in slot order. */
export function forEachInstance(group: InstanceGroupRecord, fn: (id: number, slot: number) => void): void {
  const ids = group.ids;
  for (let slot = 0; slot < group.count; slot++) if (ids[slot] !== REMOVED_ID) fn(ids[slot]!, slot);
}

/** The live instances' ids, in slot order. */
export function instanceIds(group: InstanceGroupRecord): Uint32Array {
  const out = new Uint32Array(group.live);
  let k = 0;
  forEachInstance(group, (id) => (out[k++] = id));
  return out;
}

/** The world-space box of instance `id` (the asset's box carried by the instance's and the group's matrices) into `out`. */
export function getInstanceBounds(group: InstanceGroupRecord, id: number, out: Box3): Box3 {
  const slot = requireSlot(group, id);
  group.bvh.instanceBox(group.attribute.array as Float32Array, slot, scratchBox);
  out.min.set(scratchBox[0]!, scratchBox[1]!, scratchBox[2]!);
  out.max.set(scratchBox[3]!, scratchBox[4]!, scratchBox[5]!);
  return out.applyMatrix4(group.object.matrixWorld);
}

/**
 * Packs the group's slots: the last live instances move into the marked holes (ids and matrices
 * with them; the id index and the bounds follow), the meshes draw fewer slots. O(removed).
 * Returns the number of slots freed.
 */
export function compactInstanceGroup(world: ViewerWorld, group: InstanceGroupRecord): number {
  const marked = InstanceGroup.removed[group.eid]!;
  if (marked === 0) return 0;
  const holes = group.holes.subarray(0, marked).sort();
  const ids = group.ids;
  const array = group.attribute.array as Float32Array;
  const before = group.count;
  let end = before;
  let moved = 0;
  let lowest = before;
  for (let h = 0; h < holes.length; h++) {
    const hole = holes[h]!;
    while (end > 0 && ids[end - 1] === REMOVED_ID) end--;
    if (hole >= end) break;
    const from = end - 1;
    const id = ids[from]!;
    ids[hole] = id;
    ids[from] = REMOVED_ID;
    array.copyWithin(hole * 16, from * 16, from * 16 + 16);
    group.index.set(id, hole);
    group.bvh.relocated(array, from, hole);
    if (hole < lowest) lowest = hole;
    end--;
    moved++;
  }
  while (end > 0 && ids[end - 1] === REMOVED_ID) end--;
  group.count = end;
  group.bvh.truncated(end);
  for (const mesh of group.meshes) mesh.count = end;
  for (const mesh of group.levelMeshes) mesh.count = end;
  if (moved > 0) markSlots(group, lowest, end - lowest);
  cullingChanged(group);
  InstanceGroup.removed[group.eid] = 0;
  world.render.needsRender = true;
  return before - end;
}

/** Rebuilds the group's bounds index (after many adds; the picker asks when it finds it stale). */
export function rebuildBounds(group: InstanceGroupRecord): void {
  const ids = group.ids;
  group.bvh.build(group.attribute.array as Float32Array, group.count, (slot) => ids[slot] !== REMOVED_ID);
  recomputeLocalBox(group);
  updateMeshBounds(group);
}

/** Whether the group's bounds index must be (re)built before a query. */
export function boundsPending(group: InstanceGroupRecord): boolean {
  return group.bvh.needsRebuild(group.count);
}

/**
 * Builds the bounds index of every group that needs one, one group per task, in idle time (after
 * the first picture: the load calls this); a pick before then builds the group it reaches on
 * demand. Resolves when done; stops when `signal` aborts.
 */
export async function buildPendingBounds(world: ViewerWorld, signal?: AbortSignal): Promise<void> {
  for (const group of [...world.instanceGroups.values()]) {
    await idle();
    if (signal?.aborted) return;
    if (world.instanceGroups.get(group.eid) !== group || !boundsPending(group)) continue;
    rebuildBounds(group);
  }
}

function idle(): Promise<void> {
  const ric = (globalThis as { requestIdleCallback?: (fn: () => void, options?: { timeout: number }) => number }).requestIdleCallback;
  return new Promise((resolve) => (ric ? ric(() => resolve(), { timeout: 1000 }) : setTimeout(resolve, 0)));
}

/** Approximate bytes the group keeps per instance on the JS side (ids, index, matrices, bounds index). */
export function instanceGroupBytes(group: InstanceGroupRecord): number {
  return group.ids.byteLength + group.index.byteLength + group.attribute.array.byteLength + group.bvh.byteLength + group.holes.byteLength + cullingBytes(group);
}

// ---------------------------------------------------------------------------------------------

function checkMatrices(ids: ArrayLike<number>, matrices: ArrayLike<number>): void {
  if (matrices.length !== ids.length * 16) throw new Error(`${ids.length} instances need ${ids.length * 16} matrix values (16 each), not ${matrices.length}.`);
  for (let i = 0; i < matrices.length; i++) if (!Number.isFinite(matrices[i]!)) throw new Error('Instance matrices must hold finite numbers.');
}

function writeSlot(group: InstanceGroupRecord, slot: number, source: ArrayLike<number>, offset: number): void {
  const array = group.attribute.array as Float32Array;
  const o = slot * 16;
  for (let k = 0; k < 16; k++) {
    const v = source[offset + k]!;
    if (!Number.isFinite(v)) throw new Error('Instance matrices must hold finite numbers.');
    array[o + k] = v;
  }
}

/** Grows the slot arrays (and the shared GPU buffer) to hold at least `n` slots. */
function ensureCapacity(group: InstanceGroupRecord, n: number): void {
  if (n <= group.ids.length) return;
  const capacity = Math.ceil(Math.max(n, group.ids.length * 2) / SLOTS_PER_ROW) * SLOTS_PER_ROW;
  const ids = new Uint32Array(capacity);
  ids.set(group.ids.subarray(0, group.count));
  group.ids = ids;
  const array = new Float32Array(capacity * 16);
  array.set((group.attribute.array as Float32Array).subarray(0, group.count * 16));
  const attribute = new InstancedBufferAttribute(array, 16);
  attribute.setUsage(DynamicDrawUsage);
  group.attribute = attribute;
  group.bvh.matrices = array;
  group.dirtyMin = Infinity;
  group.dirtyMax = -1;
  for (const mesh of group.meshes) mesh.instanceMatrix = attribute;
  for (const mesh of group.levelMeshes) mesh.instanceMatrix = attribute;
  cullingResized(group, array);
}

/**
 * Queues the upload of slots [first, first + count). Many scattered ranges become one covering
 * range (one bufferSubData instead of hundreds).
 */
function markSlots(group: InstanceGroupRecord, first: number, count: number): void {
  if (count <= 0) return;
  matricesChanged(group, first, count);
  const attribute = group.attribute;
  const ranges = attribute.updateRanges;
  if (ranges.length === 0) {
    group.dirtyMin = Infinity;
    group.dirtyMax = -1;
  }
  if (first < group.dirtyMin) group.dirtyMin = first;
  if (first + count > group.dirtyMax) group.dirtyMax = first + count;
  if (ranges.length >= MAX_UPDATE_RANGES) {
    attribute.clearUpdateRanges();
    attribute.addUpdateRange(group.dirtyMin * 16, (group.dirtyMax - group.dirtyMin) * 16);
  } else {
    attribute.addUpdateRange(first * 16, count * 16);
  }
  attribute.needsUpdate = true;
}
