import { BoxGeometry, Group, Mesh, MeshBasicMaterial, PerspectiveCamera, Scene, Vector3, type Camera, type Object3D } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { expect } from 'vitest';
import { syncObjectMatrices } from '../../../../src/engine/sync';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../../src/engine/world';
import { spawnModel } from '../../../../src/scene/model-entities';
import { createPicker, type ViewerPicker } from '../../../../src/viewer/picking';
import { transformSystem } from '../../../../systems/transformSystem';

/**
 * The picker's test fixture (index, trees and snapping tests): a world with a scene and a camera,
 * models spawned as the viewer does. Not a test file itself.
 */

// ---- a world with a scene and a camera, models spawned as the viewer does ------------------

export interface Fixture {
  world: ViewerWorld;
  scene: Scene;
  picker: ViewerPicker;
}

export function fixture(camera: Camera = perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0))): Fixture {
  const world = createViewerWorld();
  const scene = new Scene();
  world.render.scene = scene;
  world.render.camera = camera;
  return { world, scene, picker: createPicker({ world, useWorker: false }) };
}

export function perspective(position: Vector3, target: Vector3, up = new Vector3(0, 1, 0)): PerspectiveCamera {
  const camera = new PerspectiveCamera(45, 1, 0.1, 2000);
  camera.up.copy(up);
  camera.position.copy(position);
  camera.lookAt(target);
  camera.updateMatrixWorld();
  return camera;
}

/** A model whose default scene holds `nodes` (each a glTF node with a nodeId in its extras). */
export function addModel(f: Fixture, modelId: string, nodes: Object3D[]): ModelRecord {
  const content = new Group();
  const associations = new Map<object, { nodes?: number; materials?: number }>();
  nodes.forEach((node, i) => {
    content.add(node);
    associations.set(node, { nodes: i });
  });
  const materials = new Set<object>();
  for (const node of nodes) {
    node.traverse((o) => {
      const m = (o as Mesh).material;
      if (m) for (const x of Array.isArray(m) ? m : [m]) materials.add(x);
    });
  }
  [...materials].forEach((m, i) => associations.set(m, { materials: i }));
  const gltf = { scene: content, scenes: [content], animations: [], parser: { associations, json: {} } } as unknown as GLTF;
  const record = spawnModel(f.world, gltf, { modelId, name: `${modelId}.glb` });
  f.scene.add(record.root);
  settle(f.world);
  return record;
}

/** World matrices as the frame loop leaves them (entity objects are not updated by three). */
export function settle(world: ViewerWorld): void {
  transformSystem(world);
  syncObjectMatrices(world);
}

export function node(object: Object3D, nodeId: string, name = nodeId): Object3D {
  object.name = name;
  object.userData.nodeId = nodeId;
  return object;
}

export function box(size = 2, x = 0, y = 0, z = 0, material = new MeshBasicMaterial()): Mesh {
  const mesh = new Mesh(new BoxGeometry(size, size, size, 4, 4, 4), material);
  mesh.position.set(x, y, z);
  return mesh;
}

export function expectVector(actual: { x: number; y: number; z: number }, x: number, y: number, z: number, digits = 5): void {
  expect(actual.x).toBeCloseTo(x, digits);
  expect(actual.y).toBeCloseTo(y, digits);
  expect(actual.z).toBeCloseTo(z, digits);
}
