import { MAX_ENTITIES } from './constants';

/** Measurement kinds as stored in Measurement.kind. */
export const MeasurementKind = { length: 1, area: 2, angle: 3 } as const;

/**
 * A finished measurement (viewer specification section 3: length, area, angle). Its points are
 * engine data (src/engine/measurement-data.ts, keyed by eid); the value is metres, m² or degrees.
 */
export const Measurement = {
  kind: new Uint8Array(MAX_ENTITIES),
  value: new Float64Array(MAX_ENTITIES),
  /** Number of points in the side map (2 for a length, 3 for an angle, 3 or more for an area). */
  pointCount: new Uint16Array(MAX_ENTITIES),
  /** 1 when the points changed since the drawing last followed them (set by markMeasurementChanged). */
  changed: new Uint8Array(MAX_ENTITIES),
};
