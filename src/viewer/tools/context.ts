import { Group, Vector2, Vector3, type Camera, type Ray, type Scene, type WebGLRenderer } from 'three';
import { addFrameStep } from '../../engine/frame-steps';
import type { ViewerWorld } from '../../engine/world';
import type { Emitter, ViewerEventMap } from '../events';
import type { Picker } from '../pick-types';
import { DEFAULT_DISPLAY, type DisplayUnits } from './format';
import type { LabelLayer } from './labels';
import { createSurfacePicker, type CapPart, type SurfacePicker } from './surface-picker';

/** What every tool module shares: the world, the DOM, the picker, the helpers' root and labels. */
export interface ToolContext {
  readonly world: ViewerWorld;
  readonly container: HTMLElement;
  readonly scene: Scene;
  readonly renderer: WebGLRenderer;
  /** Root of the tools' helper objects (layer 15), a child of the scene. */
  readonly helpers: Group;
  readonly labels: LabelLayer;
  /** How values are shown (unit, precision, up axis); one object, changed in place by the tools' setDisplay. */
  readonly display: DisplayUnits;
  readonly events: Emitter<ViewerEventMap>;
  /** The viewer's picker; throws when there is none. */
  picker(): Picker;
  /** Picks models and section caps (what measurements and the sampler pick on). */
  readonly surfaces: SurfacePicker;
  /** The section caps the surface picker hits; the section tool replaces the list when caps change. */
  setCaps(parts: readonly CapPart[]): void;
  /** The current camera (navigation may replace it: never keep it). */
  camera(): Camera;
  /** Asks for a picture (render on demand) and for the labels to follow in the frame's overlay slot. */
  redraw(): void;
  /** Tells the UI that the tools' state changed. */
  changed(): void;
  /** Removes the context's frame step and helpers root. */
  dispose(): void;
  /** A world point in client pixels; false when it is behind the camera. */
  toClient(point: Vector3, out: Vector2): boolean;
  /** The pointer ray through a client pixel, for the current camera. */
  rayAt(clientX: number, clientY: number, out: Ray): Ray;
}

const ndc = new Vector3();
const direction = new Vector3();

export function createToolContext(options: {
  world: ViewerWorld;
  container: HTMLElement;
  labels: LabelLayer;
  events: Emitter<ViewerEventMap>;
  picker: () => Picker | null;
  changed: () => void;
}): ToolContext {
  const { world, container } = options;
  const scene = world.render.scene;
  const renderer = world.render.renderer;
  if (!scene) throw new Error("Scene hasn't been initialised.");
  if (!renderer) throw new Error("Renderer hasn't been initialised.");
  const helpers = new Group();
  helpers.name = 'Tool helpers';
  scene.add(helpers);
  // Labels follow the picture: a step of the frame's overlay slot, when the camera moved or a
  // label changed (redraw), never from a listener of its own.
  let labelsDirty = true;
  const removeLabelStep = addFrameStep(world, 'overlays', {
    name: 'tool labels',
    run(w) {
      if (!labelsDirty && !w.camera.moved) return;
      labelsDirty = false;
      if (w.render.camera) options.labels.update(w.render.camera);
    },
  });
  const camera = (): Camera => {
    const c = world.render.camera;
    if (!c) throw new Error("Camera hasn't been initialised.");
    return c;
  };
  const picker = (): Picker => {
    const p = options.picker();
    if (!p) throw new Error("Raycaster hasn't been initialised.");
    return p;
  };
  let caps: readonly CapPart[] = [];
  const surfaces = createSurfacePicker({ world, picker, caps: () => caps });
  return {
    world,
    container,
    scene,
    renderer,
    helpers,
    labels: options.labels,
    display: { ...DEFAULT_DISPLAY },
    events: options.events,
    picker,
    surfaces,
    setCaps(parts) {
      caps = parts;
    },
    camera,
    redraw() {
      world.render.needsRender = true;
      labelsDirty = true;
    },
    dispose() {
      removeLabelStep();
      helpers.removeFromParent();
    },
    changed: options.changed,
    toClient(point, out) {
      const c = camera();
      const rect = container.getBoundingClientRect();
      ndc.copy(point).project(c);
      if (ndc.z > 1 || ndc.z < -1) return false;
      out.set(rect.left + ((ndc.x + 1) / 2) * rect.width, rect.top + ((1 - ndc.y) / 2) * rect.height);
      return true;
    },
    rayAt(clientX, clientY, out) {
      const c = camera() as Camera & { isOrthographicCamera?: boolean };
      const rect = container.getBoundingClientRect();
      const x = ((clientX - rect.left) / rect.width) * 2 - 1;
      const y = -((clientY - rect.top) / rect.height) * 2 + 1;
      if (c.isOrthographicCamera) {
        out.origin.set(x, y, -1).unproject(c);
        out.direction.set(0, 0, -1).transformDirection(c.matrixWorld);
      } else {
        out.origin.setFromMatrixPosition(c.matrixWorld);
        out.direction.copy(direction.set(x, y, 0.5).unproject(c).sub(out.origin).normalize());
      }
      return out;
    },
  };
}
