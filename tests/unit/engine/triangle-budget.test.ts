import { describe, expect, it } from 'vitest';
import {
  afterFrame,
  beforeFrame,
  createTriangleBudget,
  MAX_LEVEL_BIAS,
  measureShadowPasses,
  MOVING_BUDGET_SHARE,
  noteCameraMoved,
  refineDue,
  REFINE_AIM,
  REST_MS,
  setTriangleBudget,
  TRIANGLE_BUDGETS,
  type TriangleBudget,
} from '../../../src/engine/triangle-budget';

/** A view whose levelled instances cost `levelled / bias^exponent` and whose other meshes `fixed`. */
function view(levelled: number, fixed = 0, exponent = 2) {
  return (bias: number) => Math.round(fixed + levelled / bias ** exponent);
}

/**
 * Draws frames at rest (the camera last moved long before) until the bias stops changing; returns
 * the biases drawn. `finer`: the picture's triangles finer than their coarsest level at a bias (not known: Infinity).
 */
function settle(state: TriangleBudget, cost: (bias: number) => number, now: number, frames = 20, finer: (bias: number) => number = () => Infinity): number[] {
  const drawn: number[] = [];
  for (let i = 0; i < frames; i++) {
    beforeFrame(state, now);
    drawn.push(state.bias);
    const changed = afterFrame(state, cost(state.bias), now, true, true, finer(state.bias));
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
    // Not coarser than it must be: one step finer is predicted over REFINE_AIM of the budget.
    expect(cost(state.bias / 2 ** 0.25)).toBeGreaterThan(REFINE_AIM * 1_000_000);
    expect(state.over).toBe(false);
  });

  it('keeps its bias while a finer one is predicted over REFINE_AIM of the budget, and lowers it to the finest that is not', () => {
    const state = createTriangleBudget(1_000_000);
    state.bias = 2;
    // At 1.68 this frame would cost 900k x (2 / 1.68)^2 = 1.27M.
    expect(afterFrame(state, 900_000, 10_000)).toBe(false);
    expect(state.bias).toBe(2);
    // 400k at 2: 1.6M at 1, 800k at 1.41.
    state.previousBias = 0;
    state.drawnBias = 0;
    expect(afterFrame(state, 400_000, 10_016)).toBe(true);
    expect(state.bias).toBe(2 ** 0.5);
  });

  it('a lowering that changed nothing goes on down an octave a frame to 1', () => {
    const state = createTriangleBudget(1_000_000);
    state.bias = MAX_LEVEL_BIAS;
    // Every instance a card at any bias from 1.5 (400k); finer, 500k: bias 1 is well within.
    const drawn = settle(state, (b) => (b >= 1.5 ? 400_000 : 500_000), 10_000);
    expect(state.bias).toBe(1);
    expect(drawn.length).toBeLessThanOrEqual(6);
  });

  it("a moving camera's frames are judged by what they draw; at rest the shadow maps they skipped count again", () => {
    const state = createTriangleBudget(1_500_000);
    // A frame with the shadow maps: 910k of them, 330k of picture at bias 1 (the street view).
    state.frameShadow = 910_000;
    afterFrame(state, 1_240_000, 10_000);
    expect(state.bias).toBe(1);
    // Moving: camera-only frames of 330k, under the moving target of 750k.
    for (let t = 20_000; t < 20_200; t += 16) {
      noteCameraMoved(state, t);
      beforeFrame(state, t);
      expect(afterFrame(state, 330_000, t)).toBe(false);
    }
    expect(state).toMatchObject({ bias: 1, cost: 330_000, shadowTriangles: 910_000 });
    // At rest nothing to refine: bias 1 with the shadows (1.24M) fits the budget.
    expect(refineDue(state, 21_000)).toBe(false);
    // A larger picture: coarser while moving; at rest, finer again, its 200k of shadows predicted with it.
    const other = createTriangleBudget(1_500_000);
    other.frameShadow = 200_000;
    afterFrame(other, 200_000 + 2_000_000, 10_000);
    const big = view(2_000_000);
    for (let t = 30_000; t < 30_200; t += 16) {
      noteCameraMoved(other, t);
      beforeFrame(other, t);
      afterFrame(other, big(other.bias), t);
    }
    const moving = other.bias;
    expect(big(moving)).toBeLessThanOrEqual(750_000);
    expect(refineDue(other, 31_000)).toBe(true);
    beforeFrame(other, 31_000);
    expect(other.bias).toBeLessThan(moving);
    expect(big(other.bias) + 200_000).toBeLessThanOrEqual(1_500_000);
    // Its 910k of shadows would not leave that room: at rest the bias rises instead.
    other.shadowTriangles = 910_000;
    other.bias = moving;
    other.drawnMoving = true;
    beforeFrame(other, 31_000);
    expect(big(other.bias) + 910_000).toBeLessThanOrEqual(1_500_000);
  });

  it('a new budget (a tier switched) forgets a settled rest and what it learnt', () => {
    const state = createTriangleBudget(1_000_000);
    state.bias = 3;
    state.settled = true;
    state.drawnBias = 3;
    setTriangleBudget(state, 12_000_000);
    expect(state).toMatchObject({ budget: 12_000_000, settled: false, drawnBias: 0 });
    settle(state, view(3_000_000), 10_000);
    expect(state.bias).toBe(1);
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

  it('a picture whose every instance is at its coarsest level (a city of cards) keeps its bias and says it is over at once', () => {
    const state = createTriangleBudget(1_000_000);
    const drawn = settle(
      state,
      () => 2_000_000,
      10_000,
      20,
      () => 0,
    );
    expect(drawn).toEqual([1]);
    expect(state.over).toBe(true);
  });

  it('a frame over its budget even with every finer instance free goes to the largest bias in one frame', () => {
    const state = createTriangleBudget(1_000_000);
    // 1.8 million at its coarsest, 400,000 more while finer (gone past bias 4).
    const drawn = settle(
      state,
      (b) => (b < 4 ? 2_200_000 : 1_800_000),
      10_000,
      20,
      (b) => (b < 4 ? 400_000 : 0),
    );
    expect(drawn).toEqual([1, MAX_LEVEL_BIAS]);
    expect(state.over).toBe(true);
    // Where the finer part could make it fit, the steps are as before (aimed, a frame or two).
    const fits = createTriangleBudget(1_000_000);
    const steps = settle(fits, view(1_200_000, 300_000), 10_000, 20, (b) => view(1_200_000)(b));
    expect(steps.length).toBeLessThanOrEqual(3);
    expect(fits.over).toBe(false);
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

  it('keeps the shadow maps last drawn for the frames that draw none', () => {
    const state = createTriangleBudget(1_000_000);
    state.frameShadow = 700_000;
    afterFrame(state, 900_000, 10_000);
    expect(state).toMatchObject({ pictureTriangles: 200_000, shadowTriangles: 700_000, cost: 900_000 });
    // No shadow map drawn this frame: it cost its 500k of picture; the next frame at rest (asked
    // for with the scene) draws the 700k of shadows too, which is over: the bias rises.
    afterFrame(state, 500_000, 10_016);
    expect(state).toMatchObject({ pictureTriangles: 500_000, shadowTriangles: 700_000, cost: 500_000 });
    expect(state.bias).toBeGreaterThan(1);
    // A frame of an animation's own shadow pass (30k) is not what redrawing the maps costs.
    state.frameShadow = 30_000;
    afterFrame(state, 330_000, 10_032, true, false);
    expect(state).toMatchObject({ pictureTriangles: 300_000, shadowTriangles: 700_000, frameShadowTriangles: 30_000, cost: 330_000 });
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
    // An update without lights has no shadow map: 0, not the ones drawn before.
    shadowMap.autoUpdate = true;
    shadowMap.render([], null, null);
    expect(state.frameShadow).toBe(0);
  });
});
