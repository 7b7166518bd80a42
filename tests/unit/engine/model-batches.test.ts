import { BatchedMesh, BoxGeometry, Matrix4, Mesh, MeshStandardMaterial, Object3D, SphereGeometry } from 'three';
import { describe, expect, it } from 'vitest';
import { removeTransformEntity, setPosition, spawnTransformEntity } from '../../../src/engine/hierarchy';
import { BATCHED_LAYER, SCENE_LAYER } from '../../../src/engine/layers';
import { BATCH_MIN_MESHES, batchOfEntity, batchStats, removeModelBatches, requestModelBatches } from '../../../src/engine/model-batches';
import { flagObject, setShadows, setVisible } from '../../../src/engine/object-flags';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import { addComponent } from 'bitecs';
import { ModelMember, Renderable, Shadows, Visibility } from '../../../components';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

function spawn(world: ViewerWorld, object: Object3D, parent = 0): number {
  const eid = spawnTransformEntity(world, parent);
  addComponent(world, eid, Visibility);
  Visibility.visible[eid] = 1;
  addComponent(world, eid, Shadows);
  Shadows.cast[eid] = 1;
  Shadows.receive[eid] = 1;
  if ((object as Mesh).isMesh) {
    addComponent(world, eid, Renderable);
    (object as Mesh).castShadow = (object as Mesh).receiveShadow = true;
  }
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  if (parent) world.objects[parent]!.add(object);
  return eid;
}

const steel = new MeshStandardMaterial({ name: 'steel' });
const brass = new MeshStandardMaterial({ name: 'brass' });
// As glTF primitives come: one material, no groups (three's box has one a face).
const box = new BoxGeometry(1, 1, 1);
box.clearGroups();
const ball = new SphereGeometry(0.5, 8, 6);

/**
 * A model of machines: each machine a group node of a steel box, a steel ball and a brass bolt;
 * 12 machines (24 steel meshes, 12 brass); and a rotor (animated) holding a steel box.
 */
function plant(world: ViewerWorld, machines = 12) {
  const root = new Object3D();
  const rootEid = spawn(world, root);
  const groups: number[] = [];
  const steels: number[] = [];
  const brasses: number[] = [];
  for (let i = 0; i < machines; i++) {
    const g = spawn(world, new Object3D(), rootEid);
    setPosition(world, g, i * 2, 0, 0);
    groups.push(g);
    const a = spawn(world, new Mesh(box, steel), g);
    const b = spawn(world, new Mesh(ball, steel), g);
    setPosition(world, b, 0, 1, 0);
    steels.push(a, b);
    brasses.push(spawn(world, new Mesh(box, brass), g));
  }
  const rotor = spawn(world, new Object3D(), rootEid);
  const blade = spawn(world, new Mesh(box, steel), rotor);
  // Every entity a member of the model, as spawnModel makes them (the sync step finds flagged models by it).
  root.traverse((o) => {
    const eid = o.userData.eid as number;
    addComponent(world, eid, ModelMember);
    ModelMember.model[eid] = rootEid;
  });
  const record = { eid: rootEid, root, animated: Uint32Array.of(rotor), entities: new Uint32Array(0) } as unknown as ModelRecord;
  world.models.set(rootEid, record);
  return { rootEid, root, groups, steels, brasses, blade };
}

function frame(world: ViewerWorld): void {
  transformSystem(world);
  syncSystem(world);
}

function batchOf(world: ViewerWorld, eid: number) {
  return batchOfEntity(world, eid);
}

