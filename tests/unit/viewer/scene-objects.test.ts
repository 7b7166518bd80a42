import { PerspectiveCamera, Scene, type PointLight, type SpotLight } from 'three';
import { describe, expect, it } from 'vitest';
import { Light, Transform } from '../../../components';
import { createViewerWorld } from '../../../src/engine/world';
import { defaultSceneObject } from '../../../src/protocol/scene-objects';
import { SceneObjects, sceneObjectsOf } from '../../../src/viewer/scene-objects';
import { shadowBudgetSystem } from '../../../systems/shadowBudgetSystem';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

function setup() {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera(60, 1, 0.1, 2000);
  camera.position.set(0, 2, 10);
  camera.updateMatrixWorld();
  world.render.camera = camera;
  const scene = new Scene();
  const objects = new SceneObjects(world, scene);
  const run = () => {
    world.render.needsRender = true;
    transformSystem(world);
    shadowBudgetSystem(world);
    syncSystem(world);
    scene.updateMatrixWorld();
  };
  return { world, scene, objects, run };
}

describe('scene objects as entities', () => {
  it('makes each object an entity with its three.js object, fields and world matrix from the ECS', () => {
    const { world, objects, run } = setup();
    const spot = objects.put({ ...defaultSceneObject('SpotLight', 's1'), position: [1, 5, 2] });
    run();
    const light = spot.object as SpotLight;
    expect(light.isSpotLight).toBe(true);
    expect([light.intensity, light.angle, light.penumbra, light.decay]).toEqual([25, 0.5, 0.1, 2]);
    expect(light.matrixWorld.elements.slice(12, 15)).toEqual([1, 5, 2]);
    // It shines down: its target is one unit below it.
    expect(light.target.getWorldPosition(light.position.clone()).toArray().map((v) => Math.round(v * 1e6) / 1e6)).toEqual([1, 4, 2]);
    expect(world.objects[spot.eid]).toBe(light);
    // The shadow budget gives it its map.
    expect(Light.wantsShadow[spot.eid]).toBe(1);
    expect(light.castShadow).toBe(true);

    objects.put({ ...spot.data, intensity: 3, castShadow: false });
    run();
    expect(light.intensity).toBe(3);
    expect(light.castShadow).toBe(false);
  });

  it("moves through the one door for local transforms: Transform flagged, the object's own fields in step", () => {
    const { objects, run } = setup();
    const group = objects.put({ ...defaultSceneObject('Group', 'g'), position: [1, 2, 3] });
    run();
    expect(Transform.dirty[group.eid]).toBe(0);
    objects.put({ ...group.data, position: [4, 5, 6], quaternion: [0, 0, 0.6, 0.8], scale: [2, 2, 2] });
    expect(Array.from(Transform.position.subarray(group.eid * 3, group.eid * 3 + 3))).toEqual([4, 5, 6]);
    expect(Transform.dirty[group.eid]).toBe(1);
    expect(group.object.position.toArray()).toEqual([4, 5, 6]);
    expect(group.object.quaternion.toArray()).toEqual([0, 0, Math.fround(0.6), Math.fround(0.8)]);
    expect(group.object.scale.toArray()).toEqual([2, 2, 2]);
    run();
    expect(group.object.matrixWorld.elements.slice(12, 15)).toEqual([4, 5, 6]);
  });

  it('parents, in any saved order, and removes (children move to the root)', () => {
    const { world, objects, run } = setup();
    const group = { ...defaultSceneObject('Group', 'g'), position: [10, 0, 0] as [number, number, number] };
    const point = { ...defaultSceneObject('PointLight', 'p'), parent: 'g', position: [0, 1, 0] as [number, number, number] };
    objects.putAll([point, group]);
    run();
    const p = objects.get('p')!;
    expect(Transform.parent[p.eid]).toBe(objects.get('g')!.eid);
    expect((p.object as PointLight).matrixWorld.elements.slice(12, 15)).toEqual([10, 1, 0]);
    expect(objects.children('g')).toEqual(['p']);
    expect(objects.remove('g')).toBe(true);
    expect(Transform.parent[p.eid]).toBe(0);
    expect(objects.list().map((o) => o.uuid)).toEqual(['p']);
    expect(objects.remove('g')).toBe(false);
    expect(world.objects[p.eid]).toBe(p.object);
  });

  it('hides, counts shadow maps, and is one registry per world', () => {
    const { world, scene, objects, run } = setup();
    const p = objects.put({ ...defaultSceneObject('PointLight', 'p'), castShadow: true });
    objects.put(defaultSceneObject('SpotLight', 's'));
    objects.put(defaultSceneObject('AmbientLight', 'a'));
    expect(objects.shadowMaps()).toBe(7);
    expect(objects.shadowMaps('p')).toBe(1);
    objects.put({ ...p.data, visible: false });
    run();
    expect(p.object.visible).toBe(false);
    expect(sceneObjectsOf(world, scene)).toBe(sceneObjectsOf(world, scene));
  });
});
