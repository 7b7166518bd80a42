import type { Material, Object3D, Plane, Vector3 } from 'three';

/**
 * What a pick returns (viewer specification section 2: "Clicking the scene raises a hit event").
 * Every vector is in world space and owned by the caller (a fresh object per hit: hits are kept by
 * tools, so they must not alias a scratch vector).
 */
export interface PickHit {
  point: Vector3;
  /** Unit surface normal in world space, facing the camera. */
  normal: Vector3;
  distance: number;
  /** The drawable that was hit (a Mesh, InstancedMesh or SkinnedMesh). */
  object: Object3D;
  /** The entity of the hit node (0 when the object has none, e.g. a helper). */
  eid: number;
  modelId: string | null;
  nodeId: string | null;
  /** The node's name ('' when unnamed). */
  nodeName: string;
  material: Material | null;
  materialId: string | null;
  /**
   * InstancedMesh hits: the instance index; for an instanced asset group, the instance's stable id
   * (src/engine/instances.ts), which survives compaction. Else null.
   */
  instanceId: number | null;
  /** The scene object uuid of the instanced asset group hit (with `instanceId`), else null or absent. */
  groupId?: string | null;
  faceIndex: number | null;
}

export interface PickOptions {
  /**
   * Only objects on these layers are hit; by default the model layers (0), never HELPER_LAYER (15).
   * Tools that pick their own handles pass their own object list instead.
   */
  objects?: Object3D[];
}

/** Picking service of a viewer (src/viewer/picking/ implements it). */
export interface Picker {
  /**
   * First hit under a point given in normalised device coordinates (-1..1, y up) for the viewer's
   * current camera; null when nothing is hit. Parts cut away by active clipping (section) planes
   * are not hit. Allocation-free except for the returned hit.
   */
  pick(ndcX: number, ndcY: number, options?: PickOptions): PickHit | null;
  /** Same as pick, from client (CSS pixel) coordinates relative to the viewport. */
  pickAtClient(clientX: number, clientY: number, options?: PickOptions): PickHit | null;
  /**
   * The vertex of the hit's mesh nearest to `hit.point`, within `radius` world units (default 0.25,
   * the specification's snap distance), optionally restricted to vertices within 0.001 of `plane`.
   * Writes into `target` and returns it, or returns null when no vertex qualifies.
   */
  snapToVertex(hit: PickHit, target: Vector3, radius?: number, plane?: Plane): Vector3 | null;
  /** Builds (off the main thread for large meshes) the acceleration trees of newly loaded objects. */
  prepare(roots: Object3D[]): Promise<void>;
  dispose(): void;
}
