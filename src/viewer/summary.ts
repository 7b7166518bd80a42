import type { ModelRecord } from '../engine/world';
import { listAnimations, type AnimationInfo } from './animation';
import { isDrawable } from './picking/drawables';

export interface ModelSummary {
  modelId: string;
  name: string;
  /** glTF nodes of the default scene registered by nodeId. */
  nodes: number;
  /** Drawable objects (one per primitive and node; an instanced mesh counts once; the batches that draw them none). */
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
    if (isDrawable(o)) meshes++;
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
