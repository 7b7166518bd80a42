import { Plane, Vector3 } from 'three';
import { DEFAULT_DISPLAY, formatAngle, formatArea, formatLength, type DisplayUnits } from './format';

/**
 * The measurement state machines of the viewer specification (section 4, "Measurement and section
 * tools", and section 5), as pure data functions: no DOM, no WebGL, unit-tested on their own. The
 * tools (measurements/) feed them picked points and draw what they hold.
 *
 *  - length: the first click starts, the second click ends it.
 *  - area: points on one working plane; Enter finishes with at least 3 points; Ctrl+Z removes the
 *    last point and is ignored when exactly 3 remain.
 *  - angle: ends after 3 clicks; the angle is measured at the middle (second) point.
 *
 * The working plane of an area: the plane through its FIRST point whose normal is the picked
 * surface's normal there (so a rectangle measured on a face lies on that face). Every later point,
 * and every dragged point, must lie within PLANE_TOLERANCE (0.001 m) of it; a point off the plane
 * is refused with a reason the tool shows. Snapped vertices are searched on that plane only.
 */
export type MeasureKind = 'length' | 'area' | 'angle';

export const MEASURE_KINDS: readonly MeasureKind[] = ['length', 'area', 'angle'];

/** "When restricted to a plane, only points within 0.001 of the plane are accepted." */
export const PLANE_TOLERANCE = 0.001;
/** An area needs at least 3 points; removing a point is ignored when exactly 3 remain. */
export const AREA_MIN_POINTS = 3;
/** Two clicks closer than this are the same point (a double-click, a repeated snap). */
export const SAME_POINT = 1e-6;

/** Points a finished measurement has: length 2, angle 3, area any number from 3. */
export const POINTS_TO_COMPLETE: Record<'length' | 'angle', number> = { length: 2, angle: 3 };

export interface MeasureDraft {
  readonly kind: MeasureKind;
  readonly points: Vector3[];
  /** The area's working plane, set by its first point; null otherwise. */
  plane: Plane | null;
}

export type AddResult =
  | { status: 'added'; count: number }
  | { status: 'completed'; value: number }
  | { status: 'refused'; reason: string };

export type FinishResult = { status: 'completed'; value: number } | { status: 'refused'; reason: string };

export function createDraft(kind: MeasureKind): MeasureDraft {
  if (!MEASURE_KINDS.includes(kind)) throw new Error(`Unknown measurement kind '${String(kind)}': expected one of ${MEASURE_KINDS.join(', ')}.`);
  return { kind, points: [], plane: null };
}

/** Whether a measurement is in progress (Escape then cancels it instead of turning the tool off). */
export function inProgress(draft: MeasureDraft): boolean {
  return draft.points.length > 0;
}

/**
 * Adds a picked point (copied). `normal` is the unit surface normal at the point, required for the
 * first point of an area (it defines the working plane).
 */
export function addPoint(draft: MeasureDraft, point: Vector3, normal: Vector3 | null): AddResult {
  if (!Number.isFinite(point.x) || !Number.isFinite(point.y) || !Number.isFinite(point.z)) {
    return { status: 'refused', reason: 'The point has no finite coordinates.' };
  }
  const points = draft.points;
  for (const p of points) {
    if (p.distanceTo(point) < SAME_POINT) return { status: 'refused', reason: 'That point is already part of the measurement.' };
  }
  if (draft.kind === 'area') {
    if (points.length === 0) {
      if (!normal || normal.lengthSq() < 1e-12) return { status: 'refused', reason: 'An area must start on a surface.' };
      draft.plane = new Plane().setFromNormalAndCoplanarPoint(normal.clone().normalize(), point);
    } else {
      const off = offPlane(draft, point);
      if (off !== null) return { status: 'refused', reason: off };
    }
    points.push(point.clone());
    return { status: 'added', count: points.length };
  }
  points.push(point.clone());
  if (points.length === POINTS_TO_COMPLETE[draft.kind]) return { status: 'completed', value: measureValue(draft.kind, points) };
  return { status: 'added', count: points.length };
}

