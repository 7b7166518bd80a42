import { describe, expect, it } from 'vitest';
import { KEYBOARD_SPEED } from '../../../../src/protocol/constants';
import type { KeyAction } from '../../../../src/viewer/input/keymap';
import { KEY_MAP } from '../../../../src/viewer/input/keymap';
import { RUN_FACTOR, WALK_ACTIONS, walkDirection, walkSpeed } from '../../../../src/viewer/navigation/walking';

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
