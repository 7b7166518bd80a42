import { Plane, Vector3, type Camera, type Material, type Ray } from 'three';
import type { ViewerWorld } from '../../engine/world';

/**
 * What clipping leaves of a pick: the interval of the pick ray that is drawn (between the camera's
 * near and far planes, on the kept side of the renderer's section planes and of a material's own
 * planes), and whether a point survives a material's planes or the section planes.
 */

/** A part [near, far] of a ray, as distances along it; empty when near > far. */
export interface Interval {
  near: number;
  far: number;
}

/** Rays closer than this to parallel with a plane (|normal . direction|) are treated as parallel. */
const PARALLEL = 1e-12;

// Scratch (a pick allocates nothing here).
const forward = new Vector3();
const eye = new Vector3();
const cameraPlane = new Plane();

/** The renderer's clipping planes (the section planes), or null when it has none or there is no renderer. */
export function sectionPlanes(world: ViewerWorld): readonly Plane[] | null {
  const planes = world.render.renderer?.clippingPlanes;
  return planes && planes.length > 0 ? planes : null;
}

/** Whether materials' own clipping planes cut: the renderer's localClippingEnabled (true without a renderer). */
export function localClippingOf(world: ViewerWorld): boolean {
  return world.render.renderer?.localClippingEnabled ?? true;
}

/** Narrows `interval` to the part of `ray` on the kept side of `plane` (its normal points to the kept side). */
export function clipInterval(interval: Interval, ray: Ray, plane: Plane): void {
  const denominator = plane.normal.dot(ray.direction);
  const start = plane.distanceToPoint(ray.origin);
  if (Math.abs(denominator) < PARALLEL) {
    if (start < 0) interval.far = -Infinity;
    return;
  }
  const t = -start / denominator;
  if (denominator > 0) interval.near = Math.max(interval.near, t);
  else interval.far = Math.min(interval.far, t);
}

/**
 * Sets `interval` to the part of `ray` between the camera's near and far planes: only that is
 * drawn, so only that is hit. [0, Infinity) for a camera without near and far.
 */
export function cameraInterval(interval: Interval, ray: Ray, camera: Camera): void {
  interval.near = 0;
  interval.far = Infinity;
  const frustum = camera as Camera & { near?: number; far?: number };
  if (typeof frustum.near !== 'number' || typeof frustum.far !== 'number') return;
  camera.getWorldDirection(forward);
  eye.setFromMatrixPosition(camera.matrixWorld);
  cameraPlane.normal.copy(forward);
  cameraPlane.constant = -forward.dot(eye) - frustum.near;
  clipInterval(interval, ray, cameraPlane);
  cameraPlane.normal.copy(forward).negate();
  cameraPlane.constant = forward.dot(eye) + frustum.far;
  clipInterval(interval, ray, cameraPlane);
}

/**
 * The material when the first hit of a mesh is the one to keep: one material (whose local planes,
 * cutting by union, narrow the interval), or several that are all visible and unclipped. Otherwise
 * (planes cutting by intersection, groups with their own planes or hidden materials) null: every
 * hit in the interval must be tested one by one (keptByMaterial).
 */
export function simpleMaterial(material: Material | Material[], localClipping: boolean): Material | null {
  if (Array.isArray(material)) {
    for (const m of material) if (!m.visible || (localClipping && m.clippingPlanes?.length)) return null;
    return material[0] ?? null;
  }
  if (localClipping && material.clippingPlanes?.length && material.clipIntersection) return null;
  return material;
}

/** Whether a world point on a material is drawn: the material is visible and its own clipping planes keep the point. */
export function keptByMaterial(material: Material | undefined, point: Vector3, localClipping: boolean): boolean {
  if (!material) return false;
  if (!material.visible) return false;
  const planes = localClipping ? material.clippingPlanes : null;
  if (!planes || planes.length === 0) return true;
  if (material.clipIntersection) {
    for (const plane of planes) if (plane.distanceToPoint(point) >= 0) return true;
    return false;
  }
  for (const plane of planes) if (plane.distanceToPoint(point) < 0) return false;
  return true;
}

/** Whether a world point is on the kept side of every plane (`tolerance` on the cut side still counts as kept). */
export function keptByPlanes(planes: readonly Plane[] | null, point: Vector3, tolerance = 0): boolean {
  if (planes) for (let i = 0; i < planes.length; i++) if (planes[i].distanceToPoint(point) < -tolerance) return false;
  return true;
}
