import { Vector3 } from 'three';
import { Measurement } from '../../components';
import type { ViewerWorld } from './world';

/**
 * The points of measurements, owned by the engine (not by the tool that draws them): xyz triples in
 * world space, keyed by the measurement's eid, with Measurement.pointCount kept equal to their
 * number. Tools, the host API and a meeting read and write them here; writers call
 * markMeasurementChanged so the drawing follows in the next frame.
 */

export function setMeasurementPoints(world: ViewerWorld, eid: number, points: readonly Vector3[]): void {
  let data = world.measurementPoints.get(eid);
  if (!data || data.length !== points.length * 3) {
    data = new Float64Array(points.length * 3);
    world.measurementPoints.set(eid, data);
  }
  for (let i = 0; i < points.length; i++) {
    data[i * 3] = points[i].x;
    data[i * 3 + 1] = points[i].y;
    data[i * 3 + 2] = points[i].z;
  }
  Measurement.pointCount[eid] = points.length;
  markMeasurementChanged(world, eid);
}

export function measurementPointCount(world: ViewerWorld, eid: number): number {
  return (world.measurementPoints.get(eid)?.length ?? 0) / 3;
}

/** Point i of a measurement into `out`. */
export function getMeasurementPoint(world: ViewerWorld, eid: number, i: number, out: Vector3): Vector3 {
  const data = world.measurementPoints.get(eid);
  if (!data || i < 0 || i * 3 >= data.length) throw new Error(`Measurement ${eid} has no point ${i}.`);
  return out.set(data[i * 3], data[i * 3 + 1], data[i * 3 + 2]);
}

/** Moves point i of a measurement. */
export function setMeasurementPoint(world: ViewerWorld, eid: number, i: number, point: Vector3): void {
  const data = world.measurementPoints.get(eid);
  if (!data || i < 0 || i * 3 >= data.length) throw new Error(`Measurement ${eid} has no point ${i}.`);
  data[i * 3] = point.x;
  data[i * 3 + 1] = point.y;
  data[i * 3 + 2] = point.z;
  markMeasurementChanged(world, eid);
}

/** All points as new vectors (for events and the UI, not for per-frame work). */
export function measurementPoints(world: ViewerWorld, eid: number): Vector3[] {
  const n = measurementPointCount(world, eid);
  const out: Vector3[] = [];
  for (let i = 0; i < n; i++) out.push(getMeasurementPoint(world, eid, i, new Vector3()));
  return out;
}

export function deleteMeasurementPoints(world: ViewerWorld, eid: number): void {
  world.measurementPoints.delete(eid);
  Measurement.pointCount[eid] = 0;
  Measurement.changed[eid] = 0;
}

export function markMeasurementChanged(world: ViewerWorld, eid: number): void {
  Measurement.changed[eid] = 1;
  world.render.needsRender = true;
}
