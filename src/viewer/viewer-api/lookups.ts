import { Color, Euler, MathUtils, Quaternion, type Material, type MeshStandardMaterial, type Object3D, type Texture } from 'three';
import { Transform, Visibility } from '../../../components';
import { getEid } from '../../engine/registry';
import { modelById, nodeEid, nodeIdOf } from '../../engine/stable-ids';
import type { ModelRecord, ViewerWorld } from '../../engine/world';
import type { HostResult } from '../../protocol/host-api';
import { TEXTURE_MAP_PROPERTIES } from '../../protocol/mutation';

/**
 * The host API's lookups by the specification's ids (models, nodes, materials) and the answers
 * that describe them; every lookup throws the sentence the host page gets when the id is unknown.
 */
export interface Lookups {
  record(modelId: string): ModelRecord;
  node(modelId: string, nodeId: string): { rec: ModelRecord; eid: number; object: Object3D };
  /** The nodes right below `object` (a non-node object in between is looked through), appended to `out`. */
  childNodes(rec: ModelRecord, object: Object3D, out: { id: string; object: Object3D }[]): { id: string; object: Object3D }[];
  nodeInfo(rec: ModelRecord, eid: number, object: Object3D): HostResult<'getNode'>;
  material(modelId: string, materialId: string): { rec: ModelRecord; mat: Material };
  materialInfo(rec: ModelRecord, materialId: string, mat: Material): HostResult<'getMaterial'>;
}

const quat = new Quaternion();
const euler = new Euler();

export function createLookups(world: ViewerWorld): Lookups {
  const record = (modelId: string): ModelRecord => {
    const found = modelById(world, modelId);
    if (!found) throw new Error(`There is no loaded model '${modelId}'.`);
    return found;
  };
  /** The nearest registered node above `object` (or the node itself). */
  const parentNodeId = (rec: ModelRecord, object: Object3D): string | null => {
    for (let o = object.parent; o; o = o.parent) {
      const id = nodeIdOf(rec, getEid(o));
      if (id !== null) return id;
      if (o === rec.root) break;
    }
    return null;
  };
  const childNodes: Lookups['childNodes'] = (rec, object, out) => {
    const stack = [...object.children].reverse();
    while (stack.length) {
      const o = stack.pop()!;
      const id = nodeIdOf(rec, getEid(o));
      if (id !== null) out.push({ id, object: o });
      else for (let i = o.children.length - 1; i >= 0; i--) stack.push(o.children[i]);
    }
    return out;
  };
  return {
    record,
    node(modelId, nodeId) {
      const rec = record(modelId);
      const eid = nodeEid(rec, nodeId);
      const object = eid === 0 ? undefined : world.objects[eid];
      if (eid === 0 || !object) throw new Error(`Model '${modelId}' has no node '${nodeId}'.`);
      return { rec, eid, object };
    },
    childNodes,
    nodeInfo(rec, eid, object) {
      const p = eid * 3;
      quat.fromArray(Transform.rotation, eid * 4);
      euler.setFromQuaternion(quat, 'XYZ');
      return {
        modelId: rec.modelId,
        nodeId: nodeIdOf(rec, eid) ?? '',
        name: object.name,
        type: object.type,
        visible: Visibility.visible[eid] === 1,
        translation: [Transform.position[p], Transform.position[p + 1], Transform.position[p + 2]],
        rotation: [MathUtils.radToDeg(euler.x), MathUtils.radToDeg(euler.y), MathUtils.radToDeg(euler.z)],
        scale: [Transform.scale[p], Transform.scale[p + 1], Transform.scale[p + 2]],
        parentId: parentNodeId(rec, object),
        children: childNodes(rec, object, []).map((c) => c.id),
      };
    },
    material(modelId, materialId) {
      const rec = record(modelId);
      const mat = rec.materials.get(materialId);
      if (!mat) throw new Error(`Model '${modelId}' has no material '${materialId}'.`);
      return { rec, mat };
    },
    materialInfo(rec, materialId, mat) {
      const m = mat as MeshStandardMaterial;
      const maps: Record<string, string | null> = {};
      const ids = new Map<Texture, string>();
      for (const [id, texture] of rec.textures) ids.set(texture, id);
      for (const key of TEXTURE_MAP_PROPERTIES) {
        const texture = (m as unknown as Record<string, Texture | null | undefined>)[key];
        if (texture) maps[key] = ids.get(texture) ?? null;
      }
      return {
        modelId: rec.modelId,
        materialId,
        name: mat.name,
        type: mat.type,
        color: m.color instanceof Color ? `#${m.color.getHexString()}` : null,
        opacity: mat.opacity,
        transparent: mat.transparent,
        metalness: typeof m.metalness === 'number' ? m.metalness : null,
        roughness: typeof m.roughness === 'number' ? m.roughness : null,
        emissive: m.emissive instanceof Color ? `#${m.emissive.getHexString()}` : null,
        emissiveIntensity: typeof m.emissiveIntensity === 'number' ? m.emissiveIntensity : null,
        maps,
      };
    },
  };
}

/** A vector as the host API's [x, y, z]. */
export const tuple = (v: { x: number; y: number; z: number }): [number, number, number] => [v.x, v.y, v.z];
