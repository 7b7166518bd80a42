import { MAX_ENTITIES } from './constants';

/**
 * Local transform (position, rotation quaternion, scale) and the world matrix it produces, as SoA
 * typed arrays indexed by eid. `parent` is the eid of the parent node (0 for a root).
 *
 * The parent link is a plain eid field rather than a bitecs relation: bitecs 0.4 creates one
 * component per relation target, which made spawning a 100,000-node tree 14x slower (814 ms vs
 * 57 ms, measured with 10,000 parents). Only addTransform and setParent (src/engine/hierarchy.ts) write it.
 *
 * Writers of position/rotation/scale call markTransformDirty (src/engine/hierarchy.ts), which sets
 * `dirty[eid] = 1` and the world's `anyDirty` (a bare `dirty[eid] = 1` is not seen: the transform
 * system skips its pass while `anyDirty` is false); the transform system recomputes the
 * world matrix of dirty entities and their descendants and sets `worldChanged[eid] = 1` for the
 * render system, which copies changed matrices to the Object3D.
 */
export const Transform = {
  position: new Float32Array(MAX_ENTITIES * 3),
  rotation: new Float32Array(MAX_ENTITIES * 4),
  scale: new Float32Array(MAX_ENTITIES * 3),
  /** Column-major 4x4 world matrix, as three.js Matrix4.elements. */
  world: new Float32Array(MAX_ENTITIES * 16),
  parent: new Uint32Array(MAX_ENTITIES),
  /** Depth in the hierarchy (0 for a root); computed when the transform order is rebuilt. */
  depth: new Uint16Array(MAX_ENTITIES),
  /** 1 when the local transform changed since the transform system last ran. */
  dirty: new Uint8Array(MAX_ENTITIES),
  /** 1 when the world matrix changed in the last transform system run. */
  worldChanged: new Uint8Array(MAX_ENTITIES),
};