describe('model batches', () => {
  it('meshes of one material (and layout and shadow flags) in groups of BATCH_MIN_MESHES or more draw through one batch; the rest as themselves', () => {
    expect(BATCH_MIN_MESHES).toBe(16);
    const world = createViewerWorld();
    const p = plant(world);
    frame(world);
    expect(batchStats(world)).toEqual({ batches: 0, meshes: 0 });
    requestModelBatches(world, p.rootEid);
    frame(world);
    // 24 steel meshes (two geometries, one layout): one batch; 12 brass meshes: too few.
    expect(batchStats(world)).toEqual({ batches: 1, meshes: 24 });
    const batch = p.root.children.find((c) => (c as BatchedMesh).isBatchedMesh) as BatchedMesh;
    expect(batch).toBeDefined();
    expect(batch.material).toBe(steel);
    expect(batch.instanceCount).toBe(24);
    for (const eid of p.steels) {
      const mesh = world.objects[eid]!;
      expect(batchOf(world, eid)?.batch.mesh).toBe(batch);
      expect(mesh.layers.isEnabled(SCENE_LAYER)).toBe(false);
      expect(mesh.layers.isEnabled(BATCHED_LAYER)).toBe(true);
    }
    for (const eid of [...p.brasses, p.blade]) {
      expect(batchOf(world, eid)).toBeNull();
      expect(world.objects[eid]!.layers.isEnabled(SCENE_LAYER)).toBe(true);
    }
    // Each instance at its mesh's world matrix; the batch itself at the origin.
    const m = new Matrix4();
    for (const eid of p.steels) {
      const { instance } = batchOf(world, eid)!;
      expect(batch.getMatrixAt(instance, m).elements).toEqual(world.objects[eid]!.matrixWorld.elements);
    }
    expect(batch.matrixWorld.equals(new Matrix4())).toBe(true);
    // Asked again: nothing more.
    requestModelBatches(world, p.rootEid);
    frame(world);
    expect(batchStats(world)).toEqual({ batches: 1, meshes: 24 });
  });

  it('the batch follows its meshes: a moved group moves its instances in the same frame; hiding a group or a mesh hides their instances', () => {
    const world = createViewerWorld();
    const p = plant(world);
    requestModelBatches(world, p.rootEid);
    frame(world);
    const { batch, instance } = batchOf(world, p.steels[2]!)!;
    const m = new Matrix4();
    setPosition(world, p.groups[1]!, 10, 5, 0);
    frame(world);
    expect(batch.mesh.getMatrixAt(instance, m).elements[12]).toBeCloseTo(10);
    expect(batch.mesh.getMatrixAt(instance, m).elements[13]).toBeCloseTo(5);
    expect(m.elements).toEqual(world.objects[p.steels[2]!]!.matrixWorld.elements);

    const ids = (eids: number[]) => eids.map((e) => batchOf(world, e)!.instance);
    const [a, b] = ids([p.steels[4]!, p.steels[5]!]);
    setVisible(world, p.groups[2]!, false);
    frame(world);
    expect([batch.mesh.getVisibleAt(a!), batch.mesh.getVisibleAt(b!)]).toEqual([false, false]);
    expect(batch.mesh.getVisibleAt(instance)).toBe(true);
    setVisible(world, p.groups[2]!, true);
    setVisible(world, p.steels[5]!, false);
    frame(world);
    expect([batch.mesh.getVisibleAt(a!), batch.mesh.getVisibleAt(b!)]).toEqual([true, false]);
  });

  it('a mesh that no longer fits leaves its batch and is drawn as itself: another material, other shadow flags, its entity removed', () => {
    const world = createViewerWorld();
    const p = plant(world);
    requestModelBatches(world, p.rootEid);
    frame(world);
    const { batch } = batchOf(world, p.steels[0]!)!;
    const [m0, m1, m2] = [p.steels[0]!, p.steels[1]!, p.steels[2]!];
    const i2 = batchOf(world, m2)!.instance;

    // Another material, as saved edits put one (src/scene/apply-mutations.ts): flagged, looked at again.
    (world.objects[m0] as Mesh).material = brass;
    flagObject(world, m0);
    frame(world);
    setShadows(world, m1, false, undefined);
    frame(world);
    for (const eid of [m0, m1]) {
      expect(batchOf(world, eid)).toBeNull();
      expect(world.objects[eid]!.layers.isEnabled(SCENE_LAYER)).toBe(true);
      expect(world.objects[eid]!.layers.isEnabled(BATCHED_LAYER)).toBe(false);
    }
    expect(batch.live).toBe(22);
    expect(batch.mesh.instanceCount).toBe(22);

    removeTransformEntity(world, m2);
    expect(batchOf(world, m2)).toBeNull();
    expect(batch.live).toBe(21);
    expect(() => batch.mesh.getVisibleAt(i2)).toThrow();
    // The others are untouched.
    expect(batchOf(world, p.steels[3]!)?.batch).toBe(batch);
  });

  it("removing a model's batches puts every mesh back on the model layer and takes the batch away", () => {
    const world = createViewerWorld();
    const p = plant(world);
    requestModelBatches(world, p.rootEid);
    frame(world);
    removeModelBatches(world, p.rootEid);
    expect(batchStats(world)).toEqual({ batches: 0, meshes: 0 });
    expect(p.root.children.some((c) => (c as BatchedMesh).isBatchedMesh)).toBe(false);
    for (const eid of p.steels) {
      expect(batchOf(world, eid)).toBeNull();
      expect(world.objects[eid]!.layers.isEnabled(SCENE_LAYER)).toBe(true);
    }
    // Off: nothing is batched again.
    world.render.batches.enabled = false;
    requestModelBatches(world, p.rootEid);
    frame(world);
    expect(batchStats(world)).toEqual({ batches: 0, meshes: 0 });
    // On again: the batches are made anew in the slots the removed ones left (switching back and
    // forth does not grow the list), and the meshes point at them.
    const slots = world.render.batches.list.length;
    world.render.batches.enabled = true;
    requestModelBatches(world, p.rootEid);
    frame(world);
    expect(batchStats(world).batches).toBeGreaterThan(0);
    expect(world.render.batches.list.length).toBe(slots);
    for (const eid of p.steels) expect(batchOf(world, eid)?.batch.mesh.isBatchedMesh).toBe(true);
  });

  it('leaves out animated subtrees and opaque batches are not sorted', () => {
    const world = createViewerWorld();
    const p = plant(world, 16);
    requestModelBatches(world, p.rootEid);
    frame(world);
    expect(batchOf(world, p.blade)).toBeNull();
    // 32 steel meshes and 16 brass ones: two batches now.
    expect(batchStats(world)).toEqual({ batches: 2, meshes: 48 });
    for (const list of world.render.batches.byModel.values()) for (const b of list) expect(b.mesh.sortObjects).toBe(false);
  });
});
