import { hasComponent } from 'bitecs';
import { Matrix3, type Material, type Mesh, type Object3D, type Vector3 } from 'three';
import { ModelMember } from '../../../components';
import { instanceGroupOfMesh } from '../../engine/instances';
import { findEntityOf } from '../../engine/registry';
import { materialIdOf, nearestNode } from '../../engine/stable-ids';
import type { ModelRecord, ViewerWorld } from '../../engine/world';
import type { HitEventData } from '../events';
import type { PickHit } from '../pick-types';
import type { PickState } from './state';

/**
 * Hits as the picker returns them: the ids of what was hit (through src/engine/stable-ids.ts), the
 * world normal facing the ray, fresh vectors the caller owns; and a hit as plain event data.
 */

/** The ids of a hit drawable and material. */
export interface HitIds {
  /** The entity of the hit node (0 when the object has none, e.g. a helper). */
  eid: number;
  /** The model the object belongs to, or null. */
  record: ModelRecord | null;
  nodeId: string | null;
  nodeName: string;
  materialId: string | null;
}

// Scratch.
const normalMatrix = new Matrix3();

/** The ids of `object` drawn with `material`: its model, the nearest registered node, the material's id. */
export function describe(world: ViewerWorld, object: Object3D, material: Material | null): HitIds {
  const entity = findEntityOf(object);
  const modelEid = entity && hasComponent(world, entity, ModelMember) ? ModelMember.model[entity] : 0;
  const record = modelEid ? (world.models.get(modelEid) ?? null) : null;
  if (!record) return { eid: entity, record: null, nodeId: null, nodeName: object.name, materialId: null };
  const materialId = material ? materialIdOf(record, material) : null;
  // The hit drawable is a node itself or a primitive under its node: the nearest registered node.
  const node = nearestNode(record, object);
  if (node) return { eid: node.eid, record, nodeId: node.nodeId, nodeName: node.name, materialId };
  return { eid: entity, record, nodeId: null, nodeName: object.name, materialId };
}

/**
 * The hit of a pick, from its best hit (`state.best`, which must hold an object): the world normal
 * of the hit triangle facing the ray (the reversed ray where the triangle has none), the material
 * of the hit face, the ids.
 */
export function makeHit(world: ViewerWorld, state: PickState): PickHit {
  const { best, ray } = state;
  const object = best.object!;
  const normal = best.localNormal.clone();
  normalMatrix.getNormalMatrix(best.matrix);
  normal.applyMatrix3(normalMatrix).normalize();
  if (normal.lengthSq() === 0 || !Number.isFinite(normal.x)) normal.copy(ray.direction).negate();
  else if (normal.dot(ray.direction) > 0) normal.negate();
  const materials = object.material;
  const material = (Array.isArray(materials) ? materials[best.materialIndex] : materials) ?? null;
  const hit = hitData(describe(world, object, material), best.point.clone(), normal, best.distance, object, material, best.instanceId, best.faceIndex);
  const group = instanceGroupOfMesh(world, object);
  if (group) hit.groupId = group.uuid;
  return hit;
}

/**
 * A hit on `object` at a point found by other means (a section cap: the cut face of `object`), with
 * the ids a pick of `object` gives (its first material). The vectors are copied.
 */
export function hitOn(world: ViewerWorld, object: Mesh, point: Vector3, normal: Vector3, distance: number): PickHit {
  const materials = object.material;
  const material = (Array.isArray(materials) ? materials[0] : materials) ?? null;
  return hitData(describe(world, object, material), point.clone(), normal.clone(), distance, object, material, -1, -1);
}

/** A hit as plain data, for the 'hit' event and the host API. */
export function toHitEventData(hit: PickHit): HitEventData {
  return {
    point: { x: hit.point.x, y: hit.point.y, z: hit.point.z },
    normal: { x: hit.normal.x, y: hit.normal.y, z: hit.normal.z },
    modelId: hit.modelId,
    nodeId: hit.nodeId,
    nodeName: hit.nodeName,
    materialId: hit.materialId,
    materialName: hit.material?.name ?? '',
    instanceId: hit.instanceId,
    groupId: hit.groupId ?? null,
  };
}

/** The hit object; instanceId and faceIndex below 0 mean none. */
function hitData(
  ids: HitIds,
  point: Vector3,
  normal: Vector3,
  distance: number,
  object: Mesh,
  material: Material | null,
  instanceId: number,
  faceIndex: number,
): PickHit {
  return {
    point,
    normal,
    distance,
    object,
    eid: ids.eid,
    modelId: ids.record ? ids.record.modelId : null,
    nodeId: ids.nodeId,
    nodeName: ids.nodeName,
    material,
    materialId: ids.materialId,
    instanceId: instanceId >= 0 ? instanceId : null,
    faceIndex: faceIndex >= 0 ? faceIndex : null,
  };
}
