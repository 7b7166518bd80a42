import { Color, Texture, Vector2, type Material, type Mesh, type Object3D } from 'three';
import { Shadows, Visibility } from '../../components';
import { materialById, nodeEid } from '../engine/stable-ids';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import {
  MaterialProperties as MaterialPropertiesSchema,
  TEXTURE_MAP_PROPERTIES,
  type MaterialProperties,
  type NodeProperties,
  type TextureMap,
} from '../protocol/mutation';
import { localMatrixOf } from './gizmo';

/** A node's material as the editor shows it: the first material of its first mesh, by id. */
export function materialOfNode(record: ModelRecord, object: Object3D): string | null {
  let found: string | null = null;
  object.traverse((o) => {
    if (found) return;
    const mesh = o as Mesh;
    if (!mesh.isMesh) return;
    const material = (Array.isArray(mesh.material) ? mesh.material[0] : mesh.material) as Material;
    found = record.materialIds.get(material) ?? null;
  });
  return found;
}

/** A node's current values of the given properties; throws when the model has no such node. */
export function readNodeProperties(world: ViewerWorld, record: ModelRecord, nodeId: string, keys: readonly (keyof NodeProperties)[]): NodeProperties {
  const eid = nodeEid(record, nodeId);
  const object = world.objects[eid];
  if (!eid || !object) throw new Error(`The model has no node '${nodeId}'.`);
  const out: NodeProperties = {};
  for (const key of keys) {
    if (key === 'matrix') out.matrix = localMatrixOf(eid);
    else if (key === 'visible') out.visible = Visibility.visible[eid] === 1;
    else if (key === 'name') out.name = object.name;
    else if (key === 'castShadow') out.castShadow = Shadows.cast[eid] === 1;
    else if (key === 'receiveShadow') out.receiveShadow = Shadows.receive[eid] === 1;
    else if (key === 'material') {
      const materialId = materialOfNode(record, object);
      if (materialId) out.material = materialId;
    }
  }
  return out;
}

const TEXTURE_MAPS = new Set<string>(TEXTURE_MAP_PROPERTIES);

/** A material's current values of the given properties (maps as mutations carry them); throws when the model has no such material. */
export function readMaterialProperties(record: ModelRecord, materialId: string, keys: readonly string[]): MaterialProperties {
  const material = materialById(record, materialId) as unknown as Record<string, unknown> | undefined;
  if (!material) throw new Error(`The model has no material '${materialId}'.`);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = material[key];
    if (TEXTURE_MAPS.has(key)) {
      // Only the maps this kind of material has.
      if (value === undefined) continue;
      out[key] = value instanceof Texture ? textureInfoOf(record, value) : null;
      continue;
    }
    if (value instanceof Color) out[key] = value.getHex();
    else if (value instanceof Vector2) out[key] = [value.x, value.y];
    else if (typeof value === 'number' || typeof value === 'string') out[key] = value;
  }
  return out as MaterialProperties;
}

/** The material values createMaterial copies (maps by their texture ids). */
const MATERIAL_VALUE_KEYS = Object.keys(MaterialPropertiesSchema.shape).filter((k) => k !== 'name');

/**
 * What a new material copied from `from` starts with: its listed values, less any map whose
 * texture the model does not name (a mutation cannot carry it).
 */
export function materialCopyOf(record: ModelRecord, from: string): Record<string, unknown> {
  const copied: Record<string, unknown> = { ...readMaterialProperties(record, from, MATERIAL_VALUE_KEYS) };
  for (const key of TEXTURE_MAP_PROPERTIES) {
    const map = copied[key] as TextureMap | undefined;
    if (map === null || (map && map.textureId === undefined)) delete copied[key];
  }
  return copied;
}

/** A texture map's value as a mutation carries it: the texture's id in the model and its texture info. */
export function textureInfoOf(record: ModelRecord, texture: Texture): TextureMap {
  // An uploaded texture may be drawn through its twin in the other colour space (mapTexture).
  let textureId = texture.userData.uploadedTextureId as string | undefined;
  for (const [id, t] of record.textures) if (t === texture) textureId = id;
  return {
    ...(textureId !== undefined ? { textureId } : {}),
    wrapS: texture.wrapS,
    wrapT: texture.wrapT,
    magFilter: texture.magFilter,
    minFilter: texture.minFilter,
    scale: [texture.repeat.x, texture.repeat.y],
    rotation: texture.rotation,
  } as TextureMap;
}
