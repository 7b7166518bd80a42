import {
  Bone,
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  Group,
  InstancedMesh,
  Mesh,
  MeshBasicMaterial,
  Skeleton,
  SkinnedMesh,
  TorusKnotGeometry,
} from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPickTrees, WORKER_MIN_TRIANGLES } from '../../../../src/viewer/picking/trees';
import { addModel, box, fixture, node } from './fixture';

// ---- trees ------------------------------------------------------------------------------------

describe('trees', () => {
  it('drops a tree when its geometry is disposed, and rebuilds after an edit while picks stay right', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    const mesh = record.root.getObjectByName('n') as Mesh;
    await f.picker.prepare([record.root]);
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    // Move every vertex 1 unit towards the camera.
    const position = mesh.geometry.getAttribute('position') as BufferAttribute;
    for (let i = 0; i < position.count; i++) position.setZ(i, position.getZ(i) + 1);
    position.needsUpdate = true;
    mesh.geometry.computeBoundingSphere();
    expect(f.picker.treeOf(mesh)).toBeNull();
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(2, 5);
    await f.picker.idle();
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(2, 5);
    mesh.geometry.dispose();
    expect(f.picker.treeOf(mesh)).toBeNull();
  });

  it('takes its dispose listeners off the geometries it watched when it is disposed', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'a'), node(box(1, 3), 'b')]);
    const geometries = ['a', 'b'].map((name) => (record.root.getObjectByName(name) as Mesh).geometry);
    const listeners = (g: BufferGeometry) => ((g as unknown as { _listeners?: Record<string, unknown[]> })._listeners?.dispose ?? []).length;
    const before = geometries.map(listeners);
    await f.picker.prepare([record.root]);
    expect(f.picker.pick(0, 0)).not.toBeNull();
    expect(geometries.map(listeners)).toEqual(before.map((n) => n + 1));
    f.picker.dispose();
    expect(geometries.map(listeners)).toEqual(before);
    // Disposing a geometry afterwards is harmless.
    geometries[0].dispose();
  });
});

// ---- the trees on their own (createPickTrees) -------------------------------------------------

function skinnedBox(): { mesh: SkinnedMesh; bone: Bone } {
  const geometry = new BoxGeometry(1, 1, 1, 2, 2, 2);
  const count = geometry.getAttribute('position').count;
  geometry.setAttribute('skinIndex', new BufferAttribute(new Uint16Array(count * 4), 4));
  const weights = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) weights[i * 4] = 1;
  geometry.setAttribute('skinWeight', new BufferAttribute(weights, 4));
  const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
  const bone = new Bone();
  mesh.add(bone);
  mesh.updateMatrixWorld(true);
  mesh.bind(new Skeleton([bone]));
  return { mesh, bone };
}

const disposeListeners = (g: BufferGeometry) => ((g as unknown as { _listeners?: Record<string, unknown[]> })._listeners?.dispose ?? []).length;

