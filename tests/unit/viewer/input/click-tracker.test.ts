import { describe, expect, it } from 'vitest';
import { createClickTracker, createDoubleClickDetector } from '../../../../src/viewer/input/click-tracker';

describe('click tracker', () => {
  it('tells a click from a drag by the movement threshold', () => {
    const t = createClickTracker(5, 800);
    t.down(100, 100, 0, 0);
    t.move(102, 103);
    expect(t.dragging).toBe(false);
    expect(t.up(103, 103, 100, 0)).toBe('click');
    t.down(100, 100, 0, 0);
    t.move(110, 100);
    expect(t.dragging).toBe(true);
    // Coming back to the start does not make it a click again.
    t.move(100, 100);
    expect(t.up(100, 100, 100, 0)).toBe('drag');
  });

  it('treats a long press as a hold, and ignores releases of other buttons', () => {
    const t = createClickTracker(5, 800);
    t.down(0, 0, 0, 0);
    expect(t.up(0, 0, 900, 0)).toBe('drag');
    t.down(0, 0, 0, 0);
    expect(t.up(0, 0, 10, 2)).toBeNull();
    expect(t.up(0, 0, 20, 0)).toBe('click');
    expect(t.up(0, 0, 30, 0)).toBeNull();
  });
});

describe('double-click detector', () => {
  it('pairs two quick clicks at one place, then starts over', () => {
    const d = createDoubleClickDetector(400);
    expect(d.click(10, 10, 0, false)).toBe(false);
    expect(d.click(12, 11, 250, false)).toBe(true);
    expect(d.click(12, 11, 300, false)).toBe(false); // a third click starts a new pair
    expect(d.click(12, 11, 800, false)).toBe(false); // too late: a new first click
    expect(d.click(40, 11, 900, false)).toBe(false); // too far
  });

  it('allows a wider slop for taps, and forgets a click after a drag', () => {
    const d = createDoubleClickDetector(400);
    d.click(10, 10, 0, true);
    expect(d.click(30, 10, 200, true)).toBe(true);
    d.click(10, 10, 1000, false);
    d.reset();
    expect(d.click(10, 10, 1100, false)).toBe(false);
  });
});
