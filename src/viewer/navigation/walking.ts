import { KEYBOARD_SPEED } from '../../protocol/constants';
import type { KeyAction } from '../input/keymap';

/** How much faster walking is with Shift held. */
export const RUN_FACTOR = 4;

/**
 * Walking speed in world units per second: KEYBOARD_SPEED metres per millisecond, scaled down by
 * the bounding radius for scenes smaller than 1 m, times RUN_FACTOR while running.
 */
export function walkSpeed(radius: number, running: boolean): number {
  const scale = radius > 0 && Number.isFinite(radius) ? Math.min(1, radius) : 1;
  return KEYBOARD_SPEED * 1000 * scale * (running ? RUN_FACTOR : 1);
}

/** The key map's walking actions as [forward, right, up] steps. */
export const WALK_STEPS: Readonly<Partial<Record<KeyAction, readonly [number, number, number]>>> = {
  'walk-forward': [1, 0, 0],
  'walk-back': [-1, 0, 0],
  'walk-right': [0, 1, 0],
  'walk-left': [0, -1, 0],
  'walk-up': [0, 0, 1],
  'walk-down': [0, 0, -1],
};

export const WALK_ACTIONS = Object.keys(WALK_STEPS) as KeyAction[];

/** The direction of the held walking actions, each axis -1, 0 or 1, into `out` ([forward, right, up]). */
export function walkDirection(held: ReadonlySet<KeyAction>, out: [number, number, number]): [number, number, number] {
  let f = 0;
  let r = 0;
  let u = 0;
  for (const action of held) {
    const step = WALK_STEPS[action];
    if (!step) continue;
    f += step[0];
    r += step[1];
    u += step[2];
  }
  out[0] = Math.sign(f);
  out[1] = Math.sign(r);
  out[2] = Math.sign(u);
  return out;
}

const steps: [number, number, number] = [0, 0, 0];

/** The controls' walk from the held keys: their direction and the speed for the scene (running with Shift). */
export function applyWalk(
  walk: { forward: number; right: number; up: number; speed: number },
  held: ReadonlySet<KeyAction>,
  radius: number,
  running: boolean,
): void {
  walkDirection(held, steps);
  walk.forward = steps[0];
  walk.right = steps[1];
  walk.up = steps[2];
  walk.speed = walkSpeed(radius, running);
}
