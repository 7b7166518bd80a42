import { BoxGeometry, Group, Mesh, MeshBasicMaterial, PerspectiveCamera, Plane, Scene, Vector3, type Object3D, type WebGLRenderer } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { syncObjectMatrices } from '../../../../src/engine/sync';
import { createViewerWorld, type ViewerWorld } from '../../../../src/engine/world';
import { spawnModel } from '../../../../src/scene/model-entities';
import { createPicker, type ViewerPicker } from '../../../../src/viewer/picking';
import { buildCap } from '../../../../src/viewer/tools/section-cap';
import { capPart, createSurfacePicker, type CapPart, type SurfacePicker } from '../../../../src/viewer/tools/surface-picker';
import { transformSystem } from '../../../../systems/transformSystem';

/**
 * A 2 m cube (x, y, z in -1..1, single-sided) in a model, cut by section planes as the section tool
 * does it: the planes are the renderer's clipping planes, the caps built by buildCap.
 */
interface Fixture {
  world: ViewerWorld;
  picker: ViewerPicker;
  surfaces: SurfacePicker;
  box: Mesh;
  planes: Plane[];
  parts: CapPart[];
  camera: PerspectiveCamera;
  ndcOf(x: number, y: number, z: number): [number, number];
  cut(plane: Plane, capped?: boolean): void;
}

async function fixture(eye: Vector3, up = new Vector3(0, 1, 0)): Promise<Fixture> {
  const world = createViewerWorld();
  const scene = new Scene();
  const camera = new PerspectiveCamera(45, 1, 0.1, 100);
  camera.up.copy(up);
  camera.position.copy(eye);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  world.render.scene = scene;
  world.render.camera = camera;
  const planes: Plane[] = [];
  world.render.renderer = { clippingPlanes: planes, localClippingEnabled: true } as unknown as WebGLRenderer;

  const box = new Mesh(new BoxGeometry(2, 2, 2), new MeshBasicMaterial());
  box.name = 'Wall';
  box.userData.nodeId = 'wall-node';
  const content = new Group();
  content.add(box);
  const associations = new Map<object, { nodes?: number; materials?: number }>([
    [box, { nodes: 0 }],
    [box.material, { materials: 0 }],
  ]);
  const gltf = { scene: content, scenes: [content], animations: [], parser: { associations, json: {} } } as unknown as GLTF;
  const record = spawnModel(world, gltf, { modelId: 'model-w', name: 'w.glb' });
  scene.add(record.root);
  transformSystem(world);
  syncObjectMatrices(world);
  scene.updateMatrixWorld(true);

  const picker = createPicker({ world, useWorker: false });
  await picker.prepare([scene]);
  const parts: CapPart[] = [];
  const surfaces = createSurfacePicker({ world, picker: () => picker, caps: () => parts });
  const drawn = (o: Object3D): o is Mesh => (o as Mesh).isMesh === true;
  const found = record.root.getObjectByName('Wall');
  if (!found || !drawn(found)) throw new Error('The box was not spawned.');
  return {
    world,
    picker,
    surfaces,
    box: found,
    planes,
    parts,
    camera,
    ndcOf(x, y, z) {
      const p = new Vector3(x, y, z).project(camera);
      return [p.x, p.y];
    },
    cut(plane, capped = true) {
      planes.push(plane);
      if (capped) parts.push(capPart(plane, found, buildCap(found, plane)!));
    },
  };
}

const expectVector = (actual: Vector3, x: number, y: number, z: number, digits = 5) => {
  expect(actual.x).toBeCloseTo(x, digits);
  expect(actual.y).toBeCloseTo(y, digits);
  expect(actual.z).toBeCloseTo(z, digits);
};

/** Keeps y <= 0.5: a horizontal cut through the cube, its cap a 2 x 2 square at y = 0.5. */
const horizontal = () => new Plane(new Vector3(0, -1, 0), 0.5);

