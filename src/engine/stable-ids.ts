import { hasComponent } from 'bitecs';
import type { Material, Object3D } from 'three';
import { ModelMember } from '../../components';
import { getEid } from './registry';
import type { ModelRecord, ViewerWorld } from './world';

/**
 * The one lookup between the specification's stable ids and entities, both ways: modelId + nodeId
 * <-> eid and modelId + materialId <-> material. How an id is derived is src/protocol/stable-ids.ts
 * (shared with the server's optimiser); this module keeps the maps of loaded models. Only spawn and
 * edit code registers; everything else looks up here.
 */

/** An empty record's id maps (spawn code fills them through registerNode and registerMaterial). */
export function createIdMaps(): Pick<ModelRecord, 'nodes' | 'nodeIds' | 'materials' | 'materialIds'> {
  return { nodes: new Map(), nodeIds: new Map(), materials: new Map(), materialIds: new Map() };
}

/** Registers node `nodeId` of a model as entity `eid` (the first registration of an id wins). */
export function registerNode(record: ModelRecord, nodeId: string, eid: number): void {
  if (record.nodes.has(nodeId)) return;
  record.nodes.set(nodeId, eid);
  record.nodeIds.set(eid, nodeId);
}

/** Registers material `materialId` of a model (the first registration of an id wins). Returns whether it was new. */
export function registerMaterial(record: ModelRecord, materialId: string, material: Material): boolean {
  if (record.materials.has(materialId)) return false;
  record.materials.set(materialId, material);
  if (!record.materialIds.has(material)) record.materialIds.set(material, materialId);
  return true;
}

/** The entity of node `nodeId`, or 0. */
export function nodeEid(record: ModelRecord, nodeId: string): number {
  return record.nodes.get(nodeId) ?? 0;
}

/** The node id of entity `eid` in its model, or null when it is not a registered node. */
export function nodeIdOf(record: ModelRecord, eid: number): string | null {
  return record.nodeIds.get(eid) ?? null;
}

export function materialById(record: ModelRecord, materialId: string): Material | undefined {
  return record.materials.get(materialId);
}

export function materialIdOf(record: ModelRecord, material: Material): string | null {
  return record.materialIds.get(material) ?? null;
}

/** The model record an entity belongs to, or null. */
export function modelOfEntity(world: ViewerWorld, eid: number): ModelRecord | null {
  if (!eid || !hasComponent(world, eid, ModelMember)) return null;
  return world.models.get(ModelMember.model[eid]) ?? null;
}

/** The model record with this modelId, or null. */
export function modelById(world: ViewerWorld, modelId: string): ModelRecord | null {
  for (const record of world.models.values()) if (record.modelId === modelId) return record;
  return null;
}

/**
 * The nearest registered node at or above `object` within `record` (a drawable is a node itself or
 * a primitive under its node): its eid, id and name, or null when none is registered up to the root.
 */
export function nearestNode(record: ModelRecord, object: Object3D): { eid: number; nodeId: string; name: string } | null {
  for (let o: Object3D | null = object; o; o = o.parent) {
    const eid = getEid(o);
    const nodeId = eid ? record.nodeIds.get(eid) : undefined;
    if (nodeId !== undefined) return { eid, nodeId, name: o.name };
    if (o === record.root) break;
  }
  return null;
}
