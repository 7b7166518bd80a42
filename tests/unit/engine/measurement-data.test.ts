import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Measurement } from '../../../components';
import {
  deleteMeasurementPoints,
  getMeasurementPoint,
  measurementPointCount,
  measurementPoints,
  setMeasurementPoint,
  setMeasurementPoints,
} from '../../../src/engine/measurement-data';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';

describe('measurement data', () => {
  it('keeps points as engine data with their count, and flags changes', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    setMeasurementPoints(world, eid, [new Vector3(0, 0, 0), new Vector3(2, 0, 0)]);
    expect(measurementPointCount(world, eid)).toBe(2);
    expect(Measurement.pointCount[eid]).toBe(2);
    expect(Measurement.changed[eid]).toBe(1);
    Measurement.changed[eid] = 0;
    setMeasurementPoint(world, eid, 1, new Vector3(3, 4, 0));
    expect(Measurement.changed[eid]).toBe(1);
    expect(getMeasurementPoint(world, eid, 1, new Vector3()).toArray()).toEqual([3, 4, 0]);
    expect(measurementPoints(world, eid).map((p) => p.toArray())).toEqual([
      [0, 0, 0],
      [3, 4, 0],
    ]);
    expect(() => setMeasurementPoint(world, eid, 2, new Vector3())).toThrow(`Measurement ${eid} has no point 2.`);
    deleteMeasurementPoints(world, eid);
    expect(measurementPointCount(world, eid)).toBe(0);
    expect(Measurement.pointCount[eid]).toBe(0);
  });
});
