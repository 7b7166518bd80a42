import type { Mesh } from 'three';
import type { ModelRecord } from '../engine/world';
import { listAnimations, type AnimationInfo } from './animation';

export interface ModelSummary {
  modelId: string;
  name: string;
  /** glTF nodes of the default scene registered by nodeId. */
  nodes: number;
  /** Drawable objects (one per primitive and node; an instanced mesh counts once). */
  meshes: number;
  materials: number;
  textures: number;
  animations: AnimationInfo[];
  entities: number;
}

/** What a loaded model holds, as plain data (the debug handle, tests, the host API). */
export function summarize(record: ModelRecord): ModelSummary {
  let meshes = 0;
  record.root.traverse((o) => {
    if ((o as Mesh).isMesh) meshes++;
  });
  return {
    modelId: record.modelId,
    name: record.name,
    nodes: record.nodes.size,
    meshes,
    materials: record.materials.size,
    textures: record.textures.size,
    animations: listAnimations(record),
    entities: record.entities.length,
  };
}
