import { Mesh } from 'three';
import { describe, expect, it } from 'vitest';
import { createPickState, resetBest } from '../../../../src/viewer/picking/state';

describe('createPickState and resetBest', () => {
  it('starts with the whole ray drawn, local clipping on and no best hit; resetBest forgets only the best hit', () => {
    const state = createPickState();
    expect(state.near).toBe(0);
    expect(state.far).toBe(Infinity);
    expect(state.localClipping).toBe(true);
    expect(state.best.object).toBeNull();
    expect(state.best.distance).toBe(Infinity);
    const point = state.best.point;
    state.best.object = new Mesh();
    state.best.distance = 4;
    state.best.point.set(1, 2, 3);
    state.near = 1;
    resetBest(state);
    expect(state.best.object).toBeNull();
    expect(state.best.distance).toBe(Infinity);
    // The scratch vectors stay (reused by the next pick).
    expect(state.best.point).toBe(point);
    expect(state.near).toBe(1);
  });

  it('gives each picker its own state', () => {
    const a = createPickState();
    const b = createPickState();
    expect(a.ray).not.toBe(b.ray);
    expect(a.best).not.toBe(b.best);
    expect(a.best.matrix).not.toBe(b.best.matrix);
  });
});
