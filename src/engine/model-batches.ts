import { BatchedMesh, type BufferAttribute, type BufferGeometry, type Material, type Mesh, type Object3D, type SkinnedMesh } from 'three';
import { MAX_ENTITIES, ModelMember } from '../../components';
import { BATCHED_LAYER, SCENE_LAYER } from './layers';
import type { ModelRecord, ViewerWorld } from './world';

/**
 * Models of many parts draw with calls bounded by their materials: a model's static meshes that
 * share a material (and a vertex layout and shadow flags) are drawn by one BatchedMesh, one
 * instance per mesh. The meshes themselves stay what every other part of the viewer works on (the
 * entities, picking and snapping, the outline, section caps, the gizmo, saved edits): they only
 * move to BATCHED_LAYER, which cameras do not draw. The batch follows them in the sync step: world
 * matrices as the transform system changes them, visibility (a mesh's own and its ancestors') as
 * flags change. A mesh that stops fitting its batch (another material, other shadow flags, removed)
 * leaves it for good and is drawn as itself again.
 *
 * Not batched: skinned and morphing meshes, the subtrees of animated nodes (they move every frame,
 * with shadows of their own: src/engine/moving-casters.ts), instanced meshes, meshes of several
 * materials, lines and points, and groups smaller than BATCH_MIN_MESHES (a batch of a few meshes
 * saves no calls worth its copy of their vertices).
 */

/** The fewest meshes of one material (in one model) that get a batch. */
export const BATCH_MIN_MESHES = 16;

export interface ModelBatch {
  mesh: BatchedMesh;
  modelEid: number;
  material: Material;
  /** The batched meshes by instance id (null once one has left the batch). */
  members: (Mesh | null)[];
  /** Their entities by instance id. */
  eids: Int32Array;
  /** Instances still in the batch. */
  live: number;
}

export interface ModelBatches {
  /** Build the batches of these models at the next sync (their matrices are current then). */
  due: Set<number>;
  /** Batches by model entity. */
  byModel: Map<number, ModelBatch[]>;
  /** Per entity: its batch's index in `list` + 1 (0: not batched) and its instance id. Made with the first batch. */
  batchOf: Uint16Array | null;
  instanceOf: Int32Array | null;
  list: (ModelBatch | null)[];
  /** false: models are drawn mesh by mesh (for comparing pictures and the benchmark). */
  enabled: boolean;
  /** Batched models with flagged entities this frame (noteFlaggedModels); kept to allocate nothing. */
  flagged: number[];
}

export function createModelBatches(): ModelBatches {
  return { due: new Set(), byModel: new Map(), batchOf: null, instanceOf: null, list: [], enabled: true, flagged: [] };
}

/** Asks for a model's batches: made in the next sync step, after its saved edits. */
export function requestModelBatches(world: ViewerWorld, modelEid: number): void {
  const batches = world.render.batches;
  if (!batches.enabled || batches.byModel.has(modelEid)) return;
  batches.due.add(modelEid);
  world.render.needsRender = true;
}

/** The vertex layout a batch needs all its geometries to share (interleaved or not: the batch copies values). */
function layoutOf(geometry: BufferGeometry): string {
  const parts: string[] = [geometry.index ? 'indexed' : 'plain'];
  for (const name of Object.keys(geometry.attributes).sort()) {
    const a = geometry.attributes[name] as BufferAttribute;
    parts.push(`${name}:${a.itemSize}:${a.normalized ? 1 : 0}:${a.array.constructor.name}`);
  }
  return parts.join('|');
}

function batchable(mesh: Mesh): boolean {
  if (!mesh.isMesh || Array.isArray(mesh.material) || !mesh.material) return false;
  const m = mesh as Mesh & { isInstancedMesh?: boolean; isBatchedMesh?: boolean };
  if (m.isInstancedMesh || m.isBatchedMesh || (mesh as SkinnedMesh).isSkinnedMesh) return false;
  const g = mesh.geometry;
  if (!g?.getAttribute('position') || Object.keys(g.morphAttributes).length > 0 || g.groups.length > 1) return false;
  return g.drawRange.start === 0 && g.drawRange.count === Infinity;
}

/** The subtrees of a model's animated nodes: they move every frame and are left out. */
function animatedSet(world: ViewerWorld, record: ModelRecord): Set<Object3D> {
  const out = new Set<Object3D>();
  for (let i = 0; i < record.animated.length; i++) world.objects[record.animated[i]!]?.traverse((o) => void out.add(o));
  return out;
}

function ensureSlots(batches: ModelBatches): { batchOf: Uint16Array; instanceOf: Int32Array } {
  if (!batches.batchOf || !batches.instanceOf) {
    batches.batchOf = new Uint16Array(MAX_ENTITIES);
    batches.instanceOf = new Int32Array(MAX_ENTITIES);
  }
  return { batchOf: batches.batchOf, instanceOf: batches.instanceOf };
}

