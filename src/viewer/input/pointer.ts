import { addFrameStep } from '../../engine/frame-steps';
import type { ViewerWorld } from '../../engine/world';
import { createClickTracker, createDoubleClickDetector, type ClickTracker } from './click-tracker';

/** What the pointer dispatcher calls; the tools implement it. Coordinates are client pixels. */
export interface PointerHandlers {
  /**
   * A left press on the canvas: true when a tool takes it as a handle drag (a measurement point, the
   * section gizmo). Camera input is then off until the release; a release that did not move is
   * also reported as a click.
   */
  grab(clientX: number, clientY: number): boolean;
  /** The grabbed pointer moved: once per frame (the frame's input slot), and once more right before `release` if a move is pending. */
  drag(clientX: number, clientY: number): void;
  release(clientX: number, clientY: number): void;
  /** A left click (not a drag) without Shift. */
  click(clientX: number, clientY: number): void;
  /** Shift + left click: the point sampler. */
  shiftClick(clientX: number, clientY: number): void;
  /** The second of two quick clicks (or taps) at one place, reported after its click. */
  doubleClick(clientX: number, clientY: number): void;
  /** The pointer moved over the canvas with no button pressed; once per frame. */
  hover(clientX: number, clientY: number): void;
  /** The pointer left the canvas. */
  leave(): void;
}

/** The camera input that a handle drag turns off (camera-controls' `enabled`). */
export interface CameraInput {
  enabled: boolean;
}

export interface PointerInput {
  dispose(): void;
}

/**
 * The pointer dispatcher on the viewer's container. It listens in the capture phase, so it sees a
 * press before camera-controls (which listens on the canvas) and can turn the camera off for a
 * handle drag. Only presses on the viewer's canvas count: overlays (panels, labels, the orientation
 * gizmo) are the UI's. A press on the canvas gives it the keyboard focus. A second finger cancels
 * the click in progress (a pinch is not a tap). Hover and handle drags are coalesced: the latest
 * position is kept and handled once per frame by a step of the frame's input slot, with no
 * allocation per move.
 */
export function attachPointerInput(
  world: ViewerWorld,
  container: HTMLElement,
  canvas: HTMLCanvasElement,
  camera: () => CameraInput,
  handlers: PointerHandlers,
): PointerInput {
  const tracker: ClickTracker = createClickTracker();
  const doubles = createDoubleClickDetector();
  let grabbed = false;
  let grabPointer = -1;
  let cameraWasEnabled = true;
  let hoverX = 0;
  let hoverY = 0;
  let hoverPending = false;
  let dragX = 0;
  let dragY = 0;
  let dragPending = false;

  const onCanvas = (event: Event) => event.target === canvas;

  const runDrag = () => {
    dragPending = false;
    handlers.drag(dragX, dragY);
  };
  const removeStep = addFrameStep(world, 'input', {
    name: 'pointer',
    run() {
      if (dragPending) runDrag();
      if (hoverPending) {
        hoverPending = false;
        handlers.hover(hoverX, hoverY);
      }
    },
  });

  const onPointerDown = (event: PointerEvent) => {
    if (!event.isPrimary) {
      // A second finger: a pinch or a two-finger pan, never a click or half of a double tap.
      tracker.cancel();
      doubles.reset();
      return;
    }
    if (!onCanvas(event)) return;
    // A press on the 3D view gives it the keyboard.
    if (canvas.ownerDocument.activeElement !== canvas) canvas.focus({ preventScroll: true });
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
    tracker.move(event.clientX, event.clientY);
    if (grabbed && event.pointerId === grabPointer) {
      dragX = event.clientX;
      dragY = event.clientY;
      dragPending = true;
      world.render.needsRender = true;
      return;
    }
    if (event.buttons === 0 && onCanvas(event)) {
      hoverX = event.clientX;
      hoverY = event.clientY;
      hoverPending = true;
    }
  };

  const endGrab = (event: PointerEvent) => {
    grabbed = false;
    // A move still waiting for its frame runs now: the drop is where the pointer let go.
    if (dragPending) runDrag();
    handlers.release(event.clientX, event.clientY);
    camera().enabled = cameraWasEnabled;
  };

  const onPointerUp = (event: PointerEvent) => {
    const wasGrab = grabbed && event.pointerId === grabPointer;
    const kind = tracker.up(event.clientX, event.clientY, event.timeStamp, event.button);
    if (wasGrab) {
      endGrab(event);
      try {
        container.releasePointerCapture(event.pointerId);
      } catch {
        // Already released.
      }
      // A press on a handle that did not move is still a click (a measurement started on the
      // corner another measurement already uses).
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
    if (grabbed && event.pointerId === grabPointer) endGrab(event);
  };

  const onLeave = () => {
    hoverPending = false;
    handlers.leave();
  };

  container.addEventListener('pointerdown', onPointerDown, true);
  container.addEventListener('pointermove', onPointerMove, true);
  container.addEventListener('pointerup', onPointerUp, true);
  container.addEventListener('pointercancel', onPointerCancel, true);
  container.addEventListener('pointerleave', onLeave);

  return {
    dispose() {
      removeStep();
      if (grabbed) camera().enabled = cameraWasEnabled;
      container.removeEventListener('pointerdown', onPointerDown, true);
      container.removeEventListener('pointermove', onPointerMove, true);
      container.removeEventListener('pointerup', onPointerUp, true);
      container.removeEventListener('pointercancel', onPointerCancel, true);
      container.removeEventListener('pointerleave', onLeave);
    },
  };
}
