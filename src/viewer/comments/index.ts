import { Box3, Vector3, type OrthographicCamera, type Scene } from 'three';
import type { CommentAnchor, CommentMeasurement, CommentSectionPlane, CommentThread, CommentView } from '../../protocol/comments';
import { COMMENT_CURSOR_HOTSPOT, COMMENT_CURSOR_URL, MAX_VIEW_MEASUREMENTS, MAX_VIEW_SECTIONS } from '../../protocol/comments';
import type { ViewerWorld } from '../../engine/world';
import type { Emitter, ViewerEventMap } from '../events';
import type { Keyboard } from '../input/keyboard';
import type { Navigation } from '../navigation';
import type { ViewerPicker } from '../picking';
import type { ViewerTools } from '../tools';
import { createCommentPins, type CommentPins } from './pins';

/**
 * Comments in the viewer (issue 16): the comment tool (the specification's cursor; a click without
 * a drag on a surface starts a comment there), the pins of the scene's threads
 * (pins.ts: one draw call, dimmed behind geometry, clustered), and the views comments keep: what
 * the camera, the section planes and the measurements are when a comment is made, and opening one
 * restores them. Threads come from outside (the UI fetches them from the model service); the
 * viewer only draws and reports: 'comment-place' (the tool clicked a surface), 'comment-pin' (a pin
 * was clicked), 'comment-tool' (on or off).
 */

export interface CommentPlaceEvent {
  /** The anchor without its _id (the service makes one): the hit point, the orbit target, the view direction. */
  anchor: Omit<CommentAnchor, '_id'>;
  view: CommentView;
  /** Where the click was (client pixels): the UI opens the composer there. */
  clientX: number;
  clientY: number;
}

export interface ViewerComments {
  readonly toolActive: boolean;
  setTool(on: boolean): void;
  /** The threads to pin (replaces the previous ones). */
  setThreads(threads: readonly CommentThread[]): void;
  /** Highlights a thread's pin (null: none). */
  select(id: string | null): void;
  /** The view now: camera, projection, section planes, measurements. */
  captureView(): CommentView;
  /** The anchor of a point seen from the current camera. */
  /** The anchor of a comment at `point` (a vector, or [x, y, z]) seen from the current view. */
  anchorFor(point: Vector3 | readonly [number, number, number]): Omit<CommentAnchor, '_id'>;
  /**
   * Flies the camera to a comment's view and puts back its section planes and measurements (the
   * current ones are removed). Resolves when the camera arrived.
   */
  openView(view: CommentView, transition?: boolean): Promise<void>;
  readonly pins: CommentPins;
  dispose(): void;
}

export interface CommentsOptions {
  world: ViewerWorld;
  scene: Scene;
  canvas: HTMLCanvasElement;
  events: Emitter<ViewerEventMap>;
  navigation: Navigation;
  picker: ViewerPicker;
  tools: ViewerTools;
  keyboard: Keyboard;
  pixelRatio: () => number;
}

const tuple = (v: Vector3): [number, number, number] => [v.x, v.y, v.z];
const eye = new Vector3();
const target = new Vector3();
const direction = new Vector3();

