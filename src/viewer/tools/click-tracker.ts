/**
 * Tells a click from a drag: a press and release of the same button that moved less than
 * `threshold` CSS pixels (camera-controls turns larger moves into rotation or panning) and lasted
 * less than `maxDuration` ms (a long press is a hold, not a click). Pure state, no DOM.
 */
export const CLICK_THRESHOLD_PX = 5;
export const CLICK_MAX_MS = 800;

export interface ClickTracker {
  down(x: number, y: number, time: number, button: number): void;
  move(x: number, y: number): void;
  /** 'click' or 'drag' for the press that ends, null when no press of that button was tracked. */
  up(x: number, y: number, time: number, button: number): 'click' | 'drag' | null;
  /** Whether a tracked press has moved past the threshold. */
  readonly dragging: boolean;
  readonly pressed: boolean;
  cancel(): void;
}

export function createClickTracker(threshold = CLICK_THRESHOLD_PX, maxDuration = CLICK_MAX_MS): ClickTracker {
  let pressed = false;
  let button = -1;
  let startX = 0;
  let startY = 0;
  let startTime = 0;
  let moved = false;
  const far = (x: number, y: number) => Math.hypot(x - startX, y - startY) >= threshold;
  return {
    down(x, y, time, b) {
      pressed = true;
      button = b;
      startX = x;
      startY = y;
      startTime = time;
      moved = false;
    },
    move(x, y) {
      if (pressed && !moved && far(x, y)) moved = true;
    },
    up(x, y, time, b) {
      if (!pressed || b !== button) return null;
      pressed = false;
      if (moved || far(x, y) || time - startTime > maxDuration) return 'drag';
      return 'click';
    },
    get dragging() {
      return pressed && moved;
    },
    get pressed() {
      return pressed;
    },
    cancel() {
      pressed = false;
      moved = false;
    },
  };
}
