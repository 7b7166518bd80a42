import { Matrix4, Sphere, Vector3, type BufferGeometry, type InstancedMesh, type Mesh, type Ray, type SkinnedMesh } from 'three';
import { positionVersionOf } from '../bvh-builder';

/**
 * The cheap tests before a mesh's triangles: world bounding spheres that hold everything a pick of
 * the mesh could hit (all instances of an instanced mesh; an animated mesh in its current pose,
 * without posing a vertex), and whether the pick ray reaches one. The spheres are cached on what
 * they were computed from (versions, counts), weakly, so a ray that passes far from a mesh costs
 * O(1) (O(bones) for a skinned one).
 */

// Scratch (a pick allocates nothing here).
const sphereHit = new Vector3();
const skinning = new Matrix4();
const boneSphere = new Sphere();

/** The versions an instanced mesh's bounding sphere was computed at: it is recomputed when one changes. */
interface InstancedBoundsKey {
  matrices: number;
  count: number;
  positions: number;
}
const instancedKeys = new WeakMap<InstancedMesh, InstancedBoundsKey>();

/** The largest displacement of each morph target of a geometry, and the position version it was measured at. */
const morphReaches = new WeakMap<BufferGeometry, { positions: number; reach: Float32Array }>();

/** Whether `ray`, within `far` of its origin, misses a world-space sphere. */
export function rayMisses(ray: Ray, bounds: Sphere, far: number): boolean {
  if (bounds.containsPoint(ray.origin)) return false;
  if (ray.intersectSphere(bounds, sphereHit) === null) return true;
  return sphereHit.distanceTo(ray.origin) > far;
}

/**
 * An instanced mesh's bounding sphere over all its instances, in its local space (its
 * `boundingSphere`), recomputed when its instance matrices, its count or its geometry change.
 */
export function instancedBounds(instanced: InstancedMesh): Sphere {
  const seen = instancedKeys.get(instanced);
  const matrices = instanced.instanceMatrix.version;
  const positions = positionVersionOf(instanced.geometry);
  if (!seen || instanced.boundingSphere === null || seen.matrices !== matrices || seen.count !== instanced.count || seen.positions !== positions) {
    if (!seen || seen.positions !== positions) instanced.geometry.computeBoundingSphere();
    instanced.computeBoundingSphere();
    instancedKeys.set(instanced, { matrices, count: instanced.count, positions });
  }
  return instanced.boundingSphere!;
}

/** The largest displacement of each position morph target of a geometry (null without targets); cached per position version. */
export function morphReachOf(geometry: BufferGeometry): Float32Array | null {
  const targets = geometry.morphAttributes.position;
  if (!targets || targets.length === 0) return null;
  const positions = positionVersionOf(geometry);
  const known = morphReaches.get(geometry);
  if (known && known.positions === positions && known.reach.length === targets.length) return known.reach;
  const base = geometry.getAttribute('position');
  const reach = new Float32Array(targets.length);
  targets.forEach((target, t) => {
    let max = 0;
    for (let i = 0; i < target.count; i++) {
      let dx = target.getX(i);
      let dy = target.getY(i);
      let dz = target.getZ(i);
      if (!geometry.morphTargetsRelative) {
        dx -= base.getX(i);
        dy -= base.getY(i);
        dz -= base.getZ(i);
      }
      max = Math.max(max, dx * dx + dy * dy + dz * dz);
    }
    reach[t] = Math.sqrt(max);
  });
  morphReaches.set(geometry, { positions, reach });
  return reach;
}

/**
 * A world sphere that holds a skinned or morphed mesh in its current pose, without posing a
 * vertex: the rest geometry's sphere grown by the morph targets' reach, carried by each bone's
 * skinning matrix (a skinned vertex is a weighted mean of those images), and the union of those.
 * O(bones), so a pick whose ray passes far from an animated mesh neither refits nor walks its tree.
 * Written into `out`, which is returned.
 */
export function posedBounds(mesh: Mesh, out: Sphere): Sphere {
  const geometry = mesh.geometry;
  if (geometry.boundingSphere === null) geometry.computeBoundingSphere();
  let radius = geometry.boundingSphere!.radius;
  const reach = morphReachOf(geometry);
  const influences = mesh.morphTargetInfluences;
  if (reach && influences) for (let t = 0; t < reach.length; t++) radius += Math.abs(influences[t] ?? 0) * reach[t];
  const skinned = (mesh as SkinnedMesh).isSkinnedMesh ? (mesh as SkinnedMesh) : null;
  if (!skinned) {
    out.center.copy(geometry.boundingSphere!.center);
    out.radius = radius;
    return out.applyMatrix4(mesh.matrixWorld);
  }
  const { bones, boneInverses } = skinned.skeleton;
  out.makeEmpty();
  for (let i = 0; i < bones.length; i++) {
    const bone = bones[i];
    if (!bone) continue;
    skinning.multiplyMatrices(bone.matrixWorld, boneInverses[i]).multiply(skinned.bindMatrix).premultiply(skinned.bindMatrixInverse).premultiply(mesh.matrixWorld);
    boneSphere.center.copy(geometry.boundingSphere!.center);
    boneSphere.radius = radius;
    boneSphere.applyMatrix4(skinning);
    if (out.isEmpty()) out.copy(boneSphere);
    else out.union(boneSphere);
  }
  if (out.isEmpty()) {
    out.center.copy(geometry.boundingSphere!.center);
    out.radius = radius;
    out.applyMatrix4(mesh.matrixWorld);
  }
  return out;
}
