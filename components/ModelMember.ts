import { MAX_ENTITIES } from './constants';

/**
 * Membership of an entity in a loaded model: `model` is the eid of the model's root entity (which
 * has the Model tag). The glTF indices of the node, the primitive within its mesh and the material
 * are kept as numbers (-1 for none); the stable string ids (nodeId, materialId, ...) the editor and
 * the mutation log use live in the model record's side maps (ModelRecord, src/engine/world.ts;
 * src/engine/stable-ids.ts reads and writes them).
 */
export const ModelMember = {
  model: new Uint32Array(MAX_ENTITIES),
  node: new Int32Array(MAX_ENTITIES),
  primitive: new Int32Array(MAX_ENTITIES),
  material: new Int32Array(MAX_ENTITIES),
};

/** Tag: the root entity of a loaded model. */
export const Model = {};

/** Tag: an entity whose Object3D draws something (Mesh, SkinnedMesh, InstancedMesh, Points, Line). */
export const Renderable = {};
