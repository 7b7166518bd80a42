import { Raycaster, Vector2, Vector3, type Camera, type Mesh, type Object3D, type Plane } from 'three';
import type { ViewerWorld } from '../../engine/world';
import type { PickHit, Picker } from '../pick-types';
import type { ViewerPicker } from '../picking';
import { planeBasis } from './section-cap';

/** "When restricted to a plane, only points within 0.001 of the plane are accepted." */
const PLANE_TOLERANCE = 0.001;
/** A point this far (m) on the cut-away side of another plane still counts as kept (rounding). */
const CLIP_TOLERANCE = 1e-6;
/** Rays closer than this to parallel with a cap's plane do not hit it (seen edge-on). */
const EDGE_ON = 1e-9;

/** The cut face of one mesh on one section plane, as the section tool built it (section-cap.ts). */
export interface CapPart {
  /** The section plane the cap lies on (world space; its normal points to the kept side). */
  readonly plane: Plane;
  /** The mesh whose cut this is: a hit on the cap reports this mesh's node and material. */
  readonly source: Mesh;
  /** The cut's closed loops, world space, 3 numbers per point (CapGeometryData.outline). */
  readonly outline: Float32Array;
  /** The same points in the plane's 2D basis (planeBasis of plane.normal), 2 numbers per point. */
  readonly flat: Float32Array;
  /** The first point of each loop, then the number of points. */
  readonly loopStarts: Uint32Array;
  /** 2D bounds of `flat` (minU, minV, maxU, maxV), for a quick rejection. */
  readonly bounds: Float64Array;
  /**
   * The outline points where the outline turns (indices into `outline`): the snap targets. Points
   * on a straight run (a triangle's diagonal crossing the plane in the middle of a flat face) are
   * not corners a person means to snap to.
   */
  readonly corners: Uint32Array;
}

/** An outline point whose two segments turn by less than this (sine of the angle) is not a corner. */
const STRAIGHT = 1e-4;

/** Builds a CapPart from cap data (bounds computed here). */
export function capPart(plane: Plane, source: Mesh, data: { outline: Float32Array; flat: Float32Array; loopStarts: Uint32Array }): CapPart {
  const bounds = new Float64Array([Infinity, Infinity, -Infinity, -Infinity]);
  for (let i = 0; i < data.flat.length; i += 2) {
    bounds[0] = Math.min(bounds[0], data.flat[i]);
    bounds[1] = Math.min(bounds[1], data.flat[i + 1]);
    bounds[2] = Math.max(bounds[2], data.flat[i]);
    bounds[3] = Math.max(bounds[3], data.flat[i + 1]);
  }
  const { flat, loopStarts } = data;
  const corners: number[] = [];
  for (let l = 0; l + 1 < loopStarts.length; l++) {
    const start = loopStarts[l];
    const end = loopStarts[l + 1];
    const n = end - start;
    for (let i = 0; i < n; i++) {
      const a = start + ((i + n - 1) % n);
      const b = start + i;
      const c = start + ((i + 1) % n);
      const e1x = flat[b * 2] - flat[a * 2];
      const e1y = flat[b * 2 + 1] - flat[a * 2 + 1];
      const e2x = flat[c * 2] - flat[b * 2];
      const e2y = flat[c * 2 + 1] - flat[b * 2 + 1];
      const lengths = Math.hypot(e1x, e1y) * Math.hypot(e2x, e2y);
      // A turn, or a point doubling back (dot < 0), or a degenerate segment: a corner.
      if (lengths === 0 || Math.abs(e1x * e2y - e1y * e2x) > STRAIGHT * lengths || e1x * e2x + e1y * e2y < 0) corners.push(b);
    }
  }
  return { plane, source, outline: data.outline, flat, loopStarts, bounds, corners: Uint32Array.from(corners) };
}

