import { describe, expect, it } from 'vitest';
import { MAGNIFIER_OFFSET, MAGNIFIER_SIZE, magnifierPlacement } from '../../../../src/viewer/tools/magnifier';

describe('magnifier placement', () => {
  it('sits above the finger, clear of it', () => {
    const at = magnifierPlacement(200, 500, 390, 844);
    expect(at.top + MAGNIFIER_SIZE).toBe(500 - MAGNIFIER_OFFSET);
    expect(at.left + MAGNIFIER_SIZE / 2).toBe(200);
  });

  it('goes below the finger near the top and stays inside the view', () => {
    const at = magnifierPlacement(5, 60, 390, 844);
    expect(at.top).toBe(60 + MAGNIFIER_OFFSET);
    expect(at.left).toBe(4);
    const right = magnifierPlacement(388, 400, 390, 844);
    expect(right.left + MAGNIFIER_SIZE).toBeLessThanOrEqual(386);
  });
});