describe('createPickTrees', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('builds no tree until asked, and one static tree per geometry, shared by the meshes drawing it', async () => {
    const trees = createPickTrees({ useWorker: false });
    const geometry = new BoxGeometry(1, 1, 1, 3, 3, 3);
    const a = new Mesh(geometry, new MeshBasicMaterial());
    const b = new Mesh(geometry, new MeshBasicMaterial());
    const root = new Group();
    root.add(a, b);
    expect(trees.treeOf(a)).toBeNull();
    expect(trees.staticTree(geometry)).toBeNull();
    await trees.prepare([root]);
    expect(trees.treeOf(a)).not.toBeNull();
    expect(trees.treeOf(b)).toBe(trees.treeOf(a));
    expect(trees.staticTree(geometry)).toBe(trees.treeOf(a));
    expect(trees.treeOf(a)!.indirect).toBe(true);
    expect(disposeListeners(geometry)).toBe(1);
    trees.dispose();
  });

  it('answers a request during a build with that build, and with null when the tree is current or nothing can be built', async () => {
    const trees = createPickTrees({ useWorker: false });
    const geometry = new BoxGeometry();
    const first = trees.request(geometry, 'box');
    expect(first).not.toBeNull();
    const again = trees.request(geometry, 'box');
    expect(again).not.toBeNull();
    await Promise.all([first, again]);
    expect(trees.staticTree(geometry)).not.toBeNull();
    expect(trees.request(geometry, 'box')).toBeNull();
    expect(trees.request(new BufferGeometry(), 'empty')).toBeNull();
    trees.dispose();
  });

  it('drops a static tree when the geometry\'s index is edited', async () => {
    const trees = createPickTrees({ useWorker: false });
    const geometry = new BoxGeometry();
    await trees.request(geometry, 'box');
    expect(trees.staticTree(geometry)).not.toBeNull();
    geometry.index!.needsUpdate = true;
    expect(trees.staticTree(geometry)).toBeNull();
    trees.dispose();
  });

  it('refits a pose tree only when the pose changed, and builds a new one when the mesh gets another geometry', async () => {
    const trees = createPickTrees({ useWorker: false });
    const { mesh, bone } = skinnedBox();
    expect(trees.treeOf(mesh)).toBeNull();
    await trees.prepare([mesh]);
    const tree = trees.treeOf(mesh)!;
    expect(tree).not.toBeNull();
    let refits = 0;
    const refit = tree.refit.bind(tree);
    tree.refit = ((...args: Parameters<typeof refit>) => (refits++, refit(...args))) as typeof tree.refit;
    expect(trees.poseTree(mesh)).toBe(tree);
    expect(trees.poseTree(mesh)).toBe(tree);
    expect(refits).toBe(0);
    bone.position.x = 2;
    mesh.updateMatrixWorld(true);
    expect(trees.poseTree(mesh)).toBe(tree);
    expect(refits).toBe(1);
    expect(trees.poseTree(mesh)).toBe(tree);
    expect(refits).toBe(1);
    // Another geometry: a new tree (the old one belonged to the old geometry).
    mesh.geometry = skinnedBox().mesh.geometry;
    const next = trees.poseTree(mesh);
    expect(next).not.toBe(tree);
    expect(trees.treeOf(mesh)).toBe(next);
    // Its geometry disposed: the tree goes.
    mesh.geometry.dispose();
    expect(trees.treeOf(mesh)).toBeNull();
    trees.dispose();
  });

  it('gives an instanced mesh its geometry\'s static tree even when the geometry has morph targets', async () => {
    const trees = createPickTrees({ useWorker: false });
    const geometry = new BoxGeometry();
    geometry.morphAttributes.position = [new BufferAttribute(new Float32Array(geometry.getAttribute('position').count * 3), 3)];
    const instanced = new InstancedMesh(geometry, new MeshBasicMaterial(), 2);
    await trees.prepare([instanced]);
    expect(trees.treeOf(instanced)).toBe(trees.staticTree(geometry));
    expect(trees.treeOf(instanced)).not.toBeNull();
    trees.dispose();
  });

  it('sends to the worker by the triangles a geometry draws (its draw range), from workerMinTriangles up', async () => {
    let started = 0;
    // A worker the page refuses: the builder then builds on the calling thread, but it was asked.
    vi.stubGlobal(
      'Worker',
      class {
        constructor() {
          started++;
          throw new Error('refused');
        }
      },
    );
    const small = createPickTrees({ useWorker: true, workerMinTriangles: 1000 });
    const drawnPart = new TorusKnotGeometry(5, 1.5, 100, 16); // 3200 triangles, of which 300 are drawn
    drawnPart.setDrawRange(0, 900);
    await small.request(drawnPart, 'part');
    expect(started).toBe(0);
    expect(small.staticTree(drawnPart)).not.toBeNull();
    small.dispose();
    const large = createPickTrees({ useWorker: true, workerMinTriangles: 1000 });
    const whole = new TorusKnotGeometry(5, 1.5, 100, 16);
    await large.request(whole, 'whole');
    expect(started).toBe(1);
    expect(large.staticTree(whole)).not.toBeNull();
    large.dispose();
    expect(WORKER_MIN_TRIANGLES).toBe(20_000);
  });

  it('reports a tree that cannot be built, and goes on without it', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const trees = createPickTrees({ useWorker: false });
    // Skinned but never bound: posing a vertex fails.
    const unbound = new SkinnedMesh(new BoxGeometry(), new MeshBasicMaterial());
    unbound.name = 'Unbound';
    const fine = new Mesh(new BoxGeometry(), new MeshBasicMaterial());
    await trees.prepare([unbound, fine]);
    await trees.idle();
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toContain('"Unbound" could not be built');
    expect(trees.treeOf(unbound)).toBeNull();
    expect(trees.treeOf(fine)).not.toBeNull();
    trees.dispose();
  });

  it('starts nothing once disposed: no build, no listener on the geometry', async () => {
    const trees = createPickTrees({ useWorker: false });
    trees.dispose();
    const geometry = new BoxGeometry();
    expect(trees.request(geometry, 'box')).toBeNull();
    await trees.prepare([new Mesh(geometry, new MeshBasicMaterial())]);
    await trees.idle();
    expect(trees.staticTree(geometry)).toBeNull();
    expect(disposeListeners(geometry)).toBe(0);
  });
});
