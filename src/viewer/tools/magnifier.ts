import { addFrameStep } from '../../engine/frame-steps';
import type { ViewerWorld } from '../../engine/world';
import type { PointerRouter, PointerSample } from '../input/pointer-router';

/**
 * A magnifier for fingers: while a finger is down to place a point (a measurement tool is on, or
 * Sample point), a round loupe above the finger shows the view under it, MAGNIFIER_ZOOM times
 * larger, with a cross-hair at the point a lift would place, so the finger does not hide what it
 * picks. It is drawn by a step of the frame's overlay slot, right after the picture in the same
 * task (the drawing buffer is still there), and asks for a picture only while it is shown.
 */

/** The loupe's diameter in CSS pixels. */
export const MAGNIFIER_SIZE = 110;
/** How much larger than the view it shows. */
export const MAGNIFIER_ZOOM = 2;
/** Gap between the finger and the loupe's lower edge (CSS pixels). */
export const MAGNIFIER_OFFSET = 48;

export interface Magnifier {
  readonly element: HTMLCanvasElement;
  readonly visible: boolean;
  dispose(): void;
}

/**
 * Where the loupe goes for a finger at (x, y) in a view of width x height (CSS pixels, the view's
 * own coordinates): centred above the finger, moved below it near the top edge, kept inside.
 */
export function magnifierPlacement(x: number, y: number, width: number, height: number, size = MAGNIFIER_SIZE, offset = MAGNIFIER_OFFSET): { left: number; top: number } {
  let top = y - offset - size;
  if (top < 4) top = y + offset;
  const left = Math.min(Math.max(4, x - size / 2), Math.max(4, width - size - 4));
  return { left, top: Math.min(Math.max(4, top), Math.max(4, height - size - 4)) };
}

/** The loupe, fed every pointer event of the viewer's router (a watcher of the 'tool' slot: it takes nothing). */
export function createMagnifier(world: ViewerWorld, container: HTMLElement, canvas: HTMLCanvasElement, pointer: PointerRouter, wanted: () => boolean): Magnifier {
  const element = container.ownerDocument.createElement('canvas');
  element.className = 'magnifier';
  element.dataset.testid = 'magnifier';
  element.setAttribute('aria-hidden', 'true');
  element.style.display = 'none';
  // Sized from the start: a canvas is 300 x 150 until told otherwise, and the loupe must not show
  // at that size (covering the finger) for the frame before its first drawing sizes its buffer.
  element.style.width = `${MAGNIFIER_SIZE}px`;
  element.style.height = `${MAGNIFIER_SIZE}px`;
  container.appendChild(element);
  const ctx = element.getContext('2d');
  let finger: number | null = null;
  let x = 0;
  let y = 0;

  const show = (on: boolean) => {
    element.style.display = on ? '' : 'none';
    world.render.needsPicture = true;
  };
  const onDown = (event: PointerSample) => {
    if (event.kind !== 'touch' || finger !== null || !wanted()) return;
    finger = event.id;
    move(event);
    show(true);
  };
  const move = (event: PointerSample) => {
    if (event.id !== finger) return;
    const rect = canvas.getBoundingClientRect();
    x = event.x - rect.left;
    y = event.y - rect.top;
    const at = magnifierPlacement(x, y, rect.width, rect.height);
    element.style.transform = `translate(${at.left.toFixed(1)}px, ${at.top.toFixed(1)}px)`;
    world.render.needsPicture = true;
  };
  const onUp = (event: PointerSample) => {
    if (event.id !== finger) return;
    finger = null;
    show(false);
  };
  const removeWatch = pointer.add('tool', {
    watch(phase, sample) {
      if (phase === 'down') onDown(sample);
      else if (phase === 'move') move(sample);
      else onUp(sample);
    },
  });

  const removeStep = addFrameStep(world, 'overlays', {
    name: 'magnifier',
    run(w) {
      if (finger === null || !ctx) return;
      // Keep drawing while the finger is down: the loupe copies each new picture (no shadow changes).
      w.render.needsPicture = true;
      const ratio = canvas.width / Math.max(1, canvas.clientWidth);
      const px = Math.round(MAGNIFIER_SIZE * ratio);
      if (element.width !== px) {
        element.width = px;
        element.height = px;
      }
      const source = (MAGNIFIER_SIZE / MAGNIFIER_ZOOM) * ratio;
      ctx.save();
      ctx.clearRect(0, 0, px, px);
      ctx.beginPath();
      ctx.arc(px / 2, px / 2, px / 2, 0, Math.PI * 2);
      ctx.clip();
      ctx.fillStyle = '#0d1b2e';
      ctx.fillRect(0, 0, px, px);
      ctx.drawImage(canvas, x * ratio - source / 2, y * ratio - source / 2, source, source, 0, 0, px, px);
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 1.5 * ratio;
      ctx.beginPath();
      ctx.moveTo(px / 2 - 10 * ratio, px / 2);
      ctx.lineTo(px / 2 + 10 * ratio, px / 2);
      ctx.moveTo(px / 2, px / 2 - 10 * ratio);
      ctx.lineTo(px / 2, px / 2 + 10 * ratio);
      ctx.stroke();
      ctx.restore();
    },
  });

  return {
    element,
    get visible() {
      return finger !== null;
    },
    dispose() {
      removeStep();
      removeWatch();
      element.remove();
    },
  };
}
