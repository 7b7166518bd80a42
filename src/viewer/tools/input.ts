import { createClickTracker, createDoubleClickDetector, type ClickTracker } from './click-tracker';

/** Keys the tools act on (routed to the active tool, or to the selection). */
export type KeyAction = 'escape' | 'delete' | 'enter' | 'undo';

/**
 * The tools' action for a key press, or null. Nothing while focus is in a text field (typing a
 * name must not delete a measurement), and Enter is left to a focused button or link.
 */
export function keyAction(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey' | 'target'>): KeyAction | null {
  if (isTextEntry(event.target)) return null;
  switch (event.key) {
    case 'Escape':
      return 'escape';
    case 'Delete':
    case 'Backspace':
      return event.ctrlKey || event.metaKey || event.altKey ? null : 'delete';
    case 'Enter':
      return isActivatable(event.target) ? null : 'enter';
    case 'z':
    case 'Z':
      return (event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey ? 'undo' : null;
    default:
      return null;
  }
}

function isTextEntry(target: EventTarget | null): boolean {
  const element = target as (HTMLElement & { type?: string }) | null;
  if (!element || typeof element.tagName !== 'string') return false;
  const tag = element.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'color'].includes(element.type ?? 'text');
  return element.isContentEditable === true;
}

function isActivatable(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || typeof element.tagName !== 'string') return false;
  const tag = element.tagName.toLowerCase();
  return tag === 'button' || tag === 'a' || element.getAttribute('role') === 'button';
}

/** What the pointer dispatcher calls; the tools (index.ts) implement it. Coordinates are client pixels. */
export interface InputHandlers {
  /**
   * A left press on the canvas: true when a tool takes it as a handle drag (a measurement point, the
   * section gizmo). Camera input is then off until the release; a release that did not move is
   * also reported as a click.
   */
  grab(clientX: number, clientY: number): boolean;
  /** The grabbed pointer moved: at most once per animation frame, and once more right before `release` if a move is pending. */
  drag(clientX: number, clientY: number): void;
  release(clientX: number, clientY: number): void;
  /** A left click (not a drag) without Shift. */
  click(clientX: number, clientY: number): void;
  /** Shift + left click: the point sampler. */
  shiftClick(clientX: number, clientY: number): void;
  /** The second of two quick clicks (or taps) at one place, reported after its click. */
  doubleClick(clientX: number, clientY: number): void;
  /** The pointer moved over the canvas with no button pressed; at most once per animation frame. */
  hover(clientX: number, clientY: number): void;
  /** The pointer left the canvas. */
  leave(): void;
  /** Returns true when the key was used (its default action is then prevented). */
  key(action: KeyAction): boolean;
}

/** The camera input that a handle drag turns off (camera-controls' `enabled`). */
export interface CameraInput {
  enabled: boolean;
}

export interface PointerInput {
  dispose(): void;
}

/**
 * The pointer and keyboard dispatcher on the viewer's container. It listens in the capture phase,
 * so it sees a press before camera-controls (which listens on the same element) and can turn the
 * camera off for a handle drag. Only presses on the viewer's canvas count: overlays (panels,
 * labels, the orientation gizmo) are the UI's. A second finger cancels the click in progress (a
 * pinch is not a tap). Keys count only while the viewer has the focus. Hover work is coalesced to
 * one call per animation frame, and so are handle drags, with no allocation per move.
 */