/**
 * What the measurement tools and the point sampler pick with: the model picker, plus the section
 * caps (the cut faces the section tool draws), which the picker does not know about. A cap is hit
 * where the pointer ray crosses its plane inside its outline (even-odd over all its loops, so holes
 * are not hit), on the visible part of the ray (camera near/far), and only where every other
 * section plane keeps it: exactly what the cap's material draws. A cap hit reports the cut mesh's
 * node and material, with the plane's normal facing the camera (an area's working plane is then
 * the section plane itself). Snapping on a cap goes to the cap's outline vertices (where mesh edges
 * cross the plane); snapping on a mesh also considers the outline vertices of that mesh's caps.
 */
export interface SurfacePicker {
  pick(ndcX: number, ndcY: number): PickHit | null;
  pickAtClient(clientX: number, clientY: number): PickHit | null;
  snapToVertex(hit: PickHit, target: Vector3, radius?: number, plane?: Plane): Vector3 | null;
  /** The cap a hit lies on, or null for a hit on a mesh's own surface. */
  capOf(hit: PickHit): CapPart | null;
}

export interface SurfacePickerOptions {
  world: ViewerWorld;
  picker: () => Picker;
  /** The current caps (the section tool's). */
  caps: () => readonly CapPart[];
}

export function createSurfacePicker(options: SurfacePickerOptions): SurfacePicker {
  const { world } = options;
  const raycaster = new Raycaster();
  const ndc = new Vector2();
  const point = new Vector3();
  const forward = new Vector3();
  const eye = new Vector3();
  const normal = new Vector3();
  const u = new Vector3();
  const v = new Vector3();
  const candidate = new Vector3();
  const capHits = new WeakMap<PickHit, CapPart>();

  const clipping = (): readonly Plane[] => world.render.renderer?.clippingPlanes ?? [];

  /** Whether a point on `own` survives every other section plane. */
  const keptByOthers = (own: Plane, p: Vector3, planes: readonly Plane[]): boolean => {
    for (let i = 0; i < planes.length; i++) {
      const plane = planes[i];
      if (plane !== own && plane.distanceToPoint(p) < -CLIP_TOLERANCE) return false;
    }
    return true;
  };

  const drawn = (object: Object3D): boolean => {
    for (let o: Object3D | null = object; o; o = o.parent) if (!o.visible) return false;
    return true;
  };

  /** Even-odd containment of a plane point (2D coordinates a, b) in a cap's loops. */
  const inside = (part: CapPart, a: number, b: number): boolean => {
    const { bounds, flat, loopStarts } = part;
    if (a < bounds[0] || a > bounds[2] || b < bounds[1] || b > bounds[3]) return false;
    let odd = false;
    for (let l = 0; l + 1 < loopStarts.length; l++) {
      const start = loopStarts[l];
      const end = loopStarts[l + 1];
      for (let i = start, j = end - 1; i < end; j = i++) {
        const ax = flat[i * 2];
        const ay = flat[i * 2 + 1];
        const bx = flat[j * 2];
        const by = flat[j * 2 + 1];
        if (ay > b !== by > b && a < ((bx - ax) * (b - ay)) / (by - ay) + ax) odd = !odd;
      }
    }
    return odd;
  };

  /** The nearest cap under the current ray before `far`; writes its point into `point`. */
  const nearestCap = (camera: Camera, far: number): { part: CapPart; distance: number } | null => {
    const parts = options.caps();
    if (parts.length === 0) return null;
    const ray = raycaster.ray;
    const planes = clipping();
    const frustum = camera as Camera & { near?: number; far?: number };
    camera.getWorldDirection(forward);
    eye.setFromMatrixPosition(camera.matrixWorld);
    let best: CapPart | null = null;
    let bestDistance = far;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      const plane = part.plane;
      const denominator = plane.normal.dot(ray.direction);
      if (Math.abs(denominator) < EDGE_ON) continue;
      const t = -plane.distanceToPoint(ray.origin) / denominator;
      if (!(t >= 0) || t >= bestDistance) continue;
      ray.at(t, candidate);
      if (typeof frustum.near === 'number' && typeof frustum.far === 'number') {
        const depth = candidate.x * forward.x + candidate.y * forward.y + candidate.z * forward.z - eye.dot(forward);
        if (depth < frustum.near || depth > frustum.far) continue;
      }
      if (!keptByOthers(plane, candidate, planes) || !drawn(part.source)) continue;
      planeBasis(plane.normal, u, v);
      if (!inside(part, candidate.dot(u), candidate.dot(v))) continue;
      best = part;
      bestDistance = t;
      point.copy(candidate);
    }
    return best ? { part: best, distance: bestDistance } : null;
  };

  const pick = (ndcX: number, ndcY: number): PickHit | null => {
    const picker = options.picker();
    const hit = picker.pick(ndcX, ndcY);
    const camera = world.render.camera;
    if (!camera) return hit;
    ndc.set(ndcX, ndcY);
    raycaster.setFromCamera(ndc, camera);
    const cap = nearestCap(camera, hit ? hit.distance : Infinity);
    if (!cap) return hit;
    // The cap is seen from the cut-away side: its normal faces the camera.
    normal.copy(cap.part.plane.normal);
    if (normal.dot(raycaster.ray.direction) > 0) normal.negate();
    const hitOn = (picker as Partial<ViewerPicker>).hitOn;
    const capHit: PickHit = hitOn
      ? hitOn(cap.part.source, point, normal, cap.distance)
      : {
          point: point.clone(),
          normal: normal.clone(),
          distance: cap.distance,
          object: cap.part.source,
          eid: 0,
          modelId: null,
          nodeId: null,
          nodeName: cap.part.source.name,
          material: null,
          materialId: null,
          instanceId: null,
          faceIndex: null,
        };
    capHits.set(capHit, cap.part);
    return capHit;
  };

  /** The nearest outline corner of `part` within sqrt(bestSq) of `at`; returns the new best. */
  const snapOnCap = (part: CapPart, at: Vector3, bestSq: number, plane: Plane | undefined, planes: readonly Plane[], target: Vector3): number => {
    const { outline, corners } = part;
    for (let k = 0; k < corners.length; k++) {
      const i = corners[k] * 3;
      candidate.set(outline[i], outline[i + 1], outline[i + 2]);
      const d = candidate.distanceToSquared(at);
      if (d >= bestSq) continue;
      if (plane && Math.abs(plane.distanceToPoint(candidate)) > PLANE_TOLERANCE) continue;
      if (!keptByOthers(part.plane, candidate, planes)) continue;
      bestSq = d;
      target.copy(candidate);
    }
    return bestSq;
  };

  return {
    pick,
    pickAtClient(clientX, clientY) {
      const canvas = world.render.renderer?.domElement;
      if (!canvas) return options.picker().pickAtClient(clientX, clientY);
      const rect = canvas.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) return null;
      return pick(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    },
    snapToVertex(hit, target, radius = 0.25, plane) {
      if (!(radius >= 0) || !Number.isFinite(radius)) throw new Error(`The snap radius must be a finite number of at least 0 (got ${radius}).`);
      const planes = clipping();
      const onCap = capHits.get(hit);
      let bestSq = radius * radius * (1 + 1e-12);
      let found = false;
      if (onCap) {
        const next = snapOnCap(onCap, hit.point, bestSq, plane, planes, target);
        return next < bestSq ? target : null;
      }
      // The mesh's own vertices (those no plane cuts away), then its caps' outline vertices.
      if (options.picker().snapToVertex(hit, target, radius, plane)) {
        bestSq = target.distanceToSquared(hit.point);
        found = true;
      }
      const parts = options.caps();
      for (let k = 0; k < parts.length; k++) {
        if (parts[k].source !== hit.object) continue;
        const next = snapOnCap(parts[k], hit.point, bestSq, plane, planes, target);
        if (next < bestSq) {
          bestSq = next;
          found = true;
        }
      }
      return found ? target : null;
    },
    capOf(hit) {
      return capHits.get(hit) ?? null;
    },
  };
}
