import { describe, expect, it } from 'vitest';
import { fromBcfAxes, horizontalFov, isBcfGuid, toBcfAxes, verticalFov } from '../../../../src/protocol/bcf/model';

describe('coordinates', () => {
  it('reads Z-up coordinates back into Y-up, and the conversions are inverse', () => {
    for (const v of [
      [1, 2, 3],
      [-4.5, 0, 7e-9],
      [0, -1, 0],
    ] as const) {
      expect(fromBcfAxes(toBcfAxes(v))).toEqual([...v]);
      expect(toBcfAxes(fromBcfAxes(v))).toEqual([...v]);
    }
    expect(toBcfAxes([0, 1, 0])).toEqual([0, 0, 1]); // our up is BCF's up
    expect(toBcfAxes([0, 0, -1])).toEqual([0, 1, 0]); // our forward (-Z) is BCF's +Y
  });
});

describe('field of view', () => {
  it('horizontal and vertical angles convert both ways with the aspect', () => {
    expect(horizontalFov(50, 1)).toBeCloseTo(50, 10);
    expect(horizontalFov(90, 2)).toBeCloseTo((2 * Math.atan(2) * 180) / Math.PI, 10);
    expect(verticalFov(horizontalFov(37, 16 / 9), 16 / 9)).toBeCloseTo(37, 10);
  });
});

describe('GUIDs', () => {
  it('takes the 8-4-4-4-12 hex form in either case, and nothing else', () => {
    expect(isBcfGuid('a0b1c2d3-0000-4000-8000-000000000001')).toBe(true);
    expect(isBcfGuid('A0B1C2D3-0000-4000-8000-00000000000F')).toBe(true);
    expect(isBcfGuid('a0b1c2d3-0000-4000-8000-00000000000')).toBe(false);
    expect(isBcfGuid(' a0b1c2d3-0000-4000-8000-000000000001')).toBe(false);
    expect(isBcfGuid('g0b1c2d3-0000-4000-8000-000000000001')).toBe(false);
  });
});
