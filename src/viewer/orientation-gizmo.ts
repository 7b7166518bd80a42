import { Quaternion, Vector3 } from 'three';
import {
  ORIENTATION_GIZMO_PADDING,
  ORIENTATION_GIZMO_PRIMARY_BUBBLE,
  ORIENTATION_GIZMO_SECONDARY_BUBBLE,
  ORIENTATION_GIZMO_SIZE,
} from '../protocol/constants';
import { addFrameStep } from '../engine/frame-steps';
import type { ViewerWorld } from '../engine/world';
import type { Navigation, ViewAxis } from './navigation';

/**
 * The orientation gizmo (editor specification): a 110 px square at the top right of the viewer
 * with bubbles for X, Y, Z (primary, size 8, with their letter) and their negatives (secondary,
 * size 6), drawn on a 2D canvas from the camera's orientation, padding 15. Clicking a bubble turns
 * the view to look at the scene from that side (Navigation.lookAlong, smooth); the bubble under
 * the pointer is highlighted. For keyboards and screen readers each bubble is also a button
 * ("View from +X", ...) that is invisible until focused, when its bubble gets a focus ring.
 *
 * It is a step of the frame's overlay slot: it redraws only when the camera turned (a compare with
 * the last drawn orientation) or the highlight changed, and allocates nothing per redraw.
 */

export interface OrientationGizmoOptions {
  size?: number;
  padding?: number;
  primaryBubble?: number;
  secondaryBubble?: number;
}

export interface OrientationGizmo {
  readonly element: HTMLElement;
  /** Redraws if the camera turned since the last drawing (or always with force). */
  update(force?: boolean): void;
  /** Where a bubble is drawn, in CSS pixels from the gizmo's top left (for tests and tools). */
  bubbleAt(axis: ViewAxis): { x: number; y: number; radius: number };
  dispose(): void;
}

/** Axis order: +x, -x, +y, -y, +z, -z (the order of VIEW_AXES). */
const AXES: readonly ViewAxis[] = ['+x', '-x', '+y', '-y', '+z', '-z'];
const DIRECTIONS = [new Vector3(1, 0, 0), new Vector3(-1, 0, 0), new Vector3(0, 1, 0), new Vector3(0, -1, 0), new Vector3(0, 0, 1), new Vector3(0, 0, -1)];
/** Conventional axis colours: X red, Y green, Z blue. */
const COLOURS = ['#f0524f', '#f0524f', '#6ccb3f', '#6ccb3f', '#3d8ef7', '#3d8ef7'];
const NEGATIVE_FILL = ['#7a2d2c', '#7a2d2c', '#3b6a25', '#3b6a25', '#234c82', '#234c82'];
const LABELS = ['X', '', 'Y', '', 'Z', ''];
const NAMES = ['View from +X', 'View from -X', 'View from +Y (top)', 'View from -Y (bottom)', 'View from +Z (front)', 'View from -Z (back)'];

/** The gizmo's 2D context: kept in memory and drawn by the CPU (see createOrientationGizmo). */
export const GIZMO_CONTEXT: CanvasRenderingContext2DSettings = { willReadFrequently: true };

const inverse = new Quaternion();
const projected = new Vector3();

/** Where the six bubbles go: x, y in CSS pixels of a gizmo of `size`, depth towards the viewer. */
export interface AxisProjection {
  x: Float64Array;
  y: Float64Array;
  depth: Float64Array;
  /** Axis indices (order of VIEW_AXES) from back to front. */
  order: Int8Array;
}

export function createAxisProjection(): AxisProjection {
  return { x: new Float64Array(6), y: new Float64Array(6), depth: new Float64Array(6), order: new Int8Array([0, 1, 2, 3, 4, 5]) };
}

/**
 * Projects the world axes into the gizmo for a camera orientation: the centre plus the axis in
 * view space times (size / 2 - padding), y down; sorted back to front. Allocates nothing.
 */
