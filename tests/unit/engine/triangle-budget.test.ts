import { describe, expect, it } from 'vitest';
import {
  afterFrame,
  beforeFrame,
  createTriangleBudget,
  LOWER_BELOW,
  MAX_LEVEL_BIAS,
  measureShadowPasses,
  MOVING_BUDGET_SHARE,
  noteCameraMoved,
  refineDue,
  REST_MS,
  TRIANGLE_BUDGETS,
  type TriangleBudget,
} from '../../../src/engine/triangle-budget';

/** A view whose levelled instances cost `levelled / bias^exponent` and whose other meshes `fixed`. */
function view(levelled: number, fixed = 0, exponent = 2) {
  return (bias: number) => Math.round(fixed + levelled / bias ** exponent);
}

/** Draws frames at rest (the camera last moved long before) until the bias stops changing; returns the biases drawn. */
function settle(state: TriangleBudget, cost: (bias: number) => number, now: number, frames = 20): number[] {
  const drawn: number[] = [];
  for (let i = 0; i < frames; i++) {
    beforeFrame(state, now);
    drawn.push(state.bias);
    const changed = afterFrame(state, cost(state.bias), now);
    now += 16;
    if (!changed) break;
  }
  return drawn;
}

describe('the triangle budget', () => {
  it('each tier has one, larger for a stronger tier', () => {
    expect(TRIANGLE_BUDGETS.low).toBeGreaterThan(0);
    expect(TRIANGLE_BUDGETS.medium).toBeGreaterThan(TRIANGLE_BUDGETS.low);
    expect(TRIANGLE_BUDGETS.high).toBeGreaterThan(TRIANGLE_BUDGETS.medium);
  });

  it('without a budget the bias stays 1, whatever a frame costs', () => {
    const state = createTriangleBudget(0);
    expect(afterFrame(state, 50_000_000, 10_000)).toBe(false);
    expect(state.bias).toBe(1);
    expect(state.over).toBe(false);
  });

  it('a frame over the budget at rest raises the bias until the frame fits, in a frame or two', () => {
    const state = createTriangleBudget(1_000_000);
    const cost = view(4_000_000);
    const drawn = settle(state, cost, 10_000);
    expect(drawn[0]).toBe(1);
    expect(drawn.length).toBeLessThanOrEqual(3);
    expect(cost(state.bias)).toBeLessThanOrEqual(1_000_000);
    // Not coarser than it must be: one step finer would be over.
    expect(cost(state.bias / 2 ** 0.25)).toBeGreaterThan(LOWER_BELOW * 1_000_000);
    expect(state.over).toBe(false);
  });

  it('a frame within the budget keeps its bias: no change between LOWER_BELOW of the target and the target', () => {
    const state = createTriangleBudget(1_000_000);
    state.bias = 2;
    expect(afterFrame(state, 900_000, 10_000)).toBe(false);
    expect(afterFrame(state, 610_000, 10_016)).toBe(false);
    expect(state.bias).toBe(2);
  });

  it('a frame mostly of a fixed part (casters without coarser meshes) still fits in a few frames: the second frame splits the cost', () => {
    const state = createTriangleBudget(1_000_000);
    const cost = view(600_000, 600_000);
    const drawn = settle(state, cost, 10_000);
    expect(drawn.length).toBeLessThanOrEqual(4);
    expect(cost(state.bias)).toBeLessThanOrEqual(1_000_000);
    expect(state.over).toBe(false);
  });

  it('a frame that no bias makes cheaper goes up an octave a frame to the largest bias, then says it is over', () => {
    const state = createTriangleBudget(1_000_000);
    const drawn = settle(state, () => 1_500_000, 10_000);
    expect(drawn).toEqual([1, 2 ** 0.5, 2 ** 1.5, 2 ** 2.5, MAX_LEVEL_BIAS]);
    expect(state.over).toBe(true);
  });

  it('levels that change only past a larger step (their hysteresis) are found by the octave steps', () => {
    const state = createTriangleBudget(1_000_000);
    // Nothing changes below bias 2; above, the picture part gives way.
    const drawn = settle(state, (b) => (b < 2 ? 1_400_000 : 600_000 + 800_000 / b ** 2), 10_000);
    expect(drawn.length).toBeLessThanOrEqual(4);
    expect(state.bias).toBeGreaterThanOrEqual(2);
    expect(state.cost).toBeLessThanOrEqual(1_000_000);
    expect(state.over).toBe(false);
  });

  it('a budget meshes without levels exceed leaves the bias at its largest and says so', () => {
    const state = createTriangleBudget(1_000_000);
    const cost = view(500_000, 2_000_000);
    settle(state, cost, 10_000);
    expect(state.bias).toBe(MAX_LEVEL_BIAS);
    expect(state.over).toBe(true);
  });

  it('while the camera moves the frame gets the moving share, and at rest the picture refines', () => {
    const state = createTriangleBudget(1_000_000);
    const cost = view(800_000);
    let now = 10_000;
    // Moving: 800k is over the moving target of 500k.
    for (let i = 0; i < 5; i++, now += 16) {
      noteCameraMoved(state, now);
      expect(refineDue(state, now)).toBe(false);
      beforeFrame(state, now);
      afterFrame(state, cost(state.bias), now);
    }
    expect(state.target).toBe(1_000_000 * MOVING_BUDGET_SHARE);
    expect(state.bias).toBeGreaterThan(1);
    expect(cost(state.bias)).toBeLessThanOrEqual(1_000_000 * MOVING_BUDGET_SHARE);
    // Still within REST_MS of the last move: no refinement yet.
    expect(refineDue(state, now + REST_MS - 50)).toBe(false);
    // At rest: a picture is due, drawn at full detail (800k fits the whole budget).
    now += REST_MS;
    expect(refineDue(state, now)).toBe(true);
    beforeFrame(state, now);
    expect(state.bias).toBe(1);
    expect(afterFrame(state, cost(state.bias), now)).toBe(false);
    expect(state.target).toBe(1_000_000);
    expect(refineDue(state, now + 1000)).toBe(false);
  });

  it('a lowering at rest that overshoots is undone once and not tried again until the camera moves (no flicker)', () => {
    const state = createTriangleBudget(1_000_000);
    // Steeper than the model: lowering the bias costs far more than predicted.
    const cost = view(300_000, 0, 6);
    state.bias = 2;
    const drawn = settle(state, (b) => (b < 2 ? 3_000_000 : cost(b)), 10_000, 30);
    // 2 -> 1 (its cost of 4.7k is far under) -> 3M, over -> raised until under again, then it stays.
    expect(drawn.slice(0, 2)).toEqual([2, 1]);
    expect(drawn.length).toBeLessThanOrEqual(5);
    expect(state.bias).toBeGreaterThanOrEqual(2);
    expect(state.settled).toBe(true);
    const bias = state.bias;
    expect(settle(state, (b) => (b < 2 ? 3_000_000 : cost(b)), 20_000)).toEqual([bias]);
    // A move lets it try again.
    noteCameraMoved(state, 30_000);
    expect(state.settled).toBe(false);
  });

  it('judges a camera-only frame with the shadow maps last drawn', () => {
    const state = createTriangleBudget(1_000_000);
    state.frameShadow = 700_000;
    afterFrame(state, 900_000, 10_000);
    expect(state).toMatchObject({ pictureTriangles: 200_000, shadowTriangles: 700_000, cost: 900_000 });
    // No shadow map drawn this frame: 500k of picture still costs the 700k of shadows with it.
    afterFrame(state, 500_000, 10_016);
    expect(state).toMatchObject({ pictureTriangles: 500_000, shadowTriangles: 700_000, cost: 1_200_000 });
    expect(state.bias).toBeGreaterThan(1);
  });

  it('counts the triangles of shadow-map updates that draw, not of those three.js skips', () => {
    const state = createTriangleBudget(1_000_000);
    const info = { render: { triangles: 0 } };
    const shadowMap = {
      enabled: true,
      autoUpdate: true,
      needsUpdate: false,
      render(lights: readonly unknown[], _scene: unknown, _camera: unknown) {
        if (!this.enabled || (!this.autoUpdate && !this.needsUpdate) || lights.length === 0) return;
        info.render.triangles += 1000 * lights.length;
      },
    };
    measureShadowPasses({ shadowMap, info }, state);
    info.render.triangles = 50;
    shadowMap.render([1, 2], null, null);
    expect(state.frameShadow).toBe(2000);
    shadowMap.render([1], null, null);
    expect(state.frameShadow).toBe(3000);
    state.frameShadow = null;
    shadowMap.autoUpdate = false;
    shadowMap.render([1], null, null);
    expect(state.frameShadow).toBeNull();
    shadowMap.autoUpdate = true;
    shadowMap.render([], null, null);
    expect(state.frameShadow).toBeNull();
  });
});
