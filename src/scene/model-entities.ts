import { addComponent } from 'bitecs';
import {
  AnimationMixer,
  Group,
  PropertyBinding,
  type AnimationClip,
  type Material,
  type Mesh,
  type Object3D,
  type Texture,
} from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { Animated, AnimationState, Light, LightType, Model, ModelMember, Renderable, Shadows, Visibility } from '../../components';
import { addTransform, removeTransformEntity } from '../engine/hierarchy';
import { isLight, lightTypeOf } from '../engine/lights';
import { removeModelBatches } from '../engine/model-batches';
import { setModelMoving } from '../engine/moving-casters';
import { bindObject, unbindObject } from '../engine/registry';
import { materialTextures, releaseObjectResources, retainObjectResources } from '../engine/resources';
import { detachFromThreeMatrixUpdates } from '../engine/sync';
import { addViewerEntity, type AnimationEntry, type ModelRecord, type ViewerWorld } from '../engine/world';
import { indexId, MATERIAL_ID_KEY, NODE_ID_KEY, primitiveId, stableId } from '../protocol/stable-ids';
import { createIdMaps, registerMaterial as registerMaterialId, registerNode } from '../engine/stable-ids';

interface Association {
  nodes?: number;
  meshes?: number;
  primitives?: number;
  materials?: number;
  textures?: number;
}

export interface SpawnModelOptions {
  modelId: string;
  /** The model's scene name (its sourceFileName). */
  name: string;
}

/**
 * Turns a parsed glTF into entities: one per Object3D of its default scene (the model root first,
 * parents before children), each with Transform, Visibility, Shadows and ModelMember, bound in the
 * registry. Registers nodeId, primitiveId, materialId, textureId and the animations in the model
 * record. Instanced meshes (EXT_mesh_gpu_instancing) stay one InstancedMesh entity.
 */
export function spawnModel(world: ViewerWorld, gltf: GLTF, options: SpawnModelOptions): ModelRecord {
  const associations = gltf.parser.associations as Map<object, Association | undefined>;
  const root = new Group();
  root.name = options.name;
  const content = gltf.scene ?? gltf.scenes[0] ?? new Group();
  if (gltf.scenes.length > 1) restoreAssociations(gltf.parser.json as GltfJson, content, associations);
  root.add(content);

  const modelEid = addViewerEntity(world);
  const record: ModelRecord = {
    eid: modelEid,
    modelId: options.modelId,
    name: options.name,
    root,
    ...createIdMaps(),
    primitives: new Map(),
    textures: new Map(),
    animations: [],
    mixer: null,
    animated: new Uint32Array(0),
    entities: new Uint32Array(0),
    syncPose: false,
  };
  addComponent(world, modelEid, Model);
  addComponent(world, modelEid, AnimationState);
  AnimationState.playing[modelEid] = 0;
  AnimationState.running[modelEid] = 0;

  const entities: number[] = [];
  const spawn = (object: Object3D, parentEid: number, nodeIndex: number, cast: boolean, receive: boolean): void => {
    const eid = object === root ? modelEid : addViewerEntity(world);
    entities.push(eid);
    const assoc = associations.get(object);
    const ownNode = assoc?.nodes;
    const node = ownNode ?? nodeIndex;
    const data = object.userData as Record<string, unknown>;
    // Per-node flags (glTF node extras); shadows default to on, inherited by a node's primitives.
    if (ownNode !== undefined) {
      cast = data.castShadow !== false;
      receive = data.receiveShadow !== false;
      if (data.visible === false) object.visible = false;
    }

    addTransform(world, eid, parentEid, localPosition(object), object.quaternion.toArray(), object.scale.toArray());
    addComponent(world, eid, Visibility);
    Visibility.visible[eid] = object.visible ? 1 : 0;
    addComponent(world, eid, Shadows);
    Shadows.cast[eid] = cast ? 1 : 0;
    Shadows.receive[eid] = receive ? 1 : 0;
    addComponent(world, eid, ModelMember);
    ModelMember.model[eid] = modelEid;
    ModelMember.node[eid] = object === root ? -1 : node;
    ModelMember.primitive[eid] = assoc?.primitives ?? -1;
    ModelMember.material[eid] = -1;
    detachFromThreeMatrixUpdates(object);
    bindObject(world, eid, object);

    if (ownNode !== undefined) registerNode(record, nodeIdOf(data, ownNode), eid);
    if (isLight(object)) {
      // KHR_lights_punctual: the light casts when the shadow budget system gives it a map.
      const type = lightTypeOf(object);
      addComponent(world, eid, Light);
      Light.type[eid] = type;
      Light.wantsShadow[eid] = cast && type !== LightType.other ? 1 : 0;
      Light.shadowOn[eid] = 0;
      Light.score[eid] = 0;
      object.castShadow = false;
    }
    const mesh = object as Mesh;
    if (mesh.isMesh || (object as { isPoints?: boolean }).isPoints || (object as { isLine?: boolean }).isLine) {
      addComponent(world, eid, Renderable);
      mesh.castShadow = cast;
      mesh.receiveShadow = receive;
      retainObjectResources(object);
      const primitive = assoc?.primitives ?? 0;
      record.primitives.set(primitiveId(nodeIdOf(nodeData(object, associations), node), primitive), eid);
      const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
      for (const material of materials) {
        const materialIndex = registerMaterial(record, material, associations);
        if (ModelMember.material[eid] === -1) ModelMember.material[eid] = materialIndex;
      }
    }
    for (const child of object.children) spawn(child, eid, node, cast, receive);
  };
  spawn(root, 0, -1, true, true);
  record.entities = Uint32Array.from(entities);

  registerAnimations(world, record, gltf.animations);
  world.models.set(modelEid, record);
  world.render.needsRender = true;
  return record;
}

