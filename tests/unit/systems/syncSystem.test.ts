import {
  Bone,
  BoxGeometry,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Object3D,
  PerspectiveCamera,
  Scene,
  Skeleton,
  SkinnedMesh,
  type WebGLRenderer,
} from 'three';
import { describe, expect, it, vi } from 'vitest';
import { Shadows, Transform, Visibility, Renderable } from '../../../components';
import { addComponent } from 'bitecs';
import { setShadows, setVisible } from '../../../src/engine/object-flags';
import { setPosition, spawnTransformEntity } from '../../../src/engine/hierarchy';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { renderSystem } from '../../../systems/renderSystem';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

/** Just what renderSystem uses of a WebGLRenderer: render() and info.render. */
function fakeRenderer(calls = 3, triangles = 36) {
  const fake = {
    render: vi.fn(),
    info: { render: { calls, triangles } },
    shadowMap: { autoUpdate: true },
  };
  return fake;
}

function readyWorld(): { world: ViewerWorld; renderer: ReturnType<typeof fakeRenderer>; scene: Scene; camera: PerspectiveCamera } {
  const world = createViewerWorld();
  const renderer = fakeRenderer();
  const scene = new Scene();
  const camera = new PerspectiveCamera();
  world.render.renderer = renderer as unknown as WebGLRenderer;
  world.render.scene = scene;
  world.render.camera = camera;
  return { world, renderer, scene, camera };
}

/** An entity with an Object3D under ECS control, added to the scene. */
function spawnObject<T extends Object3D>(world: ViewerWorld, scene: Object3D, object: T, parent = 0): number {
  const eid = spawnTransformEntity(world, parent);
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  (parent ? world.objects[parent]! : scene).add(object);
  return eid;
}

function frame(world: ViewerWorld): void {
  transformSystem(world);
  syncSystem(world);
  renderSystem(world);
}

describe('syncSystem', () => {
  it('copies the changed world matrices into Object3D.matrixWorld', () => {
    const { world, scene } = readyWorld();
    const parent = spawnObject(world, scene, new Object3D());
    const child = spawnObject(world, scene, new Object3D(), parent);
    setPosition(world, parent, 0, 5, 0);
    setPosition(world, child, 1, 0, 0);
    Transform.scale.set([2, 2, 2], parent * 3);
    frame(world);
    expect(world.objects[parent]!.matrixWorld.elements).toEqual(Array.from(Transform.world.subarray(parent * 16, parent * 16 + 16)));
    expect(world.objects[child]!.matrixWorld.elements).toEqual(Array.from(Transform.world.subarray(child * 16, child * 16 + 16)));
    expect(world.objects[child]!.matrixWorld.elements.slice(12)).toEqual([2, 5, 0, 1]);
    // three.js must not have touched its own local matrices (auto update is off).
    expect(world.objects[child]!.matrix.equals(new Matrix4())).toBe(true);
  });

  it('leaves the matrices of objects that did not change alone', () => {
    const { world, scene } = readyWorld();
    const a = spawnObject(world, scene, new Object3D());
    const b = spawnObject(world, scene, new Object3D());
    frame(world);
    const marker = new Matrix4().makeTranslation(7, 7, 7);
    world.objects[b]!.matrixWorld.copy(marker);
    setPosition(world, a, 1, 1, 1);
    frame(world);
    expect(world.objects[b]!.matrixWorld.equals(marker)).toBe(true);
    expect(world.objects[a]!.matrixWorld.elements.slice(12)).toEqual([1, 1, 1, 1]);
  });

  it("updates an attached SkinnedMesh's bindMatrixInverse, not a detached one's", () => {
    const { world, scene } = readyWorld();
    const make = (mode: 'attached' | 'detached') => {
      const mesh = new SkinnedMesh(new BoxGeometry(), new MeshBasicMaterial());
      const bone = new Bone();
      mesh.add(bone);
      mesh.bind(new Skeleton([bone]), new Matrix4());
      mesh.bindMode = mode;
      return mesh;
    };
    const attached = make('attached');
    const detached = make('detached');
    const a = spawnObject(world, scene, attached);
    const d = spawnObject(world, scene, detached);
    setPosition(world, a, 3, -2, 1);
    setPosition(world, d, 3, -2, 1);
    frame(world);
    const expected = new Matrix4().makeTranslation(-3, 2, -1);
    expect(attached.bindMatrixInverse.elements).toEqual(expected.elements);
    expect(detached.bindMatrixInverse.equals(new Matrix4())).toBe(true);
    expect(Transform.worldChanged[d]).toBe(1);
  });

  it("updates a camera entity's matrixWorldInverse", () => {
    const { world, scene } = readyWorld();
    const camera = new PerspectiveCamera();
    const eid = spawnObject(world, scene, camera);
    setPosition(world, eid, 0, 0, 10);
    frame(world);
    expect(camera.matrixWorldInverse.elements.slice(12)).toEqual([0, 0, -10, 1]);
  });

  it('applies Visibility and Shadows of flagged entities, and only theirs', () => {
    const { world, scene } = readyWorld();
    const mesh = new Mesh(new BoxGeometry(), new MeshBasicMaterial());
    const eid = spawnObject(world, scene, mesh);
    addComponent(world, eid, Visibility);
    addComponent(world, eid, Shadows);
    addComponent(world, eid, Renderable);
    Visibility.visible[eid] = 1;
    setVisible(world, eid, false);
    setShadows(world, eid, false, true);
    expect(mesh.visible).toBe(true);
    world.render.needsRender = false;
    syncSystem(world);
    expect(mesh.visible).toBe(false);
    expect(mesh.castShadow).toBe(false);
    expect(mesh.receiveShadow).toBe(true);
    expect(world.render.needsRender).toBe(true);
    // Not flagged again: a direct change to the object stays (nothing re-applies it).
    mesh.visible = true;
    world.render.needsRender = false;
    syncSystem(world);
    expect(mesh.visible).toBe(true);
    expect(world.render.needsRender).toBe(false);
    setVisible(world, eid, true);
    setVisible(world, eid, false);
    expect(world.flags.count).toBe(1);
    syncSystem(world);
    expect(mesh.visible).toBe(false);
  });

  it('leaves a light\'s castShadow to the shadow budget', () => {
    const { world, scene } = readyWorld();
    const light = new Object3D() as Object3D & { castShadow: boolean };
    const eid = spawnObject(world, scene, light);
    addComponent(world, eid, Shadows);
    light.castShadow = false;
    setShadows(world, eid, true, true);
    syncSystem(world);
    expect(light.castShadow).toBe(false);
  });
});