describe('surface picker: section caps', () => {
  it('hits a cap where the picker alone passes through the cut, with the cut node and the plane as normal', async () => {
    // Looking straight down into the cut cube.
    const f = await fixture(new Vector3(0, 6, 0), new Vector3(0, 0, -1));
    f.cut(horizontal());
    const at = f.ndcOf(0.3, 0.5, 0.2);
    // The box is single-sided: inside the cut the ray meets only back faces.
    expect(f.picker.pick(...at)).toBeNull();
    const hit = f.surfaces.pick(...at)!;
    expect(hit).not.toBeNull();
    expectVector(hit.point, 0.3, 0.5, 0.2);
    expect(hit.distance).toBeCloseTo(Math.hypot(0.3, 5.5, 0.2), 4);
    expect(hit.nodeId).toBe('wall-node');
    expect(hit.modelId).toBe('model-w');
    expect(hit.object).toBe(f.box);
    // The cap's plane, facing the camera: an area started here works on the section plane.
    expectVector(hit.normal, 0, 1, 0);
    expect(f.surfaces.capOf(hit)).toBe(f.parts[0]);
    // Beside the cube there is no cap.
    expect(f.surfaces.pick(...f.ndcOf(1.3, 0.5, 0))).toBeNull();
    // Without caps (an open mesh, or none built) the cut stays empty.
    f.parts.length = 0;
    expect(f.surfaces.pick(...at)).toBeNull();
  });

  it('keeps a mesh surface in front of a cap, and a cap in front of what lies behind it', async () => {
    const f = await fixture(new Vector3(3, 4, 5));
    f.cut(horizontal());
    // The front face (z = 1) below the cut is nearer than any cap point behind it.
    const front = f.surfaces.pick(...f.ndcOf(0, 0, 1))!;
    expect(f.surfaces.capOf(front)).toBeNull();
    expectVector(front.point, 0, 0, 1, 4);
    // On the cap, seen from above at an angle.
    const cap = f.surfaces.pick(...f.ndcOf(-0.2, 0.5, -0.3))!;
    expect(f.surfaces.capOf(cap)).not.toBeNull();
    expectVector(cap.point, -0.2, 0.5, -0.3, 4);
  });

  it('snaps on a cap to the outline vertex (where mesh edges cross the plane), on the working plane only', async () => {
    const f = await fixture(new Vector3(0, 6, 0), new Vector3(0, 0, -1));
    f.cut(horizontal());
    const hit = f.surfaces.pick(...f.ndcOf(0.9, 0.5, 0.93))!;
    expect(f.surfaces.capOf(hit)).not.toBeNull();
    const target = new Vector3();
    expect(f.surfaces.snapToVertex(hit, target)).toBe(target);
    expectVector(target, 1, 0.5, 1);
    // The picker alone has no vertex there: the cube's corners are 0.5 above or 1.5 below.
    expect(f.picker.snapToVertex(hit, new Vector3())).toBeNull();
    // Restricted to the section plane itself (an area on the cut): the corner lies on it.
    expectVector(f.surfaces.snapToVertex(hit, target, 0.25, new Plane(new Vector3(0, 1, 0), -0.5))!, 1, 0.5, 1);
    expect(f.surfaces.snapToVertex(hit, target, 0.25, new Plane(new Vector3(0, 1, 0), -0.502))).toBeNull();
    // Where a face's diagonal crosses the plane (x = 0.5 on the front face) the outline runs
    // straight on: not a corner, not a snap target.
    const onDiagonal = f.surfaces.pick(...f.ndcOf(0.5, 0.5, 0.95))!;
    expect(f.parts[0].outline.length / 3).toBeGreaterThan(4);
    expect(f.parts[0].corners).toHaveLength(4);
    expect(f.surfaces.snapToVertex(onDiagonal, target)).toBeNull();
    // In the middle of the cap, no vertex within 0.25.
    expect(f.surfaces.snapToVertex(f.surfaces.pick(...f.ndcOf(0, 0.5, 0))!, target)).toBeNull();
  });

  it('snaps on a side face to the corner of the cut, never to a corner the plane cut away', async () => {
    const f = await fixture(new Vector3(5, 3, 4));
    f.cut(new Plane(new Vector3(0, -1, 0), 0.9)); // keeps y <= 0.9
    // On the right face (x = 1) near its top front corner (1, 1, 1), which is cut away.
    const hit = f.surfaces.pick(...f.ndcOf(1, 0.85, 0.9))!;
    expect(f.surfaces.capOf(hit)).toBeNull();
    expectVector(hit.point, 1, 0.85, 0.9, 4);
    const target = new Vector3();
    // The picker no longer snaps to the cut-away corner 0.18 away...
    expect(f.picker.snapToVertex(hit, target)).toBeNull();
    // ...and the surface picker snaps to where the cut crosses that edge.
    expect(f.surfaces.snapToVertex(hit, target)).toBe(target);
    expectVector(target, 1, 0.9, 1);
  });

  it('never hits a cap, nor snaps to its vertices, where another plane cuts it away', async () => {
    const f = await fixture(new Vector3(0, 6, 0), new Vector3(0, 0, -1));
    f.cut(horizontal());
    // A second plane keeps x <= 0.8 (its own cap is left out here: only the first plane's cap is tested).
    f.cut(new Plane(new Vector3(-1, 0, 0), 0.8), false);
    const kept = f.surfaces.pick(...f.ndcOf(0.5, 0.5, 0.2))!;
    expect(f.surfaces.capOf(kept)).toBe(f.parts[0]);
    expect(f.surfaces.pick(...f.ndcOf(0.9, 0.5, 0.2))).toBeNull();
    // Near the kept edge at x = 0.8 the corner (1, 0.5, 1) is 0.32 away, but cut away.
    const nearCut = f.surfaces.pick(...f.ndcOf(0.7, 0.5, 0.9))!;
    expect(f.surfaces.capOf(nearCut)).not.toBeNull();
    expect(f.surfaces.snapToVertex(nearCut, new Vector3(), 0.5)).toBeNull();
    // The second plane gone, the same places hit the cap and snap to the corner.
    f.planes.pop();
    expect(f.surfaces.capOf(f.surfaces.pick(...f.ndcOf(0.9, 0.5, 0.2))!)).toBe(f.parts[0]);
    expectVector(f.surfaces.snapToVertex(f.surfaces.pick(...f.ndcOf(0.7, 0.5, 0.9))!, new Vector3(), 0.5)!, 1, 0.5, 1);
  });

  it('does not hit a cap of a hidden mesh, or one in front of the near plane', async () => {
    const f = await fixture(new Vector3(0, 6, 0), new Vector3(0, 0, -1));
    f.cut(horizontal());
    const at = f.ndcOf(0.3, 0.5, 0.2);
    f.camera.near = 5.6;
    f.camera.updateProjectionMatrix();
    expect(f.surfaces.pick(...at)).toBeNull();
    f.camera.near = 0.1;
    f.camera.updateProjectionMatrix();
    expect(f.surfaces.pick(...at)).not.toBeNull();
    f.box.visible = false;
    expect(f.surfaces.pick(...at)).toBeNull();
  });
});
