import { BoxGeometry, Group, Mesh, MeshStandardMaterial, Object3D } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { ModelRecord, ViewerWorld } from '../../src/engine/world';
import { spawnModel } from '../../src/scene/model-entities';

/** A node of a test model: a group with children, or a box mesh (with a material). */
export interface TestNode {
  name: string;
  children?: TestNode[];
  /** A box mesh (with its own material named `${name} paint`) instead of a group. */
  mesh?: boolean;
  position?: [number, number, number];
}

/**
 * A glTF-like model spawned as entities the way the loader's are: node i of the depth-first order
 * is glTF node i (its nodeId is String(i)), meshes' materials are glTF materials in order.
 */
export function spawnTestModel(world: ViewerWorld, nodes: TestNode[], modelId = 'm1', name = 'test.glb'): ModelRecord {
  const content = new Group();
  const associations = new Map<object, { nodes?: number; materials?: number }>();
  let n = 0;
  let m = 0;
  const geometry = new BoxGeometry(1, 1, 1);
  const add = (parent: Object3D, node: TestNode) => {
    let object: Object3D;
    if (node.mesh) {
      const material = new MeshStandardMaterial({ name: `${node.name} paint` });
      associations.set(material, { materials: m++ });
      object = new Mesh(geometry, material);
    } else {
      object = new Group();
    }
    object.name = node.name;
    if (node.position) object.position.set(...node.position);
    associations.set(object, { nodes: n++ });
    parent.add(object);
    for (const child of node.children ?? []) add(object, child);
  };
  for (const node of nodes) add(content, node);
  const gltf = { scene: content, scenes: [content], animations: [], parser: { associations, json: {} } };
  return spawnModel(world, gltf as unknown as GLTF, { modelId, name });
}
