import { Group, Object3D } from 'three';
import { describe, expect, it } from 'vitest';
import { spawnTransformEntity } from '../../../../src/engine/hierarchy';
import { createViewerWorld } from '../../../../src/engine/world';
import { createLookups, tuple } from '../../../../src/viewer/viewer-api/lookups';
import { addModel } from '../../support/viewer-api';

/** A model m1 whose root holds node 'a', which holds a plain group holding node 'b'. */
function model() {
  const world = createViewerWorld();
  const { rec, texture, material } = addModel(world);
  const nodes: Record<string, Object3D> = {};
  const register = (id: string, object: Object3D) => {
    const eid = spawnTransformEntity(world);
    object.userData.eid = eid;
    world.objects[eid] = object;
    rec.nodes.set(id, eid);
    rec.nodeIds.set(eid, id);
    nodes[id] = object;
    return eid;
  };
  const a = new Object3D();
  a.name = 'A';
  const between = new Group();
  const b = new Object3D();
  rec.root.add(a);
  a.add(between);
  between.add(b);
  register('a', a);
  const eidB = register('b', b);
  return { world, rec, nodes, eidB, texture, material, lookups: createLookups(world) };
}

describe('viewer API: lookups', () => {
  it('finds models and nodes by id, and says which one is unknown', () => {
    const { rec, lookups, eidB, nodes } = model();
    expect(lookups.record('m1')).toBe(rec);
    expect(() => lookups.record('nope')).toThrow("There is no loaded model 'nope'.");
    expect(lookups.node('m1', 'b')).toEqual({ rec, eid: eidB, object: nodes.b });
    expect(() => lookups.node('m1', 'c')).toThrow("Model 'm1' has no node 'c'.");
  });

  it('describes a node: its parent and children are nodes, looking through objects that are not', () => {
    const { rec, lookups, nodes } = model();
    const a = lookups.node('m1', 'a');
    const info = lookups.nodeInfo(rec, a.eid, a.object);
    expect(info).toMatchObject({ modelId: 'm1', nodeId: 'a', name: 'A', parentId: null, children: ['b'], translation: [0, 0, 0], scale: [1, 1, 1] });
    expect(info.rotation.map((v) => v + 0)).toEqual([0, 0, 0]);
    const b = lookups.node('m1', 'b');
    expect(lookups.nodeInfo(rec, b.eid, b.object).parentId).toBe('a');
    expect(lookups.childNodes(rec, rec.root, []).map((c) => c.object)).toEqual([nodes.a]);
  });

  it('describes a material with its maps by texture id', () => {
    const { rec, lookups, material } = model();
    expect(() => lookups.material('m1', 'nope')).toThrow("Model 'm1' has no material 'nope'.");
    expect(lookups.material('m1', 'mat')).toEqual({ rec, mat: material });
    expect(lookups.materialInfo(rec, 'mat', material)).toMatchObject({
      modelId: 'm1',
      materialId: 'mat',
      type: 'MeshStandardMaterial',
      color: '#ffffff',
      maps: { map: '0' },
    });
  });

  it('writes vectors as the host API does', () => {
    expect(tuple({ x: 1, y: -2, z: 3.5 })).toEqual([1, -2, 3.5]);
  });
});
