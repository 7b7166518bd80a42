import type { Document, Property } from '@gltf-transform/core';
import { hasStableId, indexId, MATERIAL_ID_KEY, NODE_ID_KEY } from '../../protocol/stable-ids.ts';

/**
 * Stamps the stable ids of src/protocol/stable-ids.ts (the one rule, shared with the browser's
 * spawn code) into a model's extras, so that an optimised derivative, whose node and material lists
 * are no longer those of the upload, gives every node and material the id the upload gave it.
 */

/** A property's extras as an object ({} when it has none or they are not an object). */
export function extrasOf(property: Property): Record<string, unknown> {
  const extras = property.getExtras();
  return typeof extras === 'object' && extras !== null && !Array.isArray(extras) ? (extras as Record<string, unknown>) : {};
}

/**
 * Stamps `extras.nodeId` on every node and `extras.materialId` on every material from its index in
 * the file, keeping ids already there (a model exported from a derivative keeps its ids).
 * Returns how many were stamped.
 */
export function stampStableIds(doc: Document): { nodes: number; materials: number } {
  const root = doc.getRoot();
  let nodes = 0;
  let materials = 0;
  root.listNodes().forEach((node, index) => {
    if (hasStableId(extrasOf(node), NODE_ID_KEY)) return;
    node.setExtras({ ...extrasOf(node), [NODE_ID_KEY]: indexId(index) });
    nodes++;
  });
  root.listMaterials().forEach((material, index) => {
    if (hasStableId(extrasOf(material), MATERIAL_ID_KEY)) return;
    material.setExtras({ ...extrasOf(material), [MATERIAL_ID_KEY]: indexId(index) });
    materials++;
  });
  return { nodes, materials };
}
