import { describe, expect, it } from 'vitest';
import { KEYBOARD_SPEED } from '../../../../src/protocol/constants';
import type { KeyAction } from '../../../../src/viewer/input/keymap';
import { KEY_MAP } from '../../../../src/viewer/input/keymap';
import { applyWalk, RUN_FACTOR, WALK_ACTIONS, walkDirection, walkSpeed } from '../../../../src/viewer/navigation/walking';

describe('walking', () => {
  it('walks KEYBOARD_SPEED metres per millisecond, slower in scenes under 1 m, RUN_FACTOR faster running', () => {
    expect(walkSpeed(10, false)).toBeCloseTo(KEYBOARD_SPEED * 1000, 12);
    expect(walkSpeed(0.25, false)).toBeCloseTo(KEYBOARD_SPEED * 250, 12);
    expect(walkSpeed(10, true)).toBeCloseTo(KEYBOARD_SPEED * 1000 * RUN_FACTOR, 12);
    expect(walkSpeed(0, false)).toBeCloseTo(KEYBOARD_SPEED * 1000, 12);
    expect(walkSpeed(Number.NaN, false)).toBeCloseTo(KEYBOARD_SPEED * 1000, 12);
  });

  it('opposite keys cancel; several keys give one step per axis', () => {
    const out: [number, number, number] = [9, 9, 9];
    const held = (...a: KeyAction[]) => new Set<KeyAction>(a);
    expect(walkDirection(held(), out)).toEqual([0, 0, 0]);
    expect(walkDirection(held('walk-forward', 'walk-right'), out)).toEqual([1, 1, 0]);
    expect(walkDirection(held('walk-forward', 'walk-back', 'walk-up'), out)).toEqual([0, 0, 1]);
    expect(walkDirection(held('walk-left', 'walk-down'), out)).toEqual([0, -1, -1]);
    expect(walkDirection(held('undo' as KeyAction), out)).toEqual([0, 0, 0]);
  });

  it('every walking action is declared in the key map', () => {
    const declared = new Set(KEY_MAP.map((k) => k.action));
    for (const action of WALK_ACTIONS) expect(declared.has(action)).toBe(true);
  });
});

describe('the walk on the controls', () => {
  it('takes the held keys as its direction and the scene and Shift as its speed', () => {
    const walk = { forward: 9, right: 9, up: 9, speed: 0 };
    applyWalk(walk, new Set<KeyAction>(['walk-forward', 'walk-left']), 10, true);
    expect(walk).toEqual({ forward: 1, right: -1, up: 0, speed: walkSpeed(10, true) });
    applyWalk(walk, new Set<KeyAction>(), 0.5, false);
    expect(walk).toEqual({ forward: 0, right: 0, up: 0, speed: walkSpeed(0.5, false) });
  });
});
