import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { snapSectionNormal } from '../../../../src/viewer/tools/section-math';

const snap = (x: number, y: number, z: number) => snapSectionNormal(new Vector3(x, y, z), new Vector3()).toArray();

describe('snapSectionNormal (vertical snap tolerance 0.7)', () => {
  it('makes surfaces within the tolerance of horizontal exactly horizontal, keeping the side', () => {
    expect(snap(0, 1, 0)).toEqual([0, 1, 0]);
    expect(snap(0.3, 0.8, 0.1)).toEqual([0, 1, 0]);
    expect(snap(0.5, -0.75, 0)).toEqual([0, -1, 0]);
  });

  it('makes near-vertical surfaces exactly vertical', () => {
    const [x, y, z] = snap(0.6, 0.25, 0.8);
    expect(y).toBe(0);
    expect(Math.hypot(x, z)).toBeCloseTo(1, 12);
    expect(x / z).toBeCloseTo(0.6 / 0.8, 12);
  });

  it('follows a steep slope between the two bands', () => {
    const n = new Vector3(0.6, 0.5, 0).normalize();
    expect(snap(0.6, 0.5, 0)).toEqual(n.toArray());
  });

  it('normalises its input and refuses a zero normal or a bad tolerance', () => {
    expect(snap(0, 5, 0)).toEqual([0, 1, 0]);
    expect(() => snap(0, 0, 0)).toThrow('non-zero length');
    expect(() => snapSectionNormal(new Vector3(0, 1, 0), new Vector3(), 0.2)).toThrow('tolerance');
  });
});
