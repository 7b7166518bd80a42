/**
 * The one rule for the stable ids of a model's contents (viewer specification section 3: nodeId,
 * primitiveId, materialId, textureId), shared by the upload optimiser (src/server/upload/stable-ids.ts), which
 * stamps them into the derivative's extras, and the browser's spawn code
 * (src/scene/model-entities.ts), which reads them back. Saved mutations name nodes and materials by
 * these ids, so both sides must agree on every byte.
 *
 * - A node's id is its `extras.nodeId` when it has a non-empty one, else its index in the file's
 *   node list; a material's the same with `extras.materialId` and the material list. The optimiser
 *   stamps the index of the file as uploaded, so an optimised derivative and the original file give
 *   the same ids.
 * - A primitive's id is `{nodeId}/{primitive index}`.
 * - Sibling nodes merged into one instanced node (EXT_mesh_gpu_instancing) keep their ids in
 *   `extras.instanceNodeIds[i]` (instance i's node) and the merged node is `instances:{first id}`.
 */

export const NODE_ID_KEY = 'nodeId';
export const MATERIAL_ID_KEY = 'materialId';
export const INSTANCE_NODE_IDS_KEY = 'instanceNodeIds';
export const INSTANCE_NAMES_KEY = 'instanceNames';

type Extras = Record<string, unknown> | null | undefined;

/** The id given to the index-th node or material that carries none. */
export function indexId(index: number): string {
  return String(index);
}

/** Whether `extras` carries a usable id under `key`. */
export function hasStableId(extras: Extras, key: typeof NODE_ID_KEY | typeof MATERIAL_ID_KEY): boolean {
  const id = extras?.[key];
  return typeof id === 'string' && id.length > 0;
}

/** The stable id of the index-th node or material with these extras (`index` < 0: none known, null). */
export function stableId(extras: Extras, key: typeof NODE_ID_KEY | typeof MATERIAL_ID_KEY, index: number): string | null {
  if (hasStableId(extras, key)) return extras![key] as string;
  return index >= 0 ? indexId(index) : null;
}

export function primitiveId(nodeId: string, primitive: number): string {
  return `${nodeId}/${primitive}`;
}

/** The id of the node that replaces merged instanced siblings, from the first sibling's id. */
export function instancedNodeId(firstSourceId: string): string {
  return `instances:${firstSourceId}`;
}

/** The node id of instance `instance` of a merged instanced node, or null when it has none. */
export function instanceSourceId(extras: Extras, instance: number): string | null {
  const ids = extras?.[INSTANCE_NODE_IDS_KEY];
  if (!Array.isArray(ids) || instance < 0 || instance >= ids.length) return null;
  const id = ids[instance];
  return typeof id === 'string' && id.length > 0 ? id : null;
}
