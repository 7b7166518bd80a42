import type { InstancedMesh, Mesh, Object3D, SkinnedMesh } from 'three';

/** What the picker casts against: a mesh (plain, instanced or skinned) with a geometry. */
export function isDrawable(object: Object3D): object is Mesh {
  // A model's batch (src/engine/model-batches.ts) is not a part of it: its meshes are.
  return (object as Mesh).isMesh === true && !!(object as Mesh).geometry && (object as { isBatchedMesh?: boolean }).isBatchedMesh !== true;
}

/**
 * Whether a mesh's triangles follow a pose (skinned, or morphed by position targets), so it gets a
 * tree of its own refitted to the current pose, not its geometry's static tree. Instanced meshes
 * never do: they are picked on their geometry's static tree.
 */
export function followsPose(mesh: Mesh): boolean {
  if ((mesh as InstancedMesh).isInstancedMesh) return false;
  return (mesh as SkinnedMesh).isSkinnedMesh === true || (mesh.geometry.morphAttributes.position?.length ?? 0) > 0;
}