/**
 * Makes a model's batches now (its meshes' world matrices must be current): groups its batchable
 * meshes by material, vertex layout and shadow flags; each group of BATCH_MIN_MESHES or more
 * becomes a BatchedMesh under the model's root, and its meshes move to BATCHED_LAYER. Returns the
 * batches made.
 */
export function buildModelBatches(world: ViewerWorld, modelEid: number): ModelBatch[] {
  const batches = world.render.batches;
  batches.due.delete(modelEid);
  const record = world.models.get(modelEid);
  if (!record || batches.byModel.has(modelEid)) return [];
  const animated = animatedSet(world, record);
  const groups = new Map<string, Mesh[]>();
  const materialKeys = new Map<Material, number>();
  record.root.traverse((object) => {
    const mesh = object as Mesh;
    if (!batchable(mesh) || animated.has(object)) return;
    const eid = object.userData.eid as number | undefined;
    if (eid === undefined || world.objects[eid] !== object) return;
    const layout = layoutOf(mesh.geometry);
    const material = mesh.material as Material;
    let mk = materialKeys.get(material);
    if (mk === undefined) materialKeys.set(material, (mk = materialKeys.size));
    const key = `${mk}/${mesh.castShadow ? 1 : 0}${mesh.receiveShadow ? 1 : 0}/${layout}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(mesh);
  });

  const made: ModelBatch[] = [];
  for (const meshes of groups.values()) {
    if (meshes.length < BATCH_MIN_MESHES) continue;
    made.push(makeBatch(world, record, modelEid, meshes));
  }
  batches.byModel.set(modelEid, made);
  if (made.length > 0) {
    refreshBatchVisibility(world, modelEid);
    world.render.needsRender = true;
  }
  return made;
}

function makeBatch(world: ViewerWorld, record: ModelRecord, modelEid: number, meshes: Mesh[]): ModelBatch {
  const batches = world.render.batches;
  const { batchOf, instanceOf } = ensureSlots(batches);
  // Each geometry once, however many meshes share it.
  const geometries = new Map<BufferGeometry, number>();
  let vertices = 0;
  let indices = 0;
  for (const mesh of meshes) {
    const g = mesh.geometry;
    if (geometries.has(g)) continue;
    geometries.set(g, -1);
    vertices += g.getAttribute('position').count;
    indices += g.index ? g.index.count : 0;
  }
  const material = meshes[0]!.material as Material;
  const batch = new BatchedMesh(meshes.length, vertices, indices, material);
  batch.name = `Batch of ${material.name || 'material'} (${meshes.length} meshes)`;
  batch.castShadow = meshes[0]!.castShadow;
  batch.receiveShadow = meshes[0]!.receiveShadow;
  // Opaque batches need no order; sorting every frame would cost more than it saves.
  batch.sortObjects = material.transparent;
  // World matrices per instance: the batch itself stays at the origin, whatever its parent does.
  batch.matrixAutoUpdate = false;
  batch.matrixWorldAutoUpdate = false;
  batch.matrixWorld.identity();
  for (const [g] of geometries) geometries.set(g, batch.addGeometry(g));

  // A slot a removed batch left (no entity points at it any more) before a new one.
  const free = batches.list.indexOf(null);
  const index = free >= 0 ? free : batches.list.length;
  const entry: ModelBatch = { mesh: batch, modelEid, material, members: new Array(meshes.length), eids: new Int32Array(meshes.length), live: meshes.length };
  batches.list[index] = entry;
  for (const mesh of meshes) {
    const id = batch.addInstance(geometries.get(mesh.geometry)!);
    batch.setMatrixAt(id, mesh.matrixWorld);
    const eid = mesh.userData.eid as number;
    entry.members[id] = mesh;
    entry.eids[id] = eid;
    batchOf[eid] = index + 1;
    instanceOf[eid] = id;
    mesh.layers.disable(SCENE_LAYER);
    mesh.layers.enable(BATCHED_LAYER);
  }
  record.root.add(batch);
  return entry;
}

/** The batch and instance an entity is drawn through, or null. */
export function batchOfEntity(world: ViewerWorld, eid: number): { batch: ModelBatch; instance: number } | null {
  const b = world.render.batches;
  const i = b.batchOf ? b.batchOf[eid]! : 0;
  const batch = i > 0 ? b.list[i - 1] : null;
  return batch ? { batch, instance: b.instanceOf![eid]! } : null;
}

/** The sync step's part for one changed world matrix: the batch instance follows its mesh. */
export function writeBatchedMatrix(world: ViewerWorld, eid: number, object: Object3D): void {
  const b = world.render.batches;
  const i = b.batchOf![eid]!;
  if (i === 0) return;
  const batch = b.list[i - 1];
  if (batch && batch.members[b.instanceOf![eid]!] === object) batch.mesh.setMatrixAt(b.instanceOf![eid]!, object.matrixWorld);
}

/**
 * Takes an entity's mesh out of its batch for good: the mesh is drawn as itself again. Called when
 * it no longer fits (material, shadow flags) and when its entity goes.
 */
export function unbatchEntity(world: ViewerWorld, eid: number): void {
  const b = world.render.batches;
  if (!b.batchOf) return;
  const i = b.batchOf[eid]!;
  if (i === 0) return;
  b.batchOf[eid] = 0;
  const batch = b.list[i - 1];
  if (!batch) return;
  const id = b.instanceOf![eid]!;
  const mesh = batch.members[id];
  batch.members[id] = null;
  batch.eids[id] = 0;
  batch.mesh.deleteInstance(id);
  batch.live--;
  if (mesh) {
    mesh.layers.disable(BATCHED_LAYER);
    mesh.layers.enable(SCENE_LAYER);
  }
  world.render.needsRender = true;
}

/**
 * Each batch instance shown as its mesh would be (the mesh and all its ancestors visible), and
 * members that no longer fit their batch (another material, other shadow flags, no longer in the
 * model) taken out. Runs in the sync step when flags changed, and after a batch is made.
 */
export function refreshBatchVisibility(world: ViewerWorld, modelEid: number): void {
  const list = world.render.batches.byModel.get(modelEid);
  if (!list || list.length === 0) return;
  const record = world.models.get(modelEid);
  for (const batch of list) {
    const { mesh: batchMesh, members } = batch;
    for (let id = 0; id < members.length; id++) {
      const mesh = members[id];
      if (!mesh) continue;
      const eid = batch.eids[id]!;
      if (
        world.objects[eid] !== mesh ||
        mesh.material !== batch.material ||
        mesh.castShadow !== batchMesh.castShadow ||
        mesh.receiveShadow !== batchMesh.receiveShadow ||
        !record ||
        !inside(mesh, record.root)
      ) {
        unbatchEntity(world, eid);
        continue;
      }
      const shown = shownUpTo(mesh, record.root);
      if (batchMesh.getVisibleAt(id) !== shown) batchMesh.setVisibleAt(id, shown);
    }
  }
}

function inside(object: Object3D, root: Object3D): boolean {
  for (let o: Object3D | null = object; o; o = o.parent) if (o === root) return true;
  return false;
}

/** Visible with every ancestor up to (not including) the root: the root's own visibility hides the batch with it. */
function shownUpTo(object: Object3D, root: Object3D): boolean {
  for (let o: Object3D | null = object; o && o !== root; o = o.parent) if (!o.visible) return false;
  return true;
}

/**
 * Before the sync step applies the flags: which batched models have flagged entities (their
 * instances are looked at again after it), so a flag elsewhere (an avatar, a helper) walks no batch.
 */
export function noteFlaggedModels(world: ViewerWorld): void {
  const b = world.render.batches;
  b.flagged.length = 0;
  if (b.byModel.size === 0) return;
  const { dirty, count } = world.flags;
  for (let i = 0; i < count; i++) {
    // A stale ModelMember value (an entity that is no member) can only cause one needless look.
    const model = ModelMember.model[dirty[i]!]!;
    if (b.byModel.has(model) && !b.flagged.includes(model)) b.flagged.push(model);
  }
}

/**
 * The sync step's batch work, after the matrices and flags: due models batched, and the batched
 * models noted by noteFlaggedModels have their instances shown as their meshes.
 */
export function syncModelBatches(world: ViewerWorld): void {
  const b = world.render.batches;
  if (b.due.size > 0) for (const modelEid of [...b.due]) buildModelBatches(world, modelEid);
  for (let i = 0; i < b.flagged.length; i++) refreshBatchVisibility(world, b.flagged[i]!);
  b.flagged.length = 0;
}

/** A model's batches removed and freed (the model is going, or batching is being turned off). */
export function removeModelBatches(world: ViewerWorld, modelEid: number): void {
  const b = world.render.batches;
  b.due.delete(modelEid);
  const list = b.byModel.get(modelEid);
  if (!list) return;
  b.byModel.delete(modelEid);
  for (const batch of list) {
    for (let id = 0; id < batch.members.length; id++) if (batch.members[id]) unbatchEntity(world, batch.eids[id]!);
    batch.mesh.removeFromParent();
    batch.mesh.dispose();
    const i = b.list.indexOf(batch);
    if (i >= 0) b.list[i] = null;
  }
  world.render.needsRender = true;
}

/** How many batches and batched meshes there are (the host API's and the benches' figures). */
export function batchStats(world: ViewerWorld): { batches: number; meshes: number } {
  let batches = 0;
  let meshes = 0;
  for (const list of world.render.batches.byModel.values()) {
    for (const batch of list) {
      batches++;
      meshes += batch.live;
    }
  }
  return { batches, meshes };
}
