import { BoxGeometry, Group, Mesh, MeshBasicMaterial, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import { describe as describeHit, hitOn, makeHit, toHitEventData } from '../../../../src/viewer/picking/hits';
import { createPickState } from '../../../../src/viewer/picking/state';
import { addModel, expectVector, fixture, node } from './fixture';

function material(id: string): MeshBasicMaterial {
  const m = new MeshBasicMaterial();
  m.name = id.toUpperCase();
  m.userData.materialId = id;
  return m;
}

describe('describe', () => {
  it('gives an object outside every model no entity and no ids, only its name', () => {
    const world = createViewerWorld();
    const loose = new Mesh(new BoxGeometry(), material('m'));
    loose.name = 'Gizmo';
    expect(describeHit(world, loose, loose.material as MeshBasicMaterial)).toEqual({ eid: 0, record: null, nodeId: null, nodeName: 'Gizmo', materialId: null });
  });

  it('gives a primitive the ids of its nearest node, and the material\'s id', () => {
    const f = fixture();
    const steel = material('mat-steel');
    const group = node(new Group(), 'node-group', 'Assembly');
    const part = new Mesh(new BoxGeometry(), steel);
    part.name = 'primitive-0';
    group.add(part);
    const record = addModel(f, 'model-a', [group]);
    const ids = describeHit(f.world, part, steel);
    expect(ids.record).toBe(record);
    expect(ids.eid).toBe(record.nodes.get('node-group'));
    expect(ids).toMatchObject({ nodeId: 'node-group', nodeName: 'Assembly', materialId: 'mat-steel' });
    expect(describeHit(f.world, part, null).materialId).toBeNull();
  });
});

describe('makeHit', () => {
  it('turns the best hit into a hit: world normal by the normal matrix, facing the ray; fresh vectors; the hit face\'s material', () => {
    const f = fixture();
    const materials = [material('a'), material('b')];
    const mesh = node(new Mesh(new BoxGeometry(), materials), 'n', 'Part') as Mesh;
    const record = addModel(f, 'model-a', [mesh]);
    const state = createPickState();
    state.ray.direction.set(0, 0, -1);
    const { best } = state;
    best.object = mesh;
    best.distance = 7;
    best.point.set(1, 2, 3);
    best.instanceId = -1;
    best.faceIndex = 5;
    best.materialIndex = 1;
    // Scaled 2x along x: a local normal (1, 0, 1) becomes (0.5, 0, 1) before normalising.
    best.matrix.makeScale(2, 1, 1);
    best.localNormal.set(1, 0, 1);
    const hit = makeHit(f.world, state);
    expectVector(hit.normal, 0.5 / Math.hypot(0.5, 1), 0, 1 / Math.hypot(0.5, 1));
    expect(hit.point).not.toBe(best.point);
    expectVector(hit.point, 1, 2, 3);
    expect(hit).toMatchObject({ distance: 7, object: mesh, modelId: 'model-a', nodeId: 'n', nodeName: 'Part', materialId: 'b', instanceId: null, faceIndex: 5 });
    expect(hit.material).toBe(materials[1]);
    expect(hit.eid).toBe(record.nodes.get('n'));
    // A normal facing away from the camera (the back of a double-sided face) is turned to face it.
    best.localNormal.set(0, 0, -1);
    best.matrix.identity();
    expectVector(makeHit(f.world, state).normal, 0, 0, 1);
    // No normal (a hit without a face): the reversed ray.
    best.localNormal.set(0, 0, 0);
    state.ray.direction.set(0, -1, 0);
    expectVector(makeHit(f.world, state).normal, 0, 1, 0);
    best.instanceId = 3;
    best.faceIndex = -1;
    expect(makeHit(f.world, state)).toMatchObject({ instanceId: 3, faceIndex: null });
  });
});

describe('hitOn', () => {
  it('builds a hit on a mesh at a given point with copies of the vectors, its first material and the ids a pick gives', () => {
    const f = fixture();
    const materials = [material('a'), material('b')];
    const mesh = node(new Mesh(new BoxGeometry(), materials), 'n', 'Part') as Mesh;
    addModel(f, 'model-a', [mesh]);
    const point = new Vector3(1, 2, 3);
    const normal = new Vector3(0, 1, 0);
    const hit = hitOn(f.world, mesh, point, normal, 4);
    expect(hit.point).not.toBe(point);
    expect(hit.normal).not.toBe(normal);
    expect(hit.point.equals(point) && hit.normal.equals(normal)).toBe(true);
    expect(hit).toMatchObject({ distance: 4, object: mesh, modelId: 'model-a', nodeId: 'n', materialId: 'a', instanceId: null, faceIndex: null });
    expect(hit.material).toBe(materials[0]);
  });
});

describe('toHitEventData', () => {
  it('copies a hit into plain data, with an empty material name when there is no material', () => {
    const world = createViewerWorld();
    const mesh = new Mesh(new BoxGeometry());
    mesh.material = null as never;
    const hit = hitOn(world, mesh, new Vector3(1, 2, 3), new Vector3(0, 0, 1), 1);
    const data = toHitEventData(hit);
    expect(data).toEqual({
      point: { x: 1, y: 2, z: 3 },
      normal: { x: 0, y: 0, z: 1 },
      modelId: null,
      nodeId: null,
      nodeName: '',
      materialId: null,
      materialName: '',
      instanceId: null,
      groupId: null,
    });
    // Plain data: no three.js objects, survives structured cloning unchanged.
    expect(structuredClone(data)).toEqual(data);
  });
});
