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

/** Two clicks within this many ms and pixels (mouse; touch allows a wider slop) are a double-click. */
export const DOUBLE_CLICK_MS = 400;
export const DOUBLE_CLICK_PX = 8;
export const DOUBLE_TAP_PX = 24;

/**
 * Double-clicks from clicks, for every pointer type: the browser's `dblclick` does not come for a
 * double tap on every touch device, and a drag between the two presses must not count. A third
 * click starts a new pair.
 */
export interface DoubleClickDetector {
  /** Reports a click; true when it completes a double-click. */
  click(x: number, y: number, time: number, touch: boolean): boolean;
  reset(): void;
}

export function createDoubleClickDetector(maxInterval = DOUBLE_CLICK_MS): DoubleClickDetector {
  let pending = false;
  let lastX = 0;
  let lastY = 0;
  let lastTime = 0;
  return {
    click(x, y, time, touch) {
      const slop = touch ? DOUBLE_TAP_PX : DOUBLE_CLICK_PX;
      if (pending && time - lastTime <= maxInterval && Math.hypot(x - lastX, y - lastY) <= slop) {
        pending = false;
        return true;
      }
      pending = true;
      lastX = x;
      lastY = y;
      lastTime = time;
      return false;
    },
    reset() {
      pending = false;
    },
  };
}
