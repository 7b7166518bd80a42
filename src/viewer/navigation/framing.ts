import { Box3, MathUtils, Sphere, type Object3D, type SkinnedMesh } from 'three';

/** The ortho camera sits this many scene radii from the target, so nothing is behind it. */
export const ORTHO_DISTANCE_RADII = 2.5;

/** Half the visible height at `distance` in front of a perspective camera (fov in degrees). */
export function visibleHalfHeight(distance: number, fovDeg: number): number {
  return distance * Math.tan(MathUtils.degToRad(fovDeg) / 2);
}

/** The distance at which a perspective camera sees `halfHeight` above and below its target. */
export function distanceForHalfHeight(halfHeight: number, fovDeg: number): number {
  return halfHeight / Math.tan(MathUtils.degToRad(fovDeg) / 2);
}

const box = new Box3();
const objectBox = new Box3();

/**
 * The bounding sphere of everything in `objects` (world matrices must be current) into `out`;
 * returns its radius (at least 1e-3), or 0 when there is nothing. `outBox` receives the world box.
 */
export function measure(objects: Iterable<Object3D>, out: Sphere, outBox?: Box3): number {
  box.makeEmpty();
  for (const object of objects) {
    // Skinned meshes are bounded in their current pose: bring the bone matrices up to date first.
    object.traverse((o) => {
      const skinned = o as SkinnedMesh;
      if (skinned.isSkinnedMesh) {
        skinned.skeleton.update();
        (skinned as unknown as { boundingBox: Box3 | null }).boundingBox = null;
      }
    });
    objectBox.setFromObject(object, false);
    if (!objectBox.isEmpty()) box.union(objectBox);
  }
  if (box.isEmpty()) return 0;
  outBox?.copy(box);
  box.getBoundingSphere(out);
  out.radius = Math.max(out.radius, 1e-3);
  return out.radius;
}

/** The azimuth nearest to `current` that points the same way as `target` (a turn of at most half a circle). */
export function nearestAzimuth(current: number, target: number): number {
  return current + MathUtils.euclideanModulo(target - current + Math.PI, Math.PI * 2) - Math.PI;
}

/** A rotation step of the keyboard's orbit (radians per press). */
export const KEY_ORBIT_STEP = MathUtils.degToRad(7.5);
/** A press of + or - dollies (or zooms) by this share of the distance. */
export const KEY_ZOOM_SHARE = 0.2;