export function attachPointerInput(
  container: HTMLElement,
  canvas: HTMLCanvasElement,
  camera: () => CameraInput,
  handlers: InputHandlers,
): PointerInput {
  const view = container.ownerDocument.defaultView ?? window;
  const tracker: ClickTracker = createClickTracker();
  const doubles = createDoubleClickDetector();
  let grabbed = false;
  let grabPointer = -1;
  let cameraWasEnabled = true;
  let hoverX = 0;
  let hoverY = 0;
  let hoverQueued = false;
  let hoverFrame = 0;
  // A handle drag, like hover, runs at most once per animation frame, with the latest position.
  let dragX = 0;
  let dragY = 0;
  let dragQueued = false;
  let dragFrame = 0;

  // The viewer's canvas only: presses on overlays (panels, labels, the orientation gizmo) are the UI's.
  const onCanvas = (event: Event) => event.target === canvas;

  const runHover = () => {
    hoverQueued = false;
    handlers.hover(hoverX, hoverY);
  };
  const runDrag = () => {
    dragQueued = false;
    handlers.drag(dragX, dragY);
  };
  /** Runs a drag still waiting for its frame now (before the release, so the drop is where the pointer let go). */
  const flushDrag = () => {
    if (!dragQueued) return;
    view.cancelAnimationFrame(dragFrame);
    runDrag();
  };

  const onPointerDown = (event: PointerEvent) => {
    owned = true;
    if (!event.isPrimary) {
      // A second finger: a pinch or a two-finger pan, never a click or half of a double tap.
      tracker.cancel();
      doubles.reset();
      return;
    }
    if (!onCanvas(event)) return;
    if (event.button !== 0) {
      tracker.cancel();
      return;
    }
    tracker.down(event.clientX, event.clientY, event.timeStamp, event.button);
    if (!event.shiftKey && handlers.grab(event.clientX, event.clientY)) {
      grabbed = true;
      grabPointer = event.pointerId;
      const controls = camera();
      cameraWasEnabled = controls.enabled;
      controls.enabled = false;
      try {
        container.setPointerCapture(event.pointerId);
      } catch {
        // A synthetic or already released pointer cannot be captured; the drag still works on the canvas.
      }
    }
  };

  const onPointerMove = (event: PointerEvent) => {
    if (grabbed && event.pointerId === grabPointer) {
      tracker.move(event.clientX, event.clientY);
      dragX = event.clientX;
      dragY = event.clientY;
      if (!dragQueued) {
        dragQueued = true;
        dragFrame = view.requestAnimationFrame(runDrag);
      }
      return;
    }
    tracker.move(event.clientX, event.clientY);
    if (event.buttons === 0 && onCanvas(event)) {
      hoverX = event.clientX;
      hoverY = event.clientY;
      if (!hoverQueued) {
        hoverQueued = true;
        hoverFrame = view.requestAnimationFrame(runHover);
      }
    }
  };

  const onPointerUp = (event: PointerEvent) => {
    let kind: 'click' | 'drag' | null;
    if (grabbed && event.pointerId === grabPointer) {
      grabbed = false;
      kind = tracker.up(event.clientX, event.clientY, event.timeStamp, event.button);
      flushDrag();
      handlers.release(event.clientX, event.clientY);
      camera().enabled = cameraWasEnabled;
      try {
        container.releasePointerCapture(event.pointerId);
      } catch {
        // Already released.
      }
      // A press on a handle that did not move is still a click (a measurement started on the
      // corner another measurement already uses).
    } else {
      kind = tracker.up(event.clientX, event.clientY, event.timeStamp, event.button);
    }
    // The press was on the canvas (the tracker only follows those); the release may be anywhere.
    if (kind !== 'click') {
      if (kind === 'drag') doubles.reset();
      return;
    }
    if (event.shiftKey) {
      doubles.reset();
      handlers.shiftClick(event.clientX, event.clientY);
      return;
    }
    handlers.click(event.clientX, event.clientY);
    if (doubles.click(event.clientX, event.clientY, event.timeStamp, event.pointerType === 'touch')) handlers.doubleClick(event.clientX, event.clientY);
  };

  const onPointerCancel = (event: PointerEvent) => {
    tracker.cancel();
    if (grabbed && event.pointerId === grabPointer) {
      grabbed = false;
      flushDrag();
      handlers.release(event.clientX, event.clientY);
      camera().enabled = cameraWasEnabled;
    }
  };

  const onLeave = () => handlers.leave();

  // The keys are the viewer's only while it has the focus: an element inside the container, or
  // nothing (the body) after the viewer was the last place pressed or focused (a focused panel
  // button that goes away leaves the focus on the body). Keys typed on the host page, in an
  // editor's panels or in another viewer are not the tools'.
  const doc = container.ownerDocument;
  let owned = false;
  const inside = (target: EventTarget | null) => !!target && container.contains(target as Node);
  const onFocusIn = (event: FocusEvent) => {
    owned = inside(event.target);
  };
  const onOutsidePress = (event: PointerEvent) => {
    if (!inside(event.target)) owned = false;
  };
  const hasFocus = (target: EventTarget | null) =>
    inside(target) || (owned && (target === null || target === doc.body || target === doc.documentElement || target === doc));

  const onKeyDown = (event: KeyboardEvent) => {
    if (!hasFocus(event.target)) return;
    if (event.defaultPrevented || (event.repeat && event.key !== "z" && event.key !== "Z")) return;
    const action = keyAction(event);
    if (action && handlers.key(action)) event.preventDefault();
  };

  container.addEventListener('pointerdown', onPointerDown, true);
  container.addEventListener('pointermove', onPointerMove, true);
  container.addEventListener('pointerup', onPointerUp, true);
  container.addEventListener('pointercancel', onPointerCancel, true);
  container.addEventListener('pointerleave', onLeave);
  view.addEventListener('keydown', onKeyDown);
  doc.addEventListener('focusin', onFocusIn);
  doc.addEventListener('pointerdown', onOutsidePress, true);

  return {
    dispose() {
      if (hoverQueued) view.cancelAnimationFrame(hoverFrame);
      if (dragQueued) view.cancelAnimationFrame(dragFrame);
      if (grabbed) camera().enabled = cameraWasEnabled;
      container.removeEventListener('pointerdown', onPointerDown, true);
      container.removeEventListener('pointermove', onPointerMove, true);
      container.removeEventListener('pointerup', onPointerUp, true);
      container.removeEventListener('pointercancel', onPointerCancel, true);
      container.removeEventListener('pointerleave', onLeave);
      view.removeEventListener('keydown', onKeyDown);
      doc.removeEventListener('focusin', onFocusIn);
      doc.removeEventListener('pointerdown', onOutsidePress, true);
    },
  };
}
