import { Matrix4, OrthographicCamera, PerspectiveCamera, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import {
  chooseLevel,
  IMPOSTOR_PIXELS,
  instanceMeasure,
  LEVEL_HYSTERESIS,
  LEVEL_TOLERANCE_PIXELS,
  levelLimits,
  setLevelView,
  viewInGroup,
  type LevelView,
} from '../../../src/engine/instance-levels';

/** Level choice from projected size, with its hysteresis (src/engine/instance-levels.ts). */

const view = (): LevelView => ({ x: 0, y: 0, z: 0, pixelsPerUnit: 0, orthographic: false, bias: 1, stamp: 0, set: false });

/** A camera 90 degrees high drawn 1000 pixels high: 500 pixels a unit at distance 1. */
function camera(): PerspectiveCamera {
  const c = new PerspectiveCamera(90, 1, 0.1, 1000);
  c.updateMatrixWorld(true);
  return c;
}

// Level 1 from 5 m, level 2 from 50 m, the impostor (10 m across) from 125 m, for the camera below.
const asset = { errors: [0.01, 0.1], impostorRadius: 5 };

describe('levels of detail', () => {
  it('measures pixels per unit from the projection, for both kinds of camera, and bumps the stamp only on a change', () => {
    const v = view();
    setLevelView(camera(), 1000, 1, v);
    expect(v.pixelsPerUnit).toBeCloseTo(500, 6);
    expect(v.orthographic).toBe(false);
    const stamp = v.stamp;
    setLevelView(camera(), 1000, 1, v);
    expect(v.stamp).toBe(stamp);
    setLevelView(camera(), 1000, 2, v);
    expect(v.stamp).toBe(stamp + 1);
    const ortho = new OrthographicCamera(-10, 10, 10, -10, 0.1, 100);
    ortho.updateMatrixWorld(true);
    setLevelView(ortho, 1000, 1, v);
    expect(v.orthographic).toBe(true);
    // 20 units over 1000 pixels.
    expect(v.pixelsPerUnit).toBeCloseTo(50, 6);
  });

  it('limits each level by its error on the screen, never rising with the level, the impostor last', () => {
    const v = view();
    setLevelView(camera(), 1000, 1, v);
    const limits = new Float64Array(8);
    expect(levelLimits(asset, v, 1, limits)).toBe(4);
    expect(limits[0]).toBe(Infinity);
    // Level 1 (error 0.01) while 0.01 s P / d <= 1 pixel: (s / d)^2 <= (1 / (0.01 * 500))^2.
    expect(limits[1]).toBeCloseTo((LEVEL_TOLERANCE_PIXELS / (0.01 * 500)) ** 2, 12);
    expect(limits[2]).toBeCloseTo((1 / (0.1 * 500)) ** 2, 12);
    // The impostor while the instance is under IMPOSTOR_PIXELS across: 2 r s P / d <= 40 (r = 5).
    expect(limits[3]).toBeCloseTo(Math.min(limits[2]!, (IMPOSTOR_PIXELS / (2 * 5 * 500)) ** 2), 12);
    for (let k = 1; k < 4; k++) expect(limits[k]).toBeLessThanOrEqual(limits[k - 1]!);
    // A bias of 2 allows twice the error: limits four times as large (q is squared).
    const biased = new Float64Array(8);
    setLevelView(camera(), 1000, 2, v);
    levelLimits(asset, v, 1, biased);
    expect(biased[1]! / limits[1]!).toBeCloseTo(4, 9);
    // A group scaled 2x in perspective: q (size over distance, both in the group's space) already
    // holds it, the limits are the same; in an orthographic view size alone counts: a quarter.
    const scaled = new Float64Array(8);
    setLevelView(camera(), 1000, 1, v);
    levelLimits(asset, v, 2, scaled);
    expect(scaled[1]).toBeCloseTo(limits[1]!, 12);
    const ortho = new OrthographicCamera(-10, 10, 10, -10, 0.1, 100);
    ortho.updateMatrixWorld(true);
    setLevelView(ortho, 1000, 1, v);
    const orthoLimits = new Float64Array(8);
    levelLimits(asset, v, 1, orthoLimits);
    levelLimits(asset, v, 2, scaled);
    expect(scaled[1]! / orthoLimits[1]!).toBeCloseTo(0.25, 9);
  });

  it('walks an instance away and back: coarser levels on the way out, finer on the way in, each change past its point by the hysteresis', () => {
    const v = view();
    setLevelView(camera(), 1000, 1, v);
    const limits = new Float64Array(8);
    const n = levelLimits(asset, v, 1, limits);
    const q = (d: number) => 1 / (d * d);
    let level = 0;
    const changes: { d: number; level: number }[] = [];
    for (let d = 1; d <= 200; d += 0.25) {
      const next = chooseLevel(q(d), level, limits, n);
      if (next !== level) changes.push({ d, level: next });
      level = next;
    }
    expect(changes.map((c) => c.level)).toEqual([1, 2, 3]);
    // Level 1 allowed from d = 5 (0.01 x 500 / d = 1 pixel); taken only past 5 x 1.15.
    expect(changes[0]!.d).toBeGreaterThanOrEqual(5 * (1 + LEVEL_HYSTERESIS));
    expect(changes[0]!.d).toBeLessThan(5 * (1 + LEVEL_HYSTERESIS) + 0.3);
    const back: { d: number; level: number }[] = [];
    for (let d = 200; d >= 1; d -= 0.25) {
      const next = chooseLevel(q(d), level, limits, n);
      if (next !== level) back.push({ d, level: next });
      level = next;
    }
    expect(back.map((c) => c.level)).toEqual([2, 1, 0]);
    // Back to full detail only inside 5 x 0.85.
    expect(back[2]!.d).toBeLessThanOrEqual(5 * (1 - LEVEL_HYSTERESIS));
    expect(back[2]!.d).toBeGreaterThan(5 * (1 - LEVEL_HYSTERESIS) - 0.3);
  });

  it('does not flicker: an instance trembling about a change point keeps its level, and choosing again keeps it', () => {
    const v = view();
    setLevelView(camera(), 1000, 1, v);
    const limits = new Float64Array(8);
    const n = levelLimits(asset, v, 1, limits);
    for (const start of [0, 1]) {
      let level = start;
      const seen = new Set<number>();
      for (let i = 0; i < 100; i++) {
        const d = 5 * (1 + (i % 2 === 0 ? 0.1 : -0.1));
        level = chooseLevel(1 / (d * d), level, limits, n);
        seen.add(level);
        // Idempotent: the shadow pass and the picture of a frame agree.
        expect(chooseLevel(1 / (d * d), level, limits, n)).toBe(level);
      }
      expect([...seen]).toEqual([start]);
    }
  });

  it('measures an instance by its largest scale over its distance, from the asset centre it carries', () => {
    const m = new Float32Array(16);
    new Matrix4().compose(new Vector3(10, 0, 0), new Quaternion(), new Vector3(1, 3, 2)).toArray(m);
    // Centre (0, 1, 0) lands at (10, 3, 0); seen from (10, 3, 12): d = 12, s = 3.
    expect(instanceMeasure(m, 0, 0, 1, 0, 10, 3, 12, false)).toBeCloseTo(9 / 144, 9);
    expect(instanceMeasure(m, 0, 0, 1, 0, 10, 3, 12, true)).toBeCloseTo(9, 6);
    const at = new Float64Array(3);
    const world = new Matrix4().makeTranslation(5, 0, 0).multiply(new Matrix4().makeScale(2, 2, 2));
    const v = view();
    v.x = 9;
    expect(viewInGroup(v, world, new Matrix4(), at)).toBeCloseTo(2, 9);
    expect([...at]).toEqual([2, 0, 0]);
  });
});
