import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import {
  addPoint,
  angleDegrees,
  cancelDraft,
  createDraft,
  finishDraft,
  inProgress,
  measureHint,
  measureLabel,
  measureValue,
  offPlane,
  polygonArea,
  undoPoint,
} from '../../../../src/viewer/tools/measure-machine';

const up = new Vector3(0, 1, 0);
const v = (x: number, y: number, z: number) => new Vector3(x, y, z);

describe('length', () => {
  it('starts at the first click and ends at the second', () => {
    const d = createDraft('length');
    expect(inProgress(d)).toBe(false);
    expect(measureHint(d)).toBe('Click the first point');
    expect(addPoint(d, v(0, 0, 0), up)).toEqual({ status: 'added', count: 1 });
    expect(inProgress(d)).toBe(true);
    expect(measureHint(d)).toBe('Click the second point');
    const r = addPoint(d, v(2, 0, 0), up);
    expect(r).toEqual({ status: 'completed', value: 2 });
    expect(measureLabel('length', 2)).toBe('2.00 m');
  });

  it('copies the points it is given and refuses the same point twice', () => {
    const d = createDraft('length');
    const p = v(1, 2, 3);
    addPoint(d, p, null);
    p.set(9, 9, 9);
    expect(d.points[0].toArray()).toEqual([1, 2, 3]);
    expect(addPoint(d, v(1, 2, 3), null).status).toBe('refused');
    expect(d.points).toHaveLength(1);
  });

  it('cannot be finished with Enter, and Ctrl+Z takes its first point back', () => {
    const d = createDraft('length');
    addPoint(d, v(0, 0, 0), null);
    expect(finishDraft(d).status).toBe('refused');
    expect(undoPoint(d)).toBe(true);
    expect(inProgress(d)).toBe(false);
    expect(undoPoint(d)).toBe(false);
  });

  it('refuses points without finite coordinates', () => {
    const d = createDraft('length');
    expect(addPoint(d, v(Number.NaN, 0, 0), null).status).toBe('refused');
  });
});

describe('angle', () => {
  it('ends after 3 clicks with the angle at the middle point', () => {
    const d = createDraft('angle');
    expect(addPoint(d, v(1, 0, 0), up).status).toBe('added');
    expect(measureHint(d)).toBe('Click the corner point');
    expect(addPoint(d, v(0, 0, 0), up).status).toBe('added');
    const r = addPoint(d, v(0, 0, 1), up);
    expect(r.status).toBe('completed');
    if (r.status === 'completed') expect(measureLabel('angle', r.value)).toBe('90.00°');
  });

  it('measures obtuse and acute angles', () => {
    expect(angleDegrees(v(1, 0, 0), v(0, 0, 0), v(-1, 1, 0))).toBeCloseTo(135, 10);
    expect(angleDegrees(v(1, 0, 0), v(0, 0, 0), v(1, 1, 0))).toBeCloseTo(45, 10);
    expect(angleDegrees(v(0, 0, 0), v(0, 0, 0), v(1, 1, 0))).toBe(0);
  });
});

describe('area', () => {
  const rectangle = () => {
    const d = createDraft('area');
    addPoint(d, v(0, 1, 0), up);
    addPoint(d, v(2, 1, 0), up);
    addPoint(d, v(2, 1, 3), up);
    return d;
  };

  it('needs a surface normal for its first point', () => {
    const d = createDraft('area');
    expect(addPoint(d, v(0, 0, 0), null).status).toBe('refused');
    expect(d.plane).toBeNull();
  });

  it('sets its working plane from the first point and the surface normal', () => {
    const d = createDraft('area');
    addPoint(d, v(0, 1, 0), up);
    expect(d.plane!.normal.toArray()).toEqual([0, 1, 0]);
    expect(d.plane!.distanceToPoint(v(5, 1, 5))).toBeCloseTo(0, 12);
  });

  it('accepts points within 0.001 of the plane and refuses others with a reason', () => {
    const d = rectangle();
    expect(offPlane(d, v(0, 1.0009, 3))).toBeNull();
    const r = addPoint(d, v(0, 1.002, 3), up);
    expect(r.status).toBe('refused');
    if (r.status === 'refused') expect(r.reason).toContain("off the area's plane");
    expect(d.points).toHaveLength(3);
  });

  it('finishes with Enter only from 3 points, with the area in m²', () => {
    const d = createDraft('area');
    addPoint(d, v(0, 1, 0), up);
    addPoint(d, v(2, 1, 0), up);
    const early = finishDraft(d);
    expect(early.status).toBe('refused');
    if (early.status === 'refused') expect(early.reason).toBe('An area needs at least 3 points (it has 2).');
    addPoint(d, v(2, 1, 3), up);
    expect(measureHint(d)).toBe('Click another point, or press Enter to finish');
    addPoint(d, v(0, 1, 3), up);
    const done = finishDraft(d);
    expect(done).toEqual({ status: 'completed', value: 6 });
    expect(measureLabel('area', 6)).toBe('6.00 m²');
  });

  it('Ctrl+Z removes the last point but is ignored at exactly 3', () => {
    const d = rectangle();
    addPoint(d, v(0, 1, 3), up);
    expect(undoPoint(d)).toBe(true);
    expect(d.points).toHaveLength(3);
    expect(undoPoint(d)).toBe(false);
    expect(d.points).toHaveLength(3);
    expect(d.points[2].toArray()).toEqual([2, 1, 3]);
  });

  it('below 3 points Ctrl+Z removes points down to none, which clears the plane', () => {
    const d = createDraft('area');
    addPoint(d, v(0, 1, 0), up);
    addPoint(d, v(2, 1, 0), up);
    expect(undoPoint(d)).toBe(true);
    expect(undoPoint(d)).toBe(true);
    expect(d.plane).toBeNull();
    expect(undoPoint(d)).toBe(false);
  });

  it('Escape drops the points and the plane', () => {
    const d = rectangle();
    cancelDraft(d);
    expect(inProgress(d)).toBe(false);
    expect(d.plane).toBeNull();
  });

  it('computes the area of concave and tilted polygons', () => {
    // An L shape: 2x2 square minus a 1x1 corner = 3.
    const l = [v(0, 0, 0), v(2, 0, 0), v(2, 0, 1), v(1, 0, 1), v(1, 0, 2), v(0, 0, 2)];
    expect(polygonArea(l)).toBeCloseTo(3, 12);
    // A 2 x 3 rectangle on a plane tilted 30 degrees about X.
    const c = Math.cos(Math.PI / 6);
    const s = Math.sin(Math.PI / 6);
    const tilted = [v(0, 0, 0), v(2, 0, 0), v(2, 3 * s, 3 * c), v(0, 3 * s, 3 * c)];
    expect(measureValue('area', tilted)).toBeCloseTo(6, 12);
  });
});

describe('errors', () => {
  it('refuses an unknown kind and wrong point counts', () => {
    expect(() => createDraft('volume' as never)).toThrow("Unknown measurement kind 'volume'");
    expect(() => measureValue('length', [v(0, 0, 0)])).toThrow('A length has 2 points, not 1.');
    expect(() => measureValue('area', [v(0, 0, 0), v(1, 0, 0)])).toThrow('An area has at least 3 points, not 2.');
  });
});
