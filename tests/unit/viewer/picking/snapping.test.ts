import {
  Bone,
  BoxGeometry,
  BufferAttribute,
  Group,
  InstancedMesh,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Plane,
  Skeleton,
  SkinnedMesh,
  Vector3,
  type Object3D,
  type WebGLRenderer,
} from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import { SNAP_RADIUS } from '../../../../src/protocol/constants';
import type { PickHit } from '../../../../src/viewer/pick-types';
import { SNAP_CLIP_TOLERANCE, snapToVertex, type SnapContext } from '../../../../src/viewer/picking/snapping';
import { createPickTrees } from '../../../../src/viewer/picking/trees';
import { addModel, box, expectVector, fixture, node, perspective, settle, type Fixture } from './fixture';

// ---- snapping -----------------------------------------------------------------------------------

describe('snapToVertex', () => {
  async function boxScene(): Promise<Fixture & { ndcOf(x: number, y: number, z: number): [number, number] }> {
    const f = fixture(perspective(new Vector3(3, 0, 10), new Vector3(3, 0, 0)));
    addModel(f, 'model-a', [node(box(2, 3, 0, 0), 'n')]);
    await f.picker.prepare([f.scene]);
    const ndcOf = (x: number, y: number, z: number): [number, number] => {
      const p = new Vector3(x, y, z).project(f.world.render.camera!);
      return [p.x, p.y];
    };
    return { ...f, ndcOf };
  }

  it('snaps to the nearest vertex within the radius (default 0.25) and not beyond it', async () => {
    const f = await boxScene();
    // A point 0.1 from the corner (4, 1, 1) of the front face.
    const hit = f.picker.pick(...f.ndcOf(3.93, 0.93, 1))!;
    expectVector(hit.point, 3.93, 0.93, 1, 4);
    const target = new Vector3();
    expect(SNAP_RADIUS).toBe(0.25);
    expect(f.picker.snapToVertex(hit, target)).toBe(target);
    expectVector(target, 4, 1, 1);
    expect(f.picker.snapToVertex(hit, new Vector3(), 0.05)).toBeNull();
    // The box has 4 segments: vertices every 0.5 on the face; (3.5, 0.5, 1) is nearest to (3.6, 0.6, 1).
    const inner = f.picker.pick(...f.ndcOf(3.6, 0.6, 1))!;
    expectVector(f.picker.snapToVertex(inner, target)!, 3.5, 0.5, 1);
    // The middle of a cell is 0.35 from every vertex: nothing within 0.25.
    const middle = f.picker.pick(...f.ndcOf(3.25, 0.25, 1))!;
    expect(f.picker.snapToVertex(middle, target)).toBeNull();
    expect(() => f.picker.snapToVertex(hit, target, -1)).toThrow('snap radius');
  });

  it('with a plane, accepts only vertices within 0.001 of it', async () => {
    const f = await boxScene();
    const hit = f.picker.pick(...f.ndcOf(3.93, 0.93, 1))!;
    const target = new Vector3();
    expectVector(f.picker.snapToVertex(hit, target, 0.25, new Plane(new Vector3(0, 0, 1), -1))!, 4, 1, 1);
    expectVector(f.picker.snapToVertex(hit, target, 0.25, new Plane(new Vector3(0, 0, 1), -1.0009))!, 4, 1, 1);
    expect(f.picker.snapToVertex(hit, target, 0.25, new Plane(new Vector3(0, 0, 1), -1.002))).toBeNull();
    // A plane through the edge x = 4 but not through the corner's neighbours at y = 0.5.
    expectVector(f.picker.snapToVertex(hit, target, 0.6, new Plane(new Vector3(0, 1, 0), -0.5))!, 4, 0.5, 1);
  });

  it('never snaps to a vertex that a section (renderer clipping) plane cuts away', async () => {
    const f = await boxScene();
    // A point 0.1 from the corner (4, 1, 1); a plane keeping y <= 0.95 cuts that corner away.
    const hit = f.picker.pick(...f.ndcOf(3.93, 0.93, 1))!;
    const plane = new Plane(new Vector3(0, -1, 0), 0.95);
    f.world.render.renderer = { clippingPlanes: [plane], localClippingEnabled: true } as unknown as WebGLRenderer;
    const target = new Vector3();
    expect(f.picker.snapToVertex(hit, target)).toBeNull();
    // Vertices on the kept side still qualify: (4, 0.5, 1), 0.44 away, with a wider radius.
    expectVector(f.picker.snapToVertex(hit, target, 0.5)!, 4, 0.5, 1);
    f.world.render.renderer = { clippingPlanes: [], localClippingEnabled: true } as unknown as WebGLRenderer;
    expectVector(f.picker.snapToVertex(hit, target)!, 4, 1, 1);
  });

  it('is instance-aware and skin-aware, and works before a tree exists', async () => {
    const f = fixture(perspective(new Vector3(5, 0, 10), new Vector3(5, 0, 0)));
    const instanced = new InstancedMesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial(), 2);
    instanced.setMatrixAt(0, new Matrix4());
    instanced.setMatrixAt(1, new Matrix4().makeScale(2, 2, 2).setPosition(5, 0, 0));
    addModel(f, 'model-i', [node(instanced, 'inst')]);
    const target = new Vector3();
    const at = (x: number, y: number, z: number) => {
      const p = new Vector3(x, y, z).project(f.world.render.camera!);
      return f.picker.pick(p.x, p.y)!;
    };
    const before = at(5.9, 0.9, 1);
    expect(before.instanceId).toBe(1);
    expectVector(f.picker.snapToVertex(before, target)!, 6, 1, 1);
    await f.picker.prepare([f.scene]);
    const after = at(5.9, 0.9, 1);
    expectVector(f.picker.snapToVertex(after, target)!, 6, 1, 1);
  });

  it('snaps to a skinned mesh\'s posed vertices', async () => {
    const f = fixture(perspective(new Vector3(3, 0, 10), new Vector3(3, 0, 0)));
    const geometry = new BoxGeometry(1, 1, 1);
    const count = geometry.getAttribute('position').count;
    geometry.setAttribute('skinIndex', new BufferAttribute(new Uint16Array(count * 4), 4));
    const weights = new Float32Array(count * 4);
    for (let i = 0; i < count; i++) weights[i * 4] = 1;
    geometry.setAttribute('skinWeight', new BufferAttribute(weights, 4));
    const skinned = new SkinnedMesh(geometry, new MeshBasicMaterial());
    const bone = new Bone();
    const rig = node(new Group(), 'rig');
    rig.add(bone, skinned);
    addModel(f, 'model-s', [rig]);
    skinned.bind(new Skeleton([bone]));
    const { setPosition } = await import('../../../../src/engine/hierarchy');
    setPosition(f.world, bone.userData.eid as number, 3, 0, 0);
    settle(f.world);
    await f.picker.prepare([f.scene]);
    const p = new Vector3(3.4, 0.4, 0.5).project(f.world.render.camera!);
    const hit = f.picker.pick(p.x, p.y)!;
    expectVector(f.picker.snapToVertex(hit, new Vector3())!, 3.5, 0.5, 0.5);
  });
});