/** Removes a model's entities, disposes what only it used, and stops its mixer. */
export function despawnModel(world: ViewerWorld, modelEid: number): void {
  const record = world.models.get(modelEid);
  if (!record) throw new Error(`No model is loaded as entity ${modelEid}.`);
  if (record.mixer) {
    record.mixer.stopAllAction();
    record.mixer.uncacheRoot(record.root);
  }
  // Its moving casters' flags go with it (the entity ids are used again).
  setModelMoving(world, modelEid, false);
  removeModelBatches(world, modelEid);
  record.root.removeFromParent();
  for (let i = record.entities.length - 1; i >= 0; i--) {
    const eid = record.entities[i];
    const object = unbindObject(world, eid);
    if (object && ((object as Mesh).isMesh || (object as { isPoints?: boolean }).isPoints || (object as { isLine?: boolean }).isLine)) {
      releaseObjectResources(object);
    }
    removeTransformEntity(world, eid);
  }
  world.models.delete(modelEid);
  world.render.needsRender = true;
}

/** The record of a model by its model id (the Model document's _id). */
export function findModel(world: ViewerWorld, modelId: string): ModelRecord | undefined {
  for (const record of world.models.values()) if (record.modelId === modelId) return record;
  return undefined;
}

interface GltfJson {
  scene?: number;
  scenes?: { nodes?: number[] }[];
  nodes?: { children?: number[]; mesh?: number }[];
  meshes?: { primitives: unknown[] }[];
}

/**
 * three's GLTFLoader loads every scene of a file, and each scene it finishes keeps only its own
 * objects in parser.associations, so with several scenes the default scene can lose its node and
 * primitive indices (MultipleScenes.glb: default scene 1, scene 0 finishes last). Puts back what
 * is missing, from the JSON: a node's object holds its own mesh/camera objects first and its child
 * nodes last, in glTF order; a one-primitive mesh is the node or its first child, a several-
 * primitive mesh is a group (the node or its first child) of the primitives in order.
 */
