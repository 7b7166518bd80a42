import type { PointerSample, PointerSink } from './pointer-router';

export type { CameraInput, PointerHandler, PointerRouter, PointerSlot } from './pointer-router';

/**
 * The DOM source of the pointer router (pointer-router.ts): one set of listeners on the viewer's
 * container. They listen in the capture phase, so they see a press before camera-controls (which
 * listens on the canvas) and the router can turn the camera off for a handle drag, and a wheel
 * before camera-controls zooms. Only presses, moves and wheels on the viewer's canvas count:
 * overlays (panels, labels, the orientation gizmo) are the UI's. A press on the canvas gives it the
 * keyboard focus; a grabbed pointer is captured by the container until its release. One sample
 * object is filled again for every event (no allocation per move).
 */
export function attachDomPointerSource(sink: PointerSink, container: HTMLElement, canvas: HTMLCanvasElement): () => void {
  const sample: PointerSample = { id: 0, x: 0, y: 0, time: 0, button: 0, buttons: 0, shift: false, primary: true, kind: 'mouse', onCanvas: false };
  const fill = (event: PointerEvent) => {
    sample.id = event.pointerId;
    sample.x = event.clientX;
    sample.y = event.clientY;
    sample.time = event.timeStamp;
    sample.button = event.button;
    sample.buttons = event.buttons;
    sample.shift = event.shiftKey;
    sample.primary = event.isPrimary;
    sample.kind = event.pointerType;
    sample.onCanvas = event.target === canvas;
    return sample;
  };

  const onPointerDown = (event: PointerEvent) => {
    fill(event);
    // A press on the 3D view gives it the keyboard.
    if (sample.primary && sample.onCanvas && canvas.ownerDocument.activeElement !== canvas) canvas.focus({ preventScroll: true });
    if (!sink.down(sample)) return;
    try {
      container.setPointerCapture(event.pointerId);
    } catch {
      // A synthetic or already released pointer cannot be captured; the drag still works on the canvas.
    }
  };
  const onPointerMove = (event: PointerEvent) => sink.move(fill(event));
  const onPointerUp = (event: PointerEvent) => {
    if (!sink.up(fill(event))) return;
    try {
      container.releasePointerCapture(event.pointerId);
    } catch {
      // Already released.
    }
  };
  const onPointerCancel = (event: PointerEvent) => sink.cancel(fill(event));
  const onLeave = () => sink.leave();
  const onWheel = (event: WheelEvent) => {
    if (event.target === canvas) sink.wheel(event.clientX, event.clientY, event.deltaY);
  };

  container.addEventListener('pointerdown', onPointerDown, true);
  container.addEventListener('pointermove', onPointerMove, true);
  container.addEventListener('pointerup', onPointerUp, true);
  container.addEventListener('pointercancel', onPointerCancel, true);
  container.addEventListener('pointerleave', onLeave);
  container.addEventListener('wheel', onWheel, { capture: true, passive: true });
  return () => {
    container.removeEventListener('pointerdown', onPointerDown, true);
    container.removeEventListener('pointermove', onPointerMove, true);
    container.removeEventListener('pointerup', onPointerUp, true);
    container.removeEventListener('pointercancel', onPointerCancel, true);
    container.removeEventListener('pointerleave', onLeave);
    container.removeEventListener('wheel', onWheel, { capture: true });
  };
}
