import { Box3, BoxGeometry, Group, Matrix4, MeshBasicMaterial, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { InstanceGroup } from '../../../components';
import { bindObject } from '../../../src/engine/registry';
import {
  addInstances,
  boundsPending,
  buildPendingBounds,
  compactInstanceGroup,
  createInstanceGroup,
  getInstanceBounds,
  getInstanceMatrix,
  instanceIds,
  prepareInstances,
  instanceSlot,
  removeInstances,
  setInstanceMatrix,
  type InstanceAsset,
} from '../../../src/engine/instances';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';
import { instanceRow } from './instance-row';

function asset(parts = 2): InstanceAsset {
  const geometry = new BoxGeometry(1, 1, 1);
  return {
    assetId: 'crate',
    parts: Array.from({ length: parts }, (_, i) => ({ name: `part${i}`, geometry, material: new MeshBasicMaterial() })),
    box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
    placeholder: false,
  };
}

function setup(n: number) {
  const world = createViewerWorld();
  return { world, ...instanceRow(world, n, asset(), 3) };
}

describe('instanced asset groups in the engine', () => {
  it('takes the set\'s packed 12-float matrices, and builds its bounds index only when asked (the first picture never waits for it)', async () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    bindObject(world, eid, new Group());
    const m = new Matrix4().makeRotationY(0.5).setPosition(4, 1, -2);
    const packed = new Float32Array(24);
    const e = m.elements;
    packed.set([e[0], e[1], e[2], e[4], e[5], e[6], e[8], e[9], e[10], e[12], e[13], e[14]], 12);
    packed.set([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 0);
    const group = createInstanceGroup(world, eid, { uuid: 'packed', asset: asset(1), ids: new Uint32Array([7, 9]), matrices: packed });
    const out = getInstanceMatrix(group, 9, new Matrix4());
    out.elements.forEach((v, i) => expect(v).toBeCloseTo(e[i]!, 5));
    expect(boundsPending(group)).toBe(true);
    expect(group.bvh.nodes).toBe(0);
    // The group's box is known without the tree: both instances inside.
    expect(group.localBox.containsPoint(new Vector3().setFromMatrixPosition(m))).toBe(true);
    expect(group.localBox.min.x).toBeCloseTo(-0.5, 5);
    await buildPendingBounds(world);
    expect(boundsPending(group)).toBe(false);
    expect(group.bvh.nodes).toBeGreaterThan(0);
    expect(() => createInstanceGroup(world, eid, { uuid: 'bad', asset: asset(1), ids: new Uint32Array([1]), matrices: new Float32Array(13) })).toThrow(/16 matrix values \(or 12 packed\)/);
  });


  it('prepared instances (unpacked and indexed before the group) are taken over by the group as they are', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    bindObject(world, eid, new Group());
    const packed = new Float32Array(36);
    for (let i = 0; i < 3; i++) packed.set([1, 0, 0, 0, 1, 0, 0, 0, 1, i * 3, 0, 0], i * 12);
    const prepared = prepareInstances('p', new Uint32Array([5, 2, 9]), packed, 4);
    expect(prepared.count).toBe(3);
    expect(prepared.nextId).toBe(10);
    expect(prepared.matrices.length % 16).toBe(0);
    expect(prepared.matrices.length).toBeGreaterThanOrEqual(3 * 16);
    expect(Array.from(prepared.matrices.subarray(16, 32))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 3, 0, 0, 1]);
    expect([prepared.index.get(5), prepared.index.get(2), prepared.index.get(9), prepared.index.get(4)]).toEqual([0, 1, 2, -1]);
    const group = createInstanceGroup(world, eid, { uuid: 'p', asset: asset(1), prepared, revision: 2 });
    expect(group.attribute.array).toBe(prepared.matrices);
    expect(group.ids).toBe(prepared.ids);
    expect(group.index).toBe(prepared.index);
    expect([group.count, group.nextId, group.revision]).toEqual([3, 10, 2]);
    expect(getInstanceMatrix(group, 9, new Matrix4()).elements[12]).toBe(6);
    expect(() => prepareInstances('dup', new Uint32Array([1, 1]), new Float32Array(24))).toThrow('Instance id 1 appears twice in group dup.');
    // A bad set for an entity that has a group leaves that group as it was.
    expect(() => createInstanceGroup(world, eid, { uuid: 'dup', asset: asset(1), ids: new Uint32Array([1, 1]), matrices: new Float32Array(24) })).toThrow('appears twice');
    expect(world.instanceGroups.get(eid)).toBe(group);
    expect(group.meshes[0]!.parent).not.toBeNull();
  });

  it('draws one InstancedMesh per part, sharing one matrix buffer, under the group object', () => {
    const { group, object, world, eid } = setup(10);
    expect(group.meshes).toHaveLength(2);
    expect(object.children).toEqual(group.meshes);
    expect(group.meshes[0]!.instanceMatrix).toBe(group.meshes[1]!.instanceMatrix);
    expect(group.meshes[0]!.count).toBe(10);
    expect(group.nextId).toBe(10);
    expect(world.instanceGroups.get(eid)).toBe(group);
    expect(InstanceGroup.count[eid]).toBe(10);
    // The meshes' bounds come from the group's box (no walk over the instances when culling).
    expect(group.meshes[0]!.boundingBox!.max.x).toBeCloseTo(18.5);
  });

  it('reads and writes an instance by id, uploading only its range', () => {
    const { group, world } = setup(10);
    const m = getInstanceMatrix(group, 4, new Matrix4());
    expect(m.elements[12]).toBe(8);
    group.attribute.clearUpdateRanges();
    world.render.needsRender = false;
    const version = group.attribute.version;
    setInstanceMatrix(world, group, 4, new Matrix4().makeTranslation(100, 0, 0));
    expect(getInstanceMatrix(group, 4, new Matrix4()).elements[12]).toBe(100);
    expect(group.attribute.updateRanges).toEqual([{ start: 4 * 16, count: 16 }]);
    expect(group.attribute.version).toBe(version + 1);
    expect(world.render.needsRender).toBe(true);
    expect(getInstanceBounds(group, 4, new Box3()).min.x).toBeCloseTo(99.5);
    // The meshes' bounds grew to hold it.
    expect(group.meshes[0]!.boundingBox!.max.x).toBeCloseTo(100.5);
  });

  it("throws 'No instance found with id N' for unknown ids, changing nothing", () => {
    const { group, world, eid } = setup(5);
    expect(() => getInstanceMatrix(group, 99, new Matrix4())).toThrow('No instance found with id 99');
    expect(() => setInstanceMatrix(world, group, 99, new Matrix4())).toThrow('No instance found with id 99');
    expect(() => removeInstances(world, group, [1, 2, 77])).toThrow('No instance found with id 77');
    expect(group.live).toBe(5);
    expect(InstanceGroup.removed[eid]).toBe(0);
    expect(instanceSlot(group, 1)).toBe(1);
    removeInstances(world, group, [2]);
    expect(() => removeInstances(world, group, [2])).toThrow('No instance found with id 2');
  });

  it('marks removals (zero matrix), then compaction packs slots and keeps every id and matrix', () => {
    const n = 1000;
    const { group, world, eid } = setup(n);
    const removed = new Set<number>();
    for (let id = 0; id < n; id += 7) removed.add(id);
    removeInstances(world, group, [...removed]);
    expect(InstanceGroup.removed[eid]).toBe(removed.size);
    expect(group.count).toBe(n);
    const slot = 7; // id 7's slot
    expect([...group.attribute.array.subarray(slot * 16, slot * 16 + 16)].every((v) => v === 0)).toBe(true);
    const freed = compactInstanceGroup(world, group);
    expect(freed).toBe(removed.size);
    expect(group.count).toBe(n - removed.size);
    expect(group.meshes[0]!.count).toBe(n - removed.size);
    expect(InstanceGroup.removed[eid]).toBe(0);
    const m = new Matrix4();
    for (let id = 0; id < n; id++) {
      if (removed.has(id)) {
        expect(instanceSlot(group, id)).toBe(-1);
        continue;
      }
      const s = instanceSlot(group, id);
      expect(s).toBeLessThan(group.count);
      expect(group.ids[s]).toBe(id);
      expect(getInstanceMatrix(group, id, m).elements[12]).toBe(id * 2);
    }
    expect(new Set(instanceIds(group)).size).toBe(n - removed.size);
  });

  it('adds instances with new ids (nextId grows), refuses an id it holds', () => {
    const { group, world } = setup(3);
    addInstances(world, group, [10, 11], [...new Matrix4().makeTranslation(5, 5, 5).elements, ...new Matrix4().elements]);
    expect(group.live).toBe(5);
    expect(group.nextId).toBe(12);
    expect(group.meshes[1]!.count).toBe(5);
    expect(getInstanceMatrix(group, 10, new Matrix4()).elements[13]).toBe(5);
    expect(() => addInstances(world, group, [2], new Matrix4().elements)).toThrow('Instance id 2 already exists in group g1');
    expect(() => addInstances(world, group, [20], [1, 2, 3])).toThrow('1 instances need 16 matrix values');
    expect(group.live).toBe(5);
  });

  it('grows past its capacity and keeps drawing the same buffer on every mesh', () => {
    const { group, world } = setup(2);
    const ids = Array.from({ length: 100 }, (_, i) => 100 + i);
    const matrices = new Float32Array(100 * 16);
    for (let i = 0; i < 100; i++) new Matrix4().makeTranslation(0, i, 0).toArray(matrices, i * 16);
    addInstances(world, group, ids, matrices);
    expect(group.meshes[0]!.instanceMatrix).toBe(group.attribute);
    expect(group.meshes[1]!.instanceMatrix).toBe(group.attribute);
    expect(getInstanceMatrix(group, 199, new Matrix4()).elements[13]).toBe(99);
    expect(getInstanceMatrix(group, 1, new Matrix4()).elements[12]).toBe(2);
  });
});
