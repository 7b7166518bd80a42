import { MathUtils, type Material, type Mesh, type Object3D } from 'three';
import type { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import { addFrameStep } from '../../engine/frame-steps';
import { HELPER_LAYER } from '../../engine/layers';
import type { PointerHandler } from '../input/pointer-router';
import type { ToolContext } from './context';
import { exemptFromClipping, onHelperLayer } from './helper-materials';

export type GizmoMode = 'translate' | 'rotate';

/** Tilting turns in steps of this many degrees; the free-rotation key (Shift) turns freely. */
export const TILT_SNAP_DEGREES = 15;

/** A tilt as the label shows it: whole degrees on the snap, one decimal when turning freely. */
export function formatTilt(radians: number, free: boolean): string {
  const degrees = MathUtils.radToDeg(radians);
  const text = free ? degrees.toFixed(1) : Math.round(degrees).toFixed(0);
  return `${/^-0(\.0)?$/.test(text) ? text.slice(1) : text}°`;
}

export interface SectionGizmo {
  /** The gizmo's handles in the pointer router ('section-gizmo'): a press on one drags it, hovering highlights it. */
  readonly pointer: PointerHandler;
  /** A handle is being dragged. */
  readonly dragging: boolean;
  mode: GizmoMode;
  /** Tilting turns freely instead of in TILT_SNAP_DEGREES steps. */
  freeRotation: boolean;
  /** Fetches the gizmo's code (once; again after a failure). */
  load(): void;
  /** Shows the gizmo on a plane's pivot (null hides it); false while its code is on its way. */
  show(pivot: Object3D | null): boolean;
  /** Hides the gizmo if it is on this pivot (the plane goes). */
  release(pivot: Object3D): void;
  dispose(): void;
}

export interface SectionGizmoHooks {
  /** The gizmo moved the pivot it is on. */
  moved(): void;
  /** A drag ended. */
  dragEnded(): void;
  /** The code arrived (the gizmo can be shown now). */
  loaded(): void;
  /** The code could not be fetched. */
  failed(error: Error): void;
}

/**
 * The section plane's gizmo (three's TransformControls, moving along the normal or tilting about
 * the square's own axes), driven by the pointer router like the editor's: no listener of its own.
 * Its code is a chunk of its own, fetched when the tool is first turned on, and the gizmo is made
 * when a plane is first shown with it: building its handles takes tens of milliseconds, which a
 * viewer that never cuts should not pay before its first picture. While tilting, a label at the
 * plane's centre shows the angle.
 */
export function createSectionGizmo(ctx: ToolContext, hooks: SectionGizmoHooks): SectionGizmo {
  let gizmo: TransformControls | null = null;
  let Gizmo: typeof TransformControls | null = null;
  let gizmoCode: Promise<void> | null = null;
  let disposed = false;
  let dragging = false;
  let mode: GizmoMode = 'translate';
  let freeRotation = false;
  // TransformControls' pointer methods read x, y (NDC) and button only; a move is button -1.
  const pointer = { x: 0, y: 0, button: 0 } as unknown as PointerEvent & { x: number; y: number };
  const toPointer = (clientX: number, clientY: number, button = 0) => {
    const rect = ctx.renderer.domElement.getBoundingClientRect();
    (pointer as { button: number }).button = button;
    (pointer as { x: number }).x = ((clientX - rect.left) / Math.max(rect.width, 1)) * 2 - 1;
    (pointer as { y: number }).y = -((clientY - rect.top) / Math.max(rect.height, 1)) * 2 + 1;
    return pointer;
  };

  const tiltLabel = ctx.labels.add('section-tilt-label', '');
  tiltLabel.inScreenshot = false;
  tiltLabel.element.dataset.testid = 'section-tilt';
  tiltLabel.element.style.display = 'none';
  tiltLabel.offsetY = -28;

  const applyMode = () => {
    if (!gizmo) return;
    gizmo.setMode(mode);
    // Moving only along the normal; tilting only about the square's own axes (a turn about the
    // normal changes nothing).
    gizmo.showX = mode === 'rotate';
    gizmo.showY = mode === 'rotate';
    gizmo.showZ = mode === 'translate';
  };

  const load = () => {
    gizmoCode ??= import('three/examples/jsm/controls/TransformControls.js').then(
      (module) => {
        Gizmo = module.TransformControls;
        if (!disposed) hooks.loaded();
      },
      (error: Error) => {
        // Tried again the next time the tool is turned on or a plane is selected.
        gizmoCode = null;
        if (!disposed) hooks.failed(error);
      },
    );
  };

  /** The gizmo, made on first use; null while its code is still on its way. */
  const make = (): TransformControls | null => {
    if (gizmo) return gizmo;
    if (!Gizmo) {
      load();
      return null;
    }
    const made = new Gizmo(ctx.camera());
    gizmo = made;
    made.setSpace('local');
    made.setSize(0.9);
    made.setRotationSnap(freeRotation ? null : MathUtils.degToRad(TILT_SNAP_DEGREES));
    made.enabled = false;
    const helper = made.getHelper();
    helper.name = 'Section plane gizmo';
    onHelperLayer(helper);
    helper.traverse((o) => {
      const material = (o as Mesh).material as Material | Material[] | undefined;
      if (material) for (const m of Array.isArray(material) ? material : [material]) exemptFromClipping(m);
    });
    made.getRaycaster().layers.set(HELPER_LAYER);
    ctx.helpers.add(helper);
    applyMode();
    made.addEventListener('change', () => ctx.redraw());
    made.addEventListener('objectChange', () => {
      if (!made.object) return;
      hooks.moved();
      if (dragging && mode === 'rotate') {
        tiltLabel.point.copy(made.object.position);
        tiltLabel.setText(`Tilt ${formatTilt((made as unknown as { rotationAngle: number }).rotationAngle, freeRotation)}`);
        tiltLabel.element.style.display = '';
      }
    });
    made.addEventListener('dragging-changed', (event) => {
      dragging = event.value === true;
      if (!dragging) tiltLabel.element.style.display = 'none';
      if (!event.value && made.object) hooks.dragEnded();
    });
    return made;
  };

  // The gizmo draws for the camera in use (the projection may replace it).
  const removeCameraStep = addFrameStep(ctx.world, 'helpers', {
    name: 'section gizmo camera',
    run() {
      if (gizmo?.object) gizmo.camera = ctx.camera();
    },
  });

  const handles: PointerHandler = {
    grab(x, y) {
      if (!gizmo?.object || !gizmo.enabled) return false;
      gizmo.camera = ctx.camera();
      const p = toPointer(x, y);
      gizmo.pointerHover(p);
      if (gizmo.axis === null) return false;
      gizmo.pointerDown(p);
      return gizmo.dragging;
    },
    drag(x, y) {
      if (gizmo?.dragging) gizmo.pointerMove(toPointer(x, y, -1));
    },
    release(x, y) {
      if (gizmo?.dragging) gizmo.pointerUp(toPointer(x, y));
      ctx.redraw();
    },
    hover(x, y) {
      if (!gizmo?.object || !gizmo.enabled || gizmo.dragging) return;
      gizmo.camera = ctx.camera();
      gizmo.pointerHover(toPointer(x, y));
    },
  };

  return {
    pointer: handles,
    get dragging() {
      return dragging;
    },
    get mode() {
      return mode;
    },
    set mode(next) {
      mode = next;
      applyMode();
    },
    get freeRotation() {
      return freeRotation;
    },
    set freeRotation(on) {
      freeRotation = on;
      gizmo?.setRotationSnap(on ? null : MathUtils.degToRad(TILT_SNAP_DEGREES));
    },
    load,
    show(pivot) {
      const shown = pivot ? make() : null;
      if (pivot && shown) {
        shown.camera = ctx.camera();
        shown.attach(pivot);
        shown.enabled = true;
        return true;
      }
      if (gizmo) {
        gizmo.detach();
        gizmo.enabled = false;
      }
      return false;
    },
    release(pivot) {
      if (gizmo?.object === pivot) gizmo.detach();
    },
    dispose() {
      disposed = true;
      removeCameraStep();
      if (gizmo) {
        gizmo.detach();
        // Not gizmo.dispose(): it disconnects from a DOM element, which these controls never had
        // (the router drives them). Its handles' GPU resources go here.
        const helper = gizmo.getHelper();
        (helper as unknown as { dispose(): void }).dispose();
        helper.removeFromParent();
        gizmo = null;
      }
      ctx.labels.remove(tiltLabel);
    },
  };
}