// ---- snapToVertex on its own (a hit made by hand, the trees passed in) ------------------------

describe('snapToVertex (the module)', () => {
  function context(): SnapContext {
    return { world: createViewerWorld(), trees: createPickTrees({ useWorker: false }) };
  }

  function hitAt(object: Object3D, x: number, y: number, z: number, instanceId: number | null = null): PickHit {
    return {
      point: new Vector3(x, y, z),
      normal: new Vector3(0, 0, 1),
      distance: 1,
      object,
      eid: 0,
      modelId: null,
      nodeId: null,
      nodeName: '',
      material: null,
      materialId: null,
      instanceId,
      faceIndex: null,
    };
  }

  /** A unit box (one segment) at the origin: corners at +-0.5. */
  function unitBox(): Mesh {
    const mesh = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    mesh.updateMatrixWorld();
    return mesh;
  }

  it('finds vertices along every axis of a non-uniformly scaled mesh (the local query sphere uses the smallest scale)', async () => {
    const ctx = context();
    const mesh = unitBox();
    mesh.scale.set(10, 1, 1);
    mesh.updateMatrixWorld();
    const target = new Vector3();
    for (const prepared of [false, true]) {
      if (prepared) await ctx.trees.prepare([mesh]);
      expect(ctx.trees.treeOf(mesh) !== null).toBe(prepared);
      // (5, 0.5, 0.5) is 0.18 away; no other corner is within 0.25.
      expectVector(snapToVertex(ctx, hitAt(mesh, 4.9, 0.35, 0.5), target)!, 5, 0.5, 0.5);
    }
    ctx.trees.dispose();
  });

  it('asks for the mesh\'s tree when it has none, and gives the same vertex with it', async () => {
    const ctx = context();
    const mesh = unitBox();
    const target = new Vector3();
    expectVector(snapToVertex(ctx, hitAt(mesh, 0.4, 0.45, 0.5), target)!, 0.5, 0.5, 0.5);
    await ctx.trees.idle();
    expect(ctx.trees.treeOf(mesh)).not.toBeNull();
    expectVector(snapToVertex(ctx, hitAt(mesh, 0.4, 0.45, 0.5), new Vector3())!, 0.5, 0.5, 0.5);
    ctx.trees.dispose();
  });

  it('counts a vertex up to SNAP_CLIP_TOLERANCE (1e-6) on the cut side of a section plane as kept', async () => {
    const ctx = context();
    const mesh = unitBox();
    await ctx.trees.prepare([mesh]);
    expect(SNAP_CLIP_TOLERANCE).toBe(1e-6);
    const plane = new Plane(new Vector3(0, -1, 0), 0.5 - 5e-7); // keeps y <= 0.4999995
    ctx.world.render.renderer = { clippingPlanes: [plane], localClippingEnabled: true } as unknown as WebGLRenderer;
    const hit = hitAt(mesh, 0.45, 0.45, 0.5);
    expectVector(snapToVertex(ctx, hit, new Vector3())!, 0.5, 0.5, 0.5);
    plane.constant = 0.5 - 2e-6;
    expect(snapToVertex(ctx, hit, new Vector3())).toBeNull();
    ctx.trees.dispose();
  });

  it('returns null and leaves the target alone for what it cannot snap on', () => {
    const ctx = context();
    const target = new Vector3(7, 7, 7);
    // Nothing within the radius.
    expect(snapToVertex(ctx, hitAt(unitBox(), 0, 0, 0.5), target)).toBeNull();
    // Not a mesh.
    expect(snapToVertex(ctx, hitAt(new Group(), 0.5, 0.5, 0.5), target)).toBeNull();
    // An instanced mesh without a valid instance.
    const instanced = new InstancedMesh(new BoxGeometry(), new MeshBasicMaterial(), 2);
    instanced.setMatrixAt(0, new Matrix4());
    instanced.setMatrixAt(1, new Matrix4());
    for (const id of [null, -1, 2]) expect(snapToVertex(ctx, hitAt(instanced, 0.5, 0.5, 0.5, id), target)).toBeNull();
    expectVector(snapToVertex(ctx, hitAt(instanced, 0.45, 0.5, 0.5, 1), new Vector3())!, 0.5, 0.5, 0.5);
    // A mesh flattened to nothing along an axis.
    const flat = unitBox();
    flat.scale.set(1, 0, 1);
    flat.updateMatrixWorld();
    expect(snapToVertex(ctx, hitAt(flat, 0.5, 0, 0.5), target)).toBeNull();
    expect(target.toArray()).toEqual([7, 7, 7]);
    ctx.trees.dispose();
  });

  it('a disposed picker still answers a snap but starts no build and leaves no listener on the geometry', () => {
    const f = fixture();
    const mesh = unitBox();
    f.picker.dispose();
    const listeners = ((mesh.geometry as unknown as { _listeners?: Record<string, unknown[]> })._listeners?.dispose ?? []).length;
    expectVector(f.picker.snapToVertex(hitAt(mesh, 0.45, 0.45, 0.5), new Vector3())!, 0.5, 0.5, 0.5);
    expect(((mesh.geometry as unknown as { _listeners?: Record<string, unknown[]> })._listeners?.dispose ?? []).length).toBe(listeners);
  });
});