export function createComments(options: CommentsOptions): ViewerComments {
  const { world, canvas, events, navigation, picker, tools } = options;
  const pins = createCommentPins(world, { canvas, pixelRatio: options.pixelRatio });
  options.scene.add(pins.object);
  let toolActive = false;
  const cursor = `url(${COMMENT_CURSOR_URL}) ${COMMENT_CURSOR_HOTSPOT[0]} ${COMMENT_CURSOR_HOTSPOT[1]}, crosshair`;

  const setTool = (on: boolean) => {
    if (toolActive === on) return;
    toolActive = on;
    // The comment tool and the measuring / section tools do not mix.
    if (on && tools.active) tools.deactivate();
    canvas.style.cursor = on ? cursor : '';
    events.emit('comment-tool', { active: on });
  };
  // Another tool turned on: the comment tool goes.
  const offTool = events.on('tool', (event) => {
    if (event.tool) setTool(false);
  });

  // The view as the navigation last wrote it (world.view).
  const pose = world.view;
  const anchorFor = (point: Vector3 | readonly [number, number, number]): Omit<CommentAnchor, '_id'> => {
    eye.copy(pose.position);
    target.copy(pose.target);
    direction.subVectors(target, eye);
    if (direction.lengthSq() < 1e-12) direction.set(0, 0, -1);
    direction.normalize();
    const position: [number, number, number] = Array.isArray(point) ? [point[0], point[1], point[2]] : tuple(point as Vector3);
    return { position, target: tuple(target), direction: tuple(direction) };
  };

  const captureView = (): CommentView => {
    eye.copy(pose.position);
    target.copy(pose.target);
    let orthoHeight = pose.orthoHeight;
    if (pose.projection === 'Perspective') {
      // The height seen at the target, so the view opens alike in orthographic.
      orthoHeight = 2 * eye.distanceTo(target) * Math.tan((pose.fov * Math.PI) / 360);
    }
    const sections: CommentSectionPlane[] = tools.sections
      .list()
      .slice(0, MAX_VIEW_SECTIONS)
      .map((s) => ({ normal: [s.normal.x, s.normal.y, s.normal.z], constant: s.constant }));
    const measurements: CommentMeasurement[] = tools.measurements
      .list()
      .slice(0, MAX_VIEW_MEASUREMENTS)
      .map((m) => ({ kind: m.kind, points: tools.measurements.points(m.id).map(tuple) }));
    return {
      projection: pose.projection,
      position: tuple(eye),
      target: tuple(target),
      up: [pose.up.x, pose.up.y, pose.up.z],
      fov: pose.fov,
      orthoHeight: orthoHeight > 0 && Number.isFinite(orthoHeight) ? orthoHeight : 1,
      sections,
      measurements,
    };
  };

  const openView = async (view: CommentView, transition = true) => {
    setTool(false);
    if (tools.active) tools.deactivate();
    if (navigation.projection !== view.projection) navigation.setProjection(view.projection);
    const perspective = navigation.perspectiveCamera;
    if (Math.abs(perspective.fov - view.fov) > 1e-6) {
      perspective.fov = view.fov;
      perspective.updateProjectionMatrix();
    }
    // The planes and measurements of the view replace the present ones.
    const sections = tools.sections;
    for (const s of sections.list()) sections.remove(s.id);
    const point = new Vector3();
    const normal = new Vector3();
    for (const plane of view.sections) {
      normal.set(plane.normal[0], plane.normal[1], plane.normal[2]);
      if (normal.lengthSq() < 1e-12) continue;
      normal.normalize();
      point.copy(normal).multiplyScalar(-plane.constant);
      sections.create(point, normal);
    }
    if (sections.placing) sections.confirm();
    if (sections.selected) sections.select(0);
    if (tools.active) tools.deactivate();
    const measurements = tools.measurements;
    for (const m of measurements.list()) measurements.remove(m.id);
    for (const m of view.measurements) {
      try {
        measurements.restore(
          m.kind,
          m.points.map((p) => new Vector3(p[0], p[1], p[2])),
        );
      } catch (error) {
        // A measurement the view cannot hold (too few points) is reported, the others still shown.
        console.error('A measurement of the comment could not be shown:', error);
      }
    }
    const controls = navigation.controls;
    const camera = navigation.camera;
    const up = new Vector3(view.up[0], view.up[1], view.up[2]);
    if (up.lengthSq() > 1e-12 && up.normalize().distanceTo(camera.up) > 1e-6) {
      camera.up.copy(up);
      controls.updateCameraUp();
    }
    // Through the navigation: the view pose is written at once.
    const moves: Promise<unknown>[] = [navigation.setLookAt(view.position[0], view.position[1], view.position[2], view.target[0], view.target[1], view.target[2], transition)];
    if (view.projection === 'Orthographic') {
      const ortho = camera as OrthographicCamera;
      const zoom = (ortho.top - ortho.bottom) / view.orthoHeight;
      if (Number.isFinite(zoom) && zoom > 0) moves.push(navigation.zoomTo(zoom, transition));
    }
    world.render.needsRender = true;
    await Promise.all(moves);
  };

  /** Flies closer to a cluster: frames its pins' points. */
  const openCluster = (members: readonly string[], threads: ReadonlyMap<string, CommentThread>) => {
    const box = new Box3();
    for (const id of members) {
      const t = threads.get(id);
      if (t) box.expandByPoint(point.set(t.anchor.position[0], t.anchor.position[1], t.anchor.position[2]));
    }
    if (box.isEmpty()) return;
    const size = Math.max(box.getSize(point).length(), 0.5);
    box.expandByScalar(size * 0.25);
    void navigation.fitToBox(box, true);
  };
  const point = new Vector3();

  let threads = new Map<string, CommentThread>();
  tools.setClickHook((clientX, clientY) => {
    const rect = canvas.getBoundingClientRect();
    const pin = pins.pinAt(clientX - rect.left, clientY - rect.top);
    if (pin) {
      if (pin.members.length > 1) openCluster(pin.members, threads);
      else events.emit('comment-pin', { id: pin.id });
      return true;
    }
    if (!toolActive) return false;
    const hit = picker.pickAtClient(clientX, clientY);
    if (!hit) {
      events.emit('comment-miss', { clientX, clientY });
      return true;
    }
    events.emit('comment-place', { anchor: anchorFor(hit.point), view: captureView(), clientX, clientY });
    return true;
  });

  const offKey = options.keyboard.bind('comment-cancel', () => {
    if (!toolActive) return false;
    setTool(false);
    return true;
  });

  return {
    get toolActive() {
      return toolActive;
    },
    setTool,
    setThreads(list) {
      threads = new Map(list.map((t) => [t._id, t]));
      pins.set(list.map((t) => ({ id: t._id, position: t.anchor.position, resolved: t.status === 'resolved' })));
    },
    select(id) {
      pins.select(id);
    },
    captureView,
    anchorFor,
    openView,
    pins,
    dispose() {
      offTool();
      offKey();
      tools.setClickHook(null);
      canvas.style.cursor = '';
      pins.dispose();
    },
  };
}
