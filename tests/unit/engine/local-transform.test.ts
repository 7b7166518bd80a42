import { Matrix4, Object3D, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Transform } from '../../../components';
import { spawnTransformEntity } from '../../../src/engine/hierarchy';
import { setLocalTransform } from '../../../src/engine/local-transform';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { createViewerWorld } from '../../../src/engine/world';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

function read(array: Float32Array, eid: number, size: number): number[] {
  return Array.from(array.subarray(eid * size, eid * size + size));
}

function setup() {
  const world = createViewerWorld();
  const eid = spawnTransformEntity(world);
  const object = new Object3D();
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  transformSystem(world);
  world.render.needsRender = false;
  return { world, eid, object };
}

describe('setLocalTransform', () => {
  it('writes the given parts into Transform, flags it for the transform system and asks for a picture', () => {
    const { world, eid } = setup();
    expect(Transform.dirty[eid]).toBe(0);
    expect(world.transform.anyDirty).toBe(false);
    setLocalTransform(world, eid, [1, 2, 3], [0, 0, 0.6, 0.8], [2, 3, 4]);
    expect(read(Transform.position, eid, 3)).toEqual([1, 2, 3]);
    expect(read(Transform.rotation, eid, 4)).toEqual([0, 0, Math.fround(0.6), Math.fround(0.8)]);
    expect(read(Transform.scale, eid, 3)).toEqual([2, 3, 4]);
    expect(Transform.dirty[eid]).toBe(1);
    expect(world.transform.anyDirty).toBe(true);
    expect(world.render.needsRender).toBe(true);
  });

  it('keeps the parts not given, and takes three.js vectors as well as arrays', () => {
    const { world, eid } = setup();
    setLocalTransform(world, eid, [1, 2, 3], [0, 0, 0.6, 0.8], [2, 3, 4]);
    setLocalTransform(world, eid, new Vector3(5, 6, 7));
    expect(read(Transform.position, eid, 3)).toEqual([5, 6, 7]);
    expect(read(Transform.rotation, eid, 4)).toEqual([0, 0, Math.fround(0.6), Math.fround(0.8)]);
    expect(read(Transform.scale, eid, 3)).toEqual([2, 3, 4]);
    setLocalTransform(world, eid, null, new Quaternion(0.6, 0, 0, 0.8), null);
    expect(read(Transform.position, eid, 3)).toEqual([5, 6, 7]);
    expect(read(Transform.rotation, eid, 4)).toEqual([Math.fround(0.6), 0, 0, Math.fround(0.8)]);
    setLocalTransform(world, eid, undefined, undefined, new Vector3(1, 1, 0.5));
    expect(read(Transform.scale, eid, 3)).toEqual([1, 1, 0.5]);
  });

  it("keeps the Object3D's own fields and matrix in step and drops its pivot; the world matrix follows in the frame", () => {
    const { world, eid, object } = setup();
    object.pivot = new Vector3(1, 0, 0);
    setLocalTransform(world, eid, [1, 2, 3], [0, 0, 0.6, 0.8], [2, 2, 2]);
    expect(object.pivot).toBeNull();
    expect(object.position.toArray()).toEqual([1, 2, 3]);
    expect(object.quaternion.toArray()).toEqual([0, 0, Math.fround(0.6), Math.fround(0.8)]);
    expect(object.scale.toArray()).toEqual([2, 2, 2]);
    const expected = new Matrix4().compose(object.position, object.quaternion, object.scale);
    expect(object.matrix.elements).toEqual(expected.elements);
    // The world matrix is the frame's job: unchanged until the transform and sync systems run.
    expect(object.matrixWorld.elements[12]).toBe(0);
    transformSystem(world);
    syncSystem(world);
    expect(object.matrixWorld.elements[12]).toBeCloseTo(1, 6);
    expect(object.matrixWorld.elements[13]).toBeCloseTo(2, 6);
    expect(object.matrixWorld.elements[14]).toBeCloseTo(3, 6);
  });

  it('writes an entity without an object too', () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    setLocalTransform(world, eid, [4, 5, 6]);
    expect(read(Transform.position, eid, 3)).toEqual([4, 5, 6]);
    expect(Transform.dirty[eid]).toBe(1);
  });
});
