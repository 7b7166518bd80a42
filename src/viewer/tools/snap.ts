import { Plane, Vector3 } from 'three';
import type { PickHit, Picker } from '../pick-types';
import type { MeasureDraft } from './measure-machine';

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

/** The plane of the surface under the pointer (through the hit point, along its normal). */
export const HIT_PLANE = 'hit-plane';

const hitPlane = new Plane();

/** What a measurement's next point snaps on: the area's working plane, or for its first point the clicked face's plane. */
export function snapPlaneFor(draft: Pick<MeasureDraft, 'kind' | 'plane'>): Plane | typeof HIT_PLANE | null {
  return draft.kind === 'area' && !draft.plane ? HIT_PLANE : draft.plane;
}

/**
 * Picks the surface under a client pixel (the tools pass their SurfacePicker: models and section
 * caps) and snaps to the nearest vertex of the hit mesh within SNAP_DISTANCE. With a `plane` (an
 * area's working plane), only to vertices on it, within 0.001; with HIT_PLANE (an area's first
 * point, which sets that plane), only to vertices on the plane through the hit point along the hit
 * normal, so the area's plane is the clicked face's, not a nearby bump's or chamfer's.
 * Writes into `out`; returns false (and leaves `out.hit` null) when nothing is under the pointer.
 * Allocates nothing besides the picker's hit.
 */
export function pickSnapped(
  picker: Pick<Picker, 'pickAtClient' | 'snapToVertex'>,
  clientX: number,
  clientY: number,
  plane: Plane | typeof HIT_PLANE | null,
  out: PickedPoint,
): boolean {
  const hit = picker.pickAtClient(clientX, clientY);
  out.hit = hit;
  if (!hit) {
    out.snapped = false;
    return false;
  }
  out.normal.copy(hit.normal);
  const on = plane === HIT_PLANE ? hitPlane.setFromNormalAndCoplanarPoint(hit.normal, hit.point) : plane;
  const snapped = picker.snapToVertex(hit, out.point, SNAP_DISTANCE, on ?? undefined);
  out.snapped = snapped !== null;
  if (!snapped) out.point.copy(hit.point);
  return true;
}
