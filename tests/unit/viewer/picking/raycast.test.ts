import { BoxGeometry, BufferGeometry, Group, Mesh, MeshBasicMaterial, PerspectiveCamera, Plane, PlaneGeometry, Vector3, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { HELPER_LAYER } from '../../../../src/engine/layers';
import { createViewerWorld } from '../../../../src/engine/world';
import { ERR_CAMERA } from '../../../../src/protocol/errors';
import { castRay, groupMaterial, pickCamera, type RaycastContext } from '../../../../src/viewer/picking/raycast';
import { createPickState } from '../../../../src/viewer/picking/state';
import { createPickTrees } from '../../../../src/viewer/picking/trees';
import { addModel, box, expectVector, fixture, node, type Fixture } from './fixture';

function context(f: Fixture): RaycastContext {
  return { world: f.world, trees: createPickTrees({ useWorker: false }), state: createPickState() };
}

describe('groupMaterial', () => {
  it('finds the group holding a triangle, else the fallback; a group without a material index means 0', () => {
    const geometry = new BufferGeometry();
    geometry.addGroup(0, 6, 2); // triangles 0 and 1
    geometry.addGroup(6, 3, 1); // triangle 2
    geometry.groups.push({ start: 9, count: 3 }); // triangle 3
    expect(groupMaterial(geometry, 0, 9)).toBe(2);
    expect(groupMaterial(geometry, 1, 9)).toBe(2);
    expect(groupMaterial(geometry, 2, 9)).toBe(1);
    expect(groupMaterial(geometry, 3, 9)).toBe(0);
    expect(groupMaterial(geometry, 4, 9)).toBe(9);
    expect(groupMaterial(geometry, -1, 9)).toBe(9);
  });
});

describe('pickCamera', () => {
  it('needs a camera, and brings a parentless camera\'s world matrix up to date (not a parented one\'s)', () => {
    const world = createViewerWorld();
    expect(() => pickCamera(world)).toThrow(ERR_CAMERA);
    const camera = new PerspectiveCamera();
    camera.updateMatrixWorld();
    world.render.camera = camera;
    camera.position.set(1, 2, 3);
    expect(pickCamera(world)).toBe(camera);
    expectVector(new Vector3().setFromMatrixPosition(camera.matrixWorld), 1, 2, 3);
    const rig = new Group();
    rig.add(camera);
    camera.position.set(4, 5, 6);
    pickCamera(world);
    expectVector(new Vector3().setFromMatrixPosition(camera.matrixWorld), 1, 2, 3);
  });
});

describe('castRay', () => {
  it('leaves the camera\'s ray, its drawn interval and the nearest hit in the state', async () => {
    const f = fixture(); // camera at z 10 looking down -z, near 0.1, far 2000
    addModel(f, 'model-a', [node(box(2), 'front'), node(box(2, 0, 0, -5), 'back')]);
    const ctx = context(f);
    expect(castRay(ctx, f.world.render.camera!, 0, 0)).toBe(true);
    const { state } = ctx;
    expectVector(state.ray.origin, 0, 0, 10);
    expectVector(state.ray.direction, 0, 0, -1);
    expect(state.near).toBeCloseTo(0.1, 9);
    expect(state.far).toBeCloseTo(2000, 6);
    expect(state.best.object!.name).toBe('front');
    expect(state.best.distance).toBeCloseTo(9, 5);
    expectVector(state.best.point, 0, 0, 1);
    // A miss: no best hit.
    expect(castRay(ctx, f.world.render.camera!, 0.9, 0.9)).toBe(false);
    expect(state.best.object).toBeNull();
    ctx.trees.dispose();
  });

  it('casts at nothing when section planes leave none of the ray drawn', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    const mesh = record.root.getObjectByName('n') as Mesh;
    const ctx = context(f);
    // Keeps z >= 20, behind the camera: nothing ahead is drawn.
    f.world.render.renderer = { clippingPlanes: [new Plane(new Vector3(0, 0, 1), -20)], localClippingEnabled: true } as unknown as WebGLRenderer;
    expect(castRay(ctx, f.world.render.camera!, 0, 0)).toBe(false);
    expect(ctx.state.near > ctx.state.far).toBe(true);
    // A cast at a mesh without a tree asks for one: none was asked for.
    await ctx.trees.idle();
    expect(ctx.trees.treeOf(mesh)).toBeNull();
    f.world.render.renderer = null;
    expect(castRay(ctx, f.world.render.camera!, 0, 0)).toBe(true);
    await ctx.trees.idle();
    expect(ctx.trees.treeOf(mesh)).not.toBeNull();
    ctx.trees.dispose();
  });

  it('with objects, hits them on any layer and outside the models, but nothing under a hidden object', () => {
    const f = fixture();
    const ctx = context(f);
    const handle = new Mesh(new PlaneGeometry(4, 4), new MeshBasicMaterial());
    handle.layers.set(HELPER_LAYER);
    handle.position.z = 3;
    const hidden = new Group();
    hidden.visible = false;
    const under = new Mesh(new PlaneGeometry(4, 4), new MeshBasicMaterial());
    under.position.z = 5;
    hidden.add(under);
    for (const o of [handle, hidden]) o.updateMatrixWorld(true);
    expect(castRay(ctx, f.world.render.camera!, 0, 0, [hidden, handle])).toBe(true);
    expect(ctx.state.best.object).toBe(handle);
    // Without objects: the models only (there are none), so the same handle is not hit.
    f.scene.add(handle);
    expect(castRay(ctx, f.world.render.camera!, 0, 0)).toBe(false);
    ctx.trees.dispose();
  });

  it('keeps the nearest hit over several meshes, not the first one walked', () => {
    const f = fixture();
    addModel(f, 'model-a', [node(box(1, 0, 0, -3), 'far'), node(box(1, 0, 0, 2), 'near'), node(box(1, 0, 0, 0), 'middle')]);
    const ctx = context(f);
    expect(castRay(ctx, f.world.render.camera!, 0, 0)).toBe(true);
    expect(ctx.state.best.object!.name).toBe('near');
    expect(ctx.state.best.distance).toBeCloseTo(7.5, 5);
    ctx.trees.dispose();
  });

  it('throws without a scene when it walks the models', () => {
    const f = fixture();
    f.world.render.scene = null;
    const ctx = context(f);
    expect(() => castRay(ctx, f.world.render.camera!, 0, 0)).toThrow("Scene hasn't been initialised.");
    // A tool's own objects need no scene.
    expect(castRay(ctx, f.world.render.camera!, 0, 0, [new Mesh(new BoxGeometry(), new MeshBasicMaterial())])).toBe(true);
    ctx.trees.dispose();
  });
});
