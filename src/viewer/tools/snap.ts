import { Vector3, type Plane } from 'three';
import type { PickHit, Picker } from '../pick-types';

/** "Vertex picking snaps to the nearest vertex within 0.25." */
export const SNAP_DISTANCE = 0.25;

/** A picked point for the measurement tools; written in place (hover runs every animation frame). */
export interface PickedPoint {
  readonly point: Vector3;
  readonly normal: Vector3;
  /** Whether `point` is a vertex (snapped) rather than the surface point under the pointer. */
  snapped: boolean;
  hit: PickHit | null;
}

export function createPickedPoint(): PickedPoint {
  return { point: new Vector3(), normal: new Vector3(), snapped: false, hit: null };
}

/**
 * Picks the surface under a client pixel (the tools pass their SurfacePicker: models and section
 * caps) and snaps to the nearest vertex of the hit mesh within
 * SNAP_DISTANCE (on `plane` only, within 0.001 of it, when one is given: an area's working plane).
 * Writes into `out`; returns false (and leaves `out.hit` null) when nothing is under the pointer.
 * Allocates nothing besides the picker's hit.
 */
export function pickSnapped(picker: Pick<Picker, 'pickAtClient' | 'snapToVertex'>, clientX: number, clientY: number, plane: Plane | null, out: PickedPoint): boolean {
  const hit = picker.pickAtClient(clientX, clientY);
  out.hit = hit;
  if (!hit) {
    out.snapped = false;
    return false;
  }
  out.normal.copy(hit.normal);
  const snapped = picker.snapToVertex(hit, out.point, SNAP_DISTANCE, plane ?? undefined);
  out.snapped = snapped !== null;
  if (!snapped) out.point.copy(hit.point);
  return true;
}
