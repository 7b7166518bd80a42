import { Vector2, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { distanceToSegment, LINE_SELECT_PX, lineUnder, nearestPoint, POINT_GRAB_PX } from '../../../../../src/viewer/tools/measurements/hit-tests';
import type { MeasurementEntry } from '../../../../../src/viewer/tools/measurements/entities';

/** World (x, y) is client pixels (x * 100, y * 100); points with z < 0 are behind the camera. */
const toClient = (p: Vector3, out: Vector2) => {
  out.set(p.x * 100, p.y * 100);
  return p.z >= 0;
};
const entry = (eid: number, kind: MeasurementEntry['kind'], points: [number, number, number][]) =>
  ({ eid, kind, points: points.map(([x, y, z]) => new Vector3(x, y, z)) }) as unknown as MeasurementEntry;

describe('measurement hit tests (src/viewer/tools/measurements/hit-tests.ts)', () => {
  it('finds the nearest point within the grab distance, the selected measurement first at a tie', () => {
    const a = entry(1, 'length', [
      [0, 0, 0],
      [1, 0, 0],
    ]);
    const b = entry(2, 'length', [
      [1, 0, 0],
      [2, 0, 0],
    ]);
    expect(nearestPoint(toClient, [a, b], 0, 103, 0)).toEqual({ entry: a, index: 1 });
    expect(nearestPoint(toClient, [a, b], 2, 103, 0)).toEqual({ entry: b, index: 0 });
    expect(nearestPoint(toClient, [a, b], 0, 100 + POINT_GRAB_PX + 1, 0)).toBeNull();
    // A point behind the camera is never grabbed.
    expect(
      nearestPoint(
        toClient,
        [
          entry(3, 'length', [
            [0, 0, -1],
            [5, 5, 0],
          ]),
        ],
        0,
        0,
        0,
      ),
    ).toBeNull();
  });

  it("finds the line under the pointer, an area's closing side included", () => {
    const length = entry(1, 'length', [
      [0, 0, 0],
      [2, 0, 0],
    ]);
    const area = entry(2, 'area', [
      [0, 1, 0],
      [2, 1, 0],
      [2, 3, 0],
    ]);
    expect(lineUnder(toClient, [length, area], 100, LINE_SELECT_PX)).toBe(length);
    expect(lineUnder(toClient, [length, area], 100, LINE_SELECT_PX + 1)).toBeNull();
    // The side from (2, 3) back to (0, 1) passes (1, 2).
    expect(lineUnder(toClient, [length, area], 100, 200)).toBe(area);
    // An open angle has no closing side.
    expect(
      lineUnder(
        toClient,
        [
          entry(3, 'angle', [
            [0, 1, 0],
            [2, 1, 0],
            [2, 3, 0],
          ]),
        ],
        100,
        200,
      ),
    ).toBeNull();
  });

  it('measures the distance to a segment, clamped at its ends and for a point-like segment', () => {
    const a = new Vector2(0, 0);
    const b = new Vector2(10, 0);
    expect(distanceToSegment(new Vector2(5, 3), a, b)).toBe(3);
    expect(distanceToSegment(new Vector2(13, 4), a, b)).toBe(5);
    expect(distanceToSegment(new Vector2(3, 4), a, a)).toBe(5);
  });
});