/** Why a point may not belong to the area's working plane, or null when it may. */
export function offPlane(draft: Pick<MeasureDraft, 'kind' | 'plane'>, point: Vector3): string | null {
  if (draft.kind !== 'area' || !draft.plane) return null;
  const distance = Math.abs(draft.plane.distanceToPoint(point));
  if (distance <= PLANE_TOLERANCE) return null;
  return `That point is ${formatLength(distance)} off the area's plane: pick points on the same flat surface.`;
}

/**
 * Ctrl+Z: removes the last point. For an area it is ignored when exactly 3 points remain (the
 * specification's rule). Returns whether a point was removed.
 */
export function undoPoint(draft: MeasureDraft): boolean {
  const points = draft.points;
  if (points.length === 0) return false;
  if (draft.kind === 'area' && points.length === AREA_MIN_POINTS) return false;
  points.pop();
  if (points.length === 0) draft.plane = null;
  return true;
}

/** Enter: finishes an area of at least 3 points. Length and angle finish by their clicks. */
export function finishDraft(draft: MeasureDraft): FinishResult {
  if (draft.kind !== 'area') {
    const needed = POINTS_TO_COMPLETE[draft.kind];
    return { status: 'refused', reason: `A ${draft.kind} measurement ends by itself at its ${needed === 2 ? 'second' : 'third'} point.` };
  }
  if (draft.points.length < AREA_MIN_POINTS) {
    return { status: 'refused', reason: `An area needs at least ${AREA_MIN_POINTS} points (it has ${draft.points.length}).` };
  }
  return { status: 'completed', value: measureValue('area', draft.points) };
}

/** Escape: drops the points of the measurement in progress. */
export function cancelDraft(draft: MeasureDraft): void {
  draft.points.length = 0;
  draft.plane = null;
}

/** The measured value: metres, square metres or degrees. */
export function measureValue(kind: MeasureKind, points: readonly Vector3[]): number {
  switch (kind) {
    case 'length':
      if (points.length !== 2) throw new Error(`A length has 2 points, not ${points.length}.`);
      return points[0].distanceTo(points[1]);
    case 'angle':
      if (points.length !== 3) throw new Error(`An angle has 3 points, not ${points.length}.`);
      return angleDegrees(points[0], points[1], points[2]);
    case 'area':
      if (points.length < AREA_MIN_POINTS) throw new Error(`An area has at least ${AREA_MIN_POINTS} points, not ${points.length}.`);
      return polygonArea(points);
  }
}

export function measureLabel(kind: MeasureKind, value: number, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  return kind === 'length' ? formatLength(value, display) : kind === 'area' ? formatArea(value, display) : formatAngle(value, display);
}

const e1 = new Vector3();
const e2 = new Vector3();
const cross = new Vector3();

/** The angle at `vertex` between the rays to `a` and `c`, in degrees (0 for a degenerate ray). */
export function angleDegrees(a: Vector3, vertex: Vector3, c: Vector3): number {
  e1.subVectors(a, vertex);
  e2.subVectors(c, vertex);
  if (e1.lengthSq() === 0 || e2.lengthSq() === 0) return 0;
  return (e1.angleTo(e2) * 180) / Math.PI;
}

/**
 * Area of a planar polygon in 3D (vertices in order, not closed), by Newell's method: half the
 * length of the sum of the edges' cross products. Exact for any simple planar polygon, convex or not.
 */
export function polygonArea(points: readonly Vector3[]): number {
  cross.set(0, 0, 0);
  const n = points.length;
  for (let i = 0; i < n; i++) {
    const p = points[i];
    const q = points[(i + 1) % n];
    cross.x += (p.y - q.y) * (p.z + q.z);
    cross.y += (p.z - q.z) * (p.x + q.x);
    cross.z += (p.x - q.x) * (p.y + q.y);
  }
  return cross.length() / 2;
}

/** The hint line of a measurement tool in its current state. */
export function measureHint(draft: MeasureDraft): string {
  const n = draft.points.length;
  switch (draft.kind) {
    case 'length':
      return n === 0 ? 'Click the first point' : 'Click the second point';
    case 'angle':
      return n === 0 ? 'Click the first point' : n === 1 ? 'Click the corner point' : 'Click the third point';
    case 'area':
      if (n === 0) return 'Click the first point on a flat surface';
      if (n < AREA_MIN_POINTS) return 'Click the next point on the same plane';
      return 'Click another point, or press Enter to finish';
  }
}