export function projectAxes(cameraQuaternion: Quaternion, size: number, padding: number, out: AxisProjection): AxisProjection {
  inverse.copy(cameraQuaternion).invert();
  const centre = size / 2;
  const reach = centre - padding;
  const { x, y, depth, order } = out;
  for (let i = 0; i < 6; i++) {
    projected.copy(DIRECTIONS[i]).applyQuaternion(inverse);
    x[i] = centre + projected.x * reach;
    y[i] = centre - projected.y * reach;
    depth[i] = projected.z;
  }
  // Back to front (insertion sort of six).
  for (let i = 0; i < 6; i++) order[i] = i;
  for (let i = 1; i < 6; i++) {
    const v = order[i];
    let j = i - 1;
    while (j >= 0 && depth[order[j]] > depth[v]) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = v;
  }
  return out;
}

export function createOrientationGizmo(world: ViewerWorld, container: HTMLElement, navigation: Navigation, options: OrientationGizmoOptions = {}): OrientationGizmo {
  const size = options.size ?? ORIENTATION_GIZMO_SIZE;
  const padding = options.padding ?? ORIENTATION_GIZMO_PADDING;
  const primary = options.primaryBubble ?? ORIENTATION_GIZMO_PRIMARY_BUBBLE;
  const secondary = options.secondaryBubble ?? ORIENTATION_GIZMO_SECONDARY_BUBBLE;

  const root = document.createElement('div');
  root.className = 'orientation-gizmo';
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'View orientation');
  root.dataset.testid = 'orientation-gizmo';
  root.style.width = `${size}px`;
  root.style.height = `${size}px`;
  const canvas = document.createElement('canvas');
  canvas.setAttribute('aria-hidden', 'true');
  canvas.style.width = `${size}px`;
  canvas.style.height = `${size}px`;
  const dpr = Math.min(globalThis.devicePixelRatio || 1, 3);
  canvas.width = Math.round(size * dpr);
  canvas.height = Math.round(size * dpr);
  root.appendChild(canvas);
  const buttons: HTMLButtonElement[] = AXES.map((axis, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'orientation-gizmo-button';
    b.setAttribute('aria-label', NAMES[i]);
    b.dataset.axis = axis;
    root.appendChild(b);
    return b;
  });
  container.appendChild(root);
  // A canvas in memory, drawn by the CPU: 110 px of bubbles cost nothing to draw there, while an
  // accelerated canvas draws through the GPU process, where on a software GPU (SwiftShader) its
  // shaders compile and its draws run on the same CPU as the WebGL of the scene loading meanwhile
  // (bench/LOAD-PROFILE.md: about 17 % of the helmet's load). `willReadFrequently` is the hint that
  // asks browsers for such a canvas.
  const ctx = canvas.getContext('2d', GIZMO_CONTEXT);

  // Projected bubbles (CSS px), their depth and drawing order; bubble radii by axis.
  const projection = createAxisProjection();
  const { x: px, y: py, order } = projection;
  const radius = new Float64Array(6);
  for (let i = 0; i < 6; i++) radius[i] = i % 2 === 0 ? primary : secondary;
  const last = new Float64Array([NaN, NaN, NaN, NaN]);
  let hover = -1;
  let focused = -1;
  let drawnHover = -2;
  let drawnFocus = -2;

  function project(): void {
    projectAxes(navigation.camera.quaternion, size, padding, projection);
  }

  function draw(): void {
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, size, size);
    // A faint disc behind the bubbles, brighter while the pointer is over the gizmo.
    ctx.beginPath();
    ctx.arc(size / 2, size / 2, size / 2 - 2, 0, Math.PI * 2);
    ctx.fillStyle = hover >= 0 ? 'rgba(255,255,255,0.14)' : 'rgba(255,255,255,0.07)';
    ctx.fill();
    ctx.lineCap = 'round';
    for (let k = 0; k < 6; k++) {
      const i = order[k];
      const positive = i % 2 === 0;
      if (positive) {
        ctx.beginPath();
        ctx.moveTo(size / 2, size / 2);
        ctx.lineTo(px[i], py[i]);
        ctx.strokeStyle = COLOURS[i];
        ctx.lineWidth = 2;
        ctx.stroke();
      }
      const r = radius[i] + (i === hover ? 1.5 : 0);
      ctx.beginPath();
      ctx.arc(px[i], py[i], r, 0, Math.PI * 2);
      ctx.fillStyle = positive ? COLOURS[i] : NEGATIVE_FILL[i];
      ctx.fill();
      ctx.lineWidth = i === hover ? 2 : 1;
      ctx.strokeStyle = i === hover ? '#ffffff' : COLOURS[i];
      ctx.stroke();
      if (i === focused) {
        ctx.beginPath();
        ctx.arc(px[i], py[i], r + 3, 0, Math.PI * 2);
        ctx.lineWidth = 2;
        ctx.strokeStyle = '#ffffff';
        ctx.stroke();
      }
      if (positive) {
        ctx.fillStyle = '#10161f';
        ctx.font = '600 10px system-ui, sans-serif';
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        ctx.fillText(LABELS[i], px[i], py[i] + 0.5);
      }
    }
  }

  function update(force = false): void {
    const q = navigation.camera.quaternion;
    const turned = q.x !== last[0] || q.y !== last[1] || q.z !== last[2] || q.w !== last[3];
    if (!force && !turned && hover === drawnHover && focused === drawnFocus) return;
    last[0] = q.x;
    last[1] = q.y;
    last[2] = q.z;
    last[3] = q.w;
    drawnHover = hover;
    drawnFocus = focused;
    project();
    draw();
  }

  /** The front-most bubble under a point (CSS px in the gizmo), or -1. */
  function hit(x: number, y: number): number {
    for (let k = 5; k >= 0; k--) {
      const i = order[k];
      const r = radius[i] + 3;
      const dx = x - px[i];
      const dy = y - py[i];
      if (dx * dx + dy * dy <= r * r) return i;
    }
    return -1;
  }

  const local = (e: PointerEvent | MouseEvent): number => {
    const rect = canvas.getBoundingClientRect();
    return hit(e.clientX - rect.left, e.clientY - rect.top);
  };
  // Hover and focus change what is drawn; the frame's overlay step redraws (update compares).
  const onMove = (e: PointerEvent) => {
    const i = local(e);
    if (i !== hover) {
      hover = i;
      canvas.style.cursor = i >= 0 ? 'pointer' : '';
    }
  };
  const onLeave = () => {
    hover = -1;
    canvas.style.cursor = '';
  };
  const onClick = (e: MouseEvent) => {
    const i = local(e);
    if (i >= 0) void navigation.lookAlong(AXES[i], true);
  };
  // The gizmo's own pointer input never reaches the navigation or the tools under it.
  const stop = (e: Event) => e.stopPropagation();
  // A step of the frame's overlay slot, after the picture: redraws when the camera turned (the
  // projection may have replaced the camera; the compare covers it) or the highlight changed.
  const removeStep = addFrameStep(world, 'overlays', { name: 'orientation gizmo', run: () => update() });

  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerleave', onLeave);
  canvas.addEventListener('click', onClick);
  for (const type of ['pointerdown', 'pointerup', 'click', 'dblclick', 'wheel', 'contextmenu'] as const) root.addEventListener(type, stop);
  const buttonHandlers = buttons.map((b, i) => {
    const onFocus = () => {
      focused = i;
    };
    const onBlur = () => {
      focused = -1;
    };
    const onPress = () => void navigation.lookAlong(AXES[i], true);
    b.addEventListener('focus', onFocus);
    b.addEventListener('blur', onBlur);
    b.addEventListener('click', onPress);
    return { onFocus, onBlur, onPress };
  });
  update(true);

  return {
    element: root,
    update,
    bubbleAt(axis) {
      const i = AXES.indexOf(axis);
      if (i < 0) throw new Error(`Unknown view axis ${JSON.stringify(axis)}.`);
      update();
      return { x: px[i], y: py[i], radius: radius[i] };
    },
    dispose() {
      removeStep();
      canvas.removeEventListener('pointermove', onMove);
      canvas.removeEventListener('pointerleave', onLeave);
      canvas.removeEventListener('click', onClick);
      for (const type of ['pointerdown', 'pointerup', 'click', 'dblclick', 'wheel', 'contextmenu'] as const) root.removeEventListener(type, stop);
      buttons.forEach((b, i) => {
        const h = buttonHandlers[i];
        b.removeEventListener('focus', h.onFocus);
        b.removeEventListener('blur', h.onBlur);
        b.removeEventListener('click', h.onPress);
      });
      root.remove();
    },
  };
}