function restoreAssociations(json: GltfJson, scene: Object3D, associations: Map<object, Association | undefined>): void {
  const sceneDef = json.scenes?.[json.scene ?? 0];
  if (!sceneDef?.nodes || !json.nodes) return;
  const fill = (object: Object3D, values: Association) => associations.set(object, { ...values, ...associations.get(object) });
  const drawable = (o: Object3D | undefined) => !!o && ((o as Mesh).isMesh || (o as { isPoints?: boolean }).isPoints || (o as { isLine?: boolean }).isLine);
  const visit = (object: Object3D | undefined, index: number): void => {
    const def = json.nodes![index];
    if (!object || !def) return;
    fill(object, { nodes: index });
    const children = def.children ?? [];
    const own = object.children.length - children.length;
    children.forEach((child, i) => visit(object.children[own + i], child));
    const primitives = def.mesh === undefined ? 0 : (json.meshes?.[def.mesh]?.primitives.length ?? 0);
    if (primitives === 0) return;
    const holder = drawable(object) || (primitives > 1 && drawable(object.children[0])) ? object : object.children[0];
    if (!holder) return;
    const meshes = primitives === 1 && drawable(holder) ? [holder] : holder.children.slice(0, primitives);
    meshes.forEach((mesh, i) => fill(mesh, { meshes: def.mesh, primitives: i }));
  };
  sceneDef.nodes.forEach((node, i) => visit(scene.children[i], node));
}

/**
 * A node's local translation with its three.js pivot folded in (GLTFLoader sets `pivot` for the
 * pivot pattern GLTFExporter writes): Transform has no pivot, and compose(p, q, s) with a pivot c
 * equals compose(p + c - q(s * c), q, s).
 */
function localPosition(object: Object3D): number[] {
  const pivot = object.pivot;
  if (!pivot) return object.position.toArray();
  const turned = pivot.clone().multiply(object.scale).applyQuaternion(object.quaternion);
  return object.position.clone().add(pivot).sub(turned).toArray();
}

/** Stable node id (src/protocol/stable-ids.ts): the node's `extras.nodeId` when the model carries one, else its glTF index. */
function nodeIdOf(userData: Record<string, unknown>, index: number): string {
  return stableId(userData, NODE_ID_KEY, index) ?? indexId(index);
}

function nodeData(object: Object3D, associations: Map<object, Association | undefined>): Record<string, unknown> {
  for (let o: Object3D | null = object; o; o = o.parent) {
    if (associations.get(o)?.nodes !== undefined) return o.userData as Record<string, unknown>;
  }
  return {};
}

function registerMaterial(record: ModelRecord, material: Material, associations: Map<object, Association | undefined>): number {
  const index = associations.get(material)?.materials ?? -1;
  const id = stableId(material.userData, MATERIAL_ID_KEY, index) ?? material.uuid;
  registerMaterialId(record, id, material);
  for (const texture of materialTextures(material)) registerTexture(record, texture, associations);
  return index;
}

function registerTexture(record: ModelRecord, texture: Texture, associations: Map<object, Association | undefined>): void {
  const index = associations.get(texture)?.textures;
  const id = index !== undefined ? String(index) : texture.uuid;
  if (!record.textures.has(id)) record.textures.set(id, texture);
}

function registerAnimations(world: ViewerWorld, record: ModelRecord, clips: AnimationClip[]): void {
  if (clips.length === 0) return;
  // The viewer wires the mixer's events (src/viewer/animation.ts attachAnimationEvents).
  record.mixer = new AnimationMixer(record.root);
  const animated = new Set<number>();
  clips.forEach((clip, index) => {
    if (!clip.name) clip.name = `animation_${index}`;
    const entry: AnimationEntry = { id: String(index), name: clip.name, clip, action: null };
    record.animations.push(entry);
    for (const track of clip.tracks) {
      const parsed = PropertyBinding.parseTrackName(track.name);
      if (parsed.propertyName !== 'position' && parsed.propertyName !== 'quaternion' && parsed.propertyName !== 'scale') continue;
      const target = PropertyBinding.findNode(record.root, parsed.nodeName) as Object3D | undefined;
      const eid = target ? (target.userData.eid as number | undefined) : undefined;
      if (eid) animated.add(eid);
    }
  });
  // Parents before children is not needed here: the transform system orders the propagation.
  record.animated = Uint32Array.from(animated);
  for (const eid of record.animated) addComponent(world, eid, Animated);
}
