import { MathUtils } from 'three';
import { describe, expect, it } from 'vitest';
import { formatTilt, TILT_SNAP_DEGREES } from '../../../../src/viewer/tools/section';

describe('section plane tilt', () => {
  it('snaps in 15 degree steps and shows whole degrees; free rotation shows a decimal', () => {
    expect(TILT_SNAP_DEGREES).toBe(15);
    expect(formatTilt(MathUtils.degToRad(15), false)).toBe('15°');
    expect(formatTilt(MathUtils.degToRad(-45), false)).toBe('-45°');
    expect(formatTilt(MathUtils.degToRad(17.26), true)).toBe('17.3°');
    expect(formatTilt(-1e-9, true)).toBe('0.0°');
    expect(formatTilt(-1e-9, false)).toBe('0°');
  });
});
