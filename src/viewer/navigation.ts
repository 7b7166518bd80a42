import CameraControls from 'camera-controls';
import {
  Box3,
  MathUtils,
  Matrix4,
  OrthographicCamera,
  Quaternion,
  Raycaster,
  Sphere,
  Spherical,
  Vector2,
  Vector3,
  Vector4,
  type Object3D,
  type PerspectiveCamera,
  type SkinnedMesh,
} from 'three';
import {
  CAMERA_FAR,
  CAMERA_MAX_DISTANCE,
  CAMERA_MAX_DISTANCE_ORBIT,
  CAMERA_MIN_DISTANCE,
  CAMERA_NEAR,
  KEYBOARD_SPEED,
} from '../protocol/constants';
import { ERR_MODE } from '../protocol/errors';
import { HELPER_LAYER } from '../engine/layers';
import type { ViewerWorld } from '../engine/world';

CameraControls.install({ THREE: { Vector2, Vector3, Vector4, Quaternion, Matrix4, Spherical, Box3, Sphere, Raycaster } });

/**
 * Navigation of the viewer (viewer specification sections 2, 4 and 9) on camera-controls:
 *
 * - modes 'Orbit' (default), 'FirstPerson' (perspective only: asked for in orthographic it falls
 *   back to Orbit) and 'Plan' (top-down: the polar angle is locked at 0, rotating spins the plan);
 * - projections 'Perspective' and 'Orthographic'; switching keeps the framing (the visible height
 *   at the orbit target stays the same) and replaces the camera object (onCameraChange);
 * - camera configs 'simple' (left rotates, middle and right truck, the wheel dollies) and 'editor'
 *   (left does nothing, middle or right rotate, with Shift held they truck);
 * - distance limits 1 to 300 in Orbit and 1 to 5000 otherwise, widened for scenes too small or too
 *   large for them (see distanceLimits);
 * - FirstPerson looks around in place (the orbit target sits FIRST_PERSON_DISTANCE in front of the
 *   eye and dragging is inverted, so the scene follows the pointer) and walks with WASD or the
 *   arrow keys (Q/E or PageUp/PageDown go down/up, Shift is 4x faster). KEYBOARD_SPEED (0.005) is
 *   in metres per millisecond, i.e. 5 m/s, scaled down by the scene's bounding radius for scenes
 *   smaller than 1 m. Keys count only while the viewer element has focus and not while typing in
 *   a text field; a pointer press on the viewer focuses it.
 */

export const NAVIGATION_MODES = ['Orbit', 'FirstPerson', 'Plan'] as const;
export type NavigationMode = (typeof NAVIGATION_MODES)[number];
export const PROJECTIONS = ['Perspective', 'Orthographic'] as const;
export type Projection = (typeof PROJECTIONS)[number];
export const CAMERA_CONFIGS = ['simple', 'editor'] as const;
export type CameraConfig = (typeof CAMERA_CONFIGS)[number];
/** A side of the scene: `lookAlong('+x')` puts the camera on the +X side, looking along -X. */
export const VIEW_AXES = ['+x', '-x', '+y', '-y', '+z', '-z'] as const;
export type ViewAxis = (typeof VIEW_AXES)[number];

export type ViewerCamera = PerspectiveCamera | OrthographicCamera;

/** Distance from the eye to the orbit target in FirstPerson: the camera turns about (almost) itself. */
export const FIRST_PERSON_DISTANCE = 1e-3;
/** Drag-to-look speed in FirstPerson; negative so the scene follows the pointer, as in Orbit. */
export const FIRST_PERSON_ROTATE_SPEED = -0.35;
/** How much faster walking is with Shift held. */
export const RUN_FACTOR = 4;
/** The ortho camera sits this many scene radii from the target, so nothing is behind it. */
const ORTHO_DISTANCE_RADII = 2.5;

const ACTION = CameraControls.ACTION;

type Buttons = CameraControls['mouseButtons'];
type Touches = CameraControls['touches'];

/** Checks a mode name: 'The specified mode does not exist!' for anything else. */
export function parseMode(mode: unknown): NavigationMode {
  if (typeof mode === 'string' && (NAVIGATION_MODES as readonly string[]).includes(mode)) return mode as NavigationMode;
  throw new Error(ERR_MODE);
}

export function parseProjection(projection: unknown): Projection {
  if (typeof projection === 'string' && (PROJECTIONS as readonly string[]).includes(projection)) return projection as Projection;
  throw new Error(`Unknown projection ${JSON.stringify(projection)}: expected 'Perspective' or 'Orthographic'.`);
}

export function parseCameraConfig(config: unknown): CameraConfig {
  if (typeof config === 'string' && (CAMERA_CONFIGS as readonly string[]).includes(config)) return config as CameraConfig;
  throw new Error(`Unknown camera config ${JSON.stringify(config)}: expected 'simple' or 'editor'.`);
}

export function parseViewAxis(axis: unknown): ViewAxis {
  if (typeof axis === 'string' && (VIEW_AXES as readonly string[]).includes(axis)) return axis as ViewAxis;
  throw new Error(`Unknown view axis ${JSON.stringify(axis)}: expected one of ${VIEW_AXES.join(', ')}.`);
}

/** FirstPerson needs perspective: in orthographic it falls back to Orbit. */
export function effectiveMode(mode: NavigationMode, projection: Projection): NavigationMode {
  return mode === 'FirstPerson' && projection === 'Orthographic' ? 'Orbit' : mode;
}

/**
 * The mouse mapping of a camera config (written into `out`, which is returned). 'simple': left
 * rotates, middle and right truck. 'editor': left does nothing, middle or right rotate, with Shift
 * held they truck. The wheel dollies in perspective and zooms in orthographic and in FirstPerson
 * (where the camera has no distance to change).
 */
export function mouseButtonsFor(config: CameraConfig, mode: NavigationMode, projection: Projection, shift: boolean, out: Buttons): Buttons {
  out.wheel = projection === 'Orthographic' || mode === 'FirstPerson' ? ACTION.ZOOM : ACTION.DOLLY;
  if (config === 'simple') {
    out.left = ACTION.ROTATE;
    out.middle = ACTION.TRUCK;
    out.right = ACTION.TRUCK;
  } else {
    const drag = shift ? ACTION.TRUCK : ACTION.ROTATE;
    out.left = ACTION.NONE;
    out.middle = drag;
    out.right = drag;
  }
  return out;
}

/**
 * Touch gestures per mode: Orbit one finger rotates, two dolly (zoom in orthographic) and truck,
 * three truck; Plan one finger pans the plan, two dolly/zoom and truck, three spin it; FirstPerson
 * one finger looks around, two zoom and truck, three truck.
 */
export function touchesFor(mode: NavigationMode, projection: Projection, out: Touches): Touches {
  const ortho = projection === 'Orthographic';
  const two = ortho || mode === 'FirstPerson' ? ACTION.TOUCH_ZOOM_TRUCK : ACTION.TOUCH_DOLLY_TRUCK;
  out.one = mode === 'Plan' ? ACTION.TOUCH_TRUCK : ACTION.TOUCH_ROTATE;
  out.two = two;
  out.three = mode === 'Plan' ? ACTION.TOUCH_ROTATE : ACTION.TOUCH_TRUCK;
  return out;
}

/**
 * Distance limits of a mode: minimum 1, maximum 300 in Orbit and 5000 otherwise (FirstPerson pins
 * the distance at FIRST_PERSON_DISTANCE). A scene of less than 1 m bounding radius lowers the
 * minimum to a fifth of its radius; a scene more than an eighth of the maximum in radius raises the
 * maximum to 8 radii, so any scene can be seen whole and close up. `radius` 0 means no scene yet.
 */
export function distanceLimits(mode: NavigationMode, radius: number): { min: number; max: number } {
  if (mode === 'FirstPerson') return { min: FIRST_PERSON_DISTANCE, max: FIRST_PERSON_DISTANCE };
  const r = radius > 0 && Number.isFinite(radius) ? radius : 0;
  const min = r > 0 && r < CAMERA_MIN_DISTANCE ? r * 0.2 : CAMERA_MIN_DISTANCE;
  const max = Math.max(mode === 'Orbit' ? CAMERA_MAX_DISTANCE_ORBIT : CAMERA_MAX_DISTANCE, r * 8);
  return { min, max };
}

/** Half the visible height at `distance` in front of a perspective camera (fov in degrees). */
export function visibleHalfHeight(distance: number, fovDeg: number): number {
  return distance * Math.tan(MathUtils.degToRad(fovDeg) / 2);
}

/** The distance at which a perspective camera sees `halfHeight` above and below its target. */
export function distanceForHalfHeight(halfHeight: number, fovDeg: number): number {
  return halfHeight / Math.tan(MathUtils.degToRad(fovDeg) / 2);
}

/**
 * Walking speed in world units per second: KEYBOARD_SPEED metres per millisecond, scaled down by
 * the bounding radius for scenes smaller than 1 m, times RUN_FACTOR while running.
 */
export function walkSpeed(radius: number, running: boolean): number {
  const scale = radius > 0 && Number.isFinite(radius) ? Math.min(1, radius) : 1;
  return KEYBOARD_SPEED * 1000 * scale * (running ? RUN_FACTOR : 1);
}

/** Keyboard codes that walk, as [forward, right, up] steps. */
const WALK_KEYS: Record<string, readonly [number, number, number]> = {
  KeyW: [1, 0, 0],
  ArrowUp: [1, 0, 0],
  KeyS: [-1, 0, 0],
  ArrowDown: [-1, 0, 0],
  KeyD: [0, 1, 0],
  ArrowRight: [0, 1, 0],
  KeyA: [0, -1, 0],
  ArrowLeft: [0, -1, 0],
  KeyE: [0, 0, 1],
  PageUp: [0, 0, 1],
  KeyQ: [0, 0, -1],
  PageDown: [0, 0, -1],
};

export function isWalkKey(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(WALK_KEYS, code);
}

/** Whether a key event comes from a control that uses the keys itself (text fields, sliders, selects, editable content). */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as (HTMLElement & { isContentEditable?: boolean }) | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
    // A slider owns its arrow keys too.
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'color', 'file', 'image'].includes(type);
  }
  return el.isContentEditable === true;
}

const walkOffset = new Vector3();
const walkAxis = new Vector3();

/**
 * camera-controls with allocation-free walking: the first-person keys set `walk` (steps -1..1
 * along forward, right, up, and a speed in units per second), and update() moves the camera and
 * its target by speed x delta before the library's own update. (The library's forward/truck
 * return a Promise per call, which a frame loop should not create.)
 */
export class ViewerCameraControls extends CameraControls {
  readonly walk = { forward: 0, right: 0, up: 0, speed: 0 };

  override update(delta: number): boolean {
    // Called by the base constructor before our fields exist.
    const w = this.walk as typeof this.walk | undefined;
    if (w && (w.forward !== 0 || w.right !== 0 || w.up !== 0) && delta > 0) this.step(w.forward * w.speed * delta, w.right * w.speed * delta, w.up * w.speed * delta);
    return super.update(delta);
  }

  /** Moves eye and target now: forward along the view direction in the horizontal plane (as camera-controls' forward), right, up. */
  step(forward: number, right: number, up: number): void {
    const camera = this.camera;
    camera.updateMatrix();
    walkOffset.set(0, 0, 0);
    if (right !== 0) walkOffset.add(walkAxis.setFromMatrixColumn(camera.matrix, 0).multiplyScalar(right));
    if (forward !== 0) {
      walkAxis.setFromMatrixColumn(camera.matrix, 0);
      walkAxis.crossVectors(camera.up, walkAxis).normalize();
      walkOffset.addScaledVector(walkAxis, forward);
    }
    if (up !== 0) walkOffset.addScaledVector(camera.up, up);
    this._encloseToBoundary(this._targetEnd, walkOffset, this.boundaryFriction);
    this._target.copy(this._targetEnd);
    this._needsUpdate = true;
  }

  /** The zoom the controls are heading to (the camera's zoom once a transition ends). */
  get zoomEnd(): number {
    return this._zoomEnd;
  }

  /** The distance the controls are heading to. */
  get distanceEnd(): number {
    return this._sphericalEnd.radius;
  }
}

export interface NavigationState {
  /** The mode in effect (FirstPerson asked for in orthographic is Orbit). */
  mode: NavigationMode;
  projection: Projection;
  cameraConfig: CameraConfig;
}

export interface NavigationOptions {
  /** Called after the projection replaced the camera object (update renderer, passes, pickers). */
  onCameraChange?: (camera: ViewerCamera) => void;
  cameraConfig?: CameraConfig;
}

export interface Navigation {
  readonly controls: ViewerCameraControls;
  /** The camera in use: the perspective camera or the orthographic one. */
  readonly camera: ViewerCamera;
  readonly perspectiveCamera: PerspectiveCamera;
  readonly orthographicCamera: OrthographicCamera;
  readonly mode: NavigationMode;
  readonly projection: Projection;
  readonly cameraConfig: CameraConfig;
  /** The bounding radius of the last framed scene (0 before any). */
  readonly sceneRadius: number;
  /** Changes the mode; an unknown one throws 'The specified mode does not exist!'. Returns the mode in effect. */
  setMode(mode: NavigationMode | string): NavigationMode;
  setProjection(projection: Projection | string): Projection;
  toggleProjection(): Projection;
  setCameraConfig(config: CameraConfig | string): CameraConfig;
  /** Frames the objects (world matrices current); returns their bounding radius, 0 when empty. */
  fit(objects: Iterable<Object3D>, enableTransition?: boolean): Promise<number>;
  /** Keeps the camera where it is and turns it to look at `point`, which becomes the orbit target (smooth). */
  recentreOn(point: Vector3, enableTransition?: boolean): Promise<void>;
  /** Turns the view to look at the target from the given side (smooth); a side view leaves Plan for Orbit. */
  lookAlong(axis: ViewAxis | string, enableTransition?: boolean): Promise<void>;
  /** The drawing area's CSS size changed. */
  setSize(width: number, height: number): void;
  /** Whether Shift is held (the 'editor' config's truck switch); tracked from the keyboard and pointer. */
  setShift(held: boolean): void;
  /** Called with the new state after every mode, projection or config change; returns the unsubscribe. */
  subscribe(listener: (state: NavigationState) => void): () => void;
  state(): NavigationState;
  dispose(): void;
}

const scratchPosition = new Vector3();
const scratchTarget = new Vector3();
const scratchDirection = new Vector3();
const scratchSpherical = new Spherical();
const box = new Box3();
const objectBox = new Box3();
const sphere = new Sphere();

/**
 * Builds the navigation on a perspective camera (the orthographic one is made here) and an element
 * that receives pointer and keyboard input (null: no input, for tests and off-screen use).
 */
export function createNavigation(world: ViewerWorld, camera: PerspectiveCamera, element: HTMLElement | null, options: NavigationOptions = {}): Navigation {
  const perspective = camera;
  const ortho = new OrthographicCamera(-1, 1, 1, -1, CAMERA_NEAR, CAMERA_FAR);
  ortho.layers.mask = perspective.layers.mask;
  ortho.layers.enable(HELPER_LAYER);
  const controls = new ViewerCameraControls(perspective);
  controls.dollyToCursor = true;
  controls.smoothTime = 0.12;
  world.navigation.controls = controls;

  let mode: NavigationMode = 'Orbit';
  let projection: Projection = 'Perspective';
  let config: CameraConfig = options.cameraConfig ?? 'simple';
  let shift = false;
  let sceneRadius = 0;
  let aspect = perspective.aspect || 1;
  /** Orbit distance remembered while in FirstPerson. */
  let orbitDistance = 0;
  /** Polar angle remembered while in Plan. */
  let orbitPolar = Math.PI / 3;
  const listeners = new Set<(state: NavigationState) => void>();
  const held = new Set<string>();

  const active = (): ViewerCamera => (projection === 'Orthographic' ? ortho : perspective);

  function applyInputMapping(): void {
    mouseButtonsFor(config, mode, projection, shift, controls.mouseButtons);
    touchesFor(mode, projection, controls.touches);
  }

  function applyLimits(): void {
    const { min, max } = distanceLimits(mode, sceneRadius);
    controls.minDistance = min;
    controls.maxDistance = max;
    // The orthographic zoom range matches the same distances: zoom z shows what a perspective
    // camera shows from distanceForHalfHeight(ortho.top / z).
    const half = ortho.top > 0 ? ortho.top : 1;
    controls.minZoom = mode === 'FirstPerson' ? 0.5 : half / visibleHalfHeight(Math.max(max, 1e-6), perspective.fov);
    controls.maxZoom = mode === 'FirstPerson' ? 8 : half / visibleHalfHeight(Math.max(min, 1e-6), perspective.fov);
    if (mode === 'Plan') {
      controls.minPolarAngle = 0;
      controls.maxPolarAngle = 0;
    } else {
      controls.minPolarAngle = 0;
      controls.maxPolarAngle = Math.PI;
    }
    const rotate = mode === 'FirstPerson' ? FIRST_PERSON_ROTATE_SPEED : 1;
    controls.azimuthRotateSpeed = rotate;
    controls.polarRotateSpeed = rotate;
    controls.dollyToCursor = mode !== 'FirstPerson';
  }

  function notify(): void {
    const s = api.state();
    for (const l of [...listeners]) l(s);
    world.render.needsRender = true;
  }

  function updateWalk(): void {
    let f = 0, r = 0, u = 0;
    if (mode === 'FirstPerson') {
      for (const code of held) {
        const k = WALK_KEYS[code];
        if (!k) continue;
        f += k[0];
        r += k[1];
        u += k[2];
      }
    }
    const w = controls.walk;
    w.forward = Math.sign(f);
    w.right = Math.sign(r);
    w.up = Math.sign(u);
    w.speed = walkSpeed(sceneRadius, shift);
  }

  /** Leaves FirstPerson: the target goes back to the remembered orbit distance ahead of the eye. */
  function leaveFirstPerson(): void {
    controls.getPosition(scratchPosition, true);
    controls.getTarget(scratchTarget, true);
    scratchDirection.subVectors(scratchTarget, scratchPosition).normalize();
    const d = orbitDistance > 0 ? orbitDistance : Math.max(sceneRadius * 2, CAMERA_MIN_DISTANCE);
    scratchTarget.copy(scratchPosition).addScaledVector(scratchDirection, d);
    void controls.zoomTo(1, false);
    return void controls.setLookAt(scratchPosition.x, scratchPosition.y, scratchPosition.z, scratchTarget.x, scratchTarget.y, scratchTarget.z, false);
  }

  /** Enters FirstPerson: the eye stays, the target moves to just in front of it. */
  function enterFirstPerson(): void {
    orbitDistance = controls.distanceEnd;
    controls.getPosition(scratchPosition, true);
    controls.getTarget(scratchTarget, true);
    scratchDirection.subVectors(scratchTarget, scratchPosition).normalize();
    scratchTarget.copy(scratchPosition).addScaledVector(scratchDirection, FIRST_PERSON_DISTANCE);
    void controls.setLookAt(scratchPosition.x, scratchPosition.y, scratchPosition.z, scratchTarget.x, scratchTarget.y, scratchTarget.z, false);
  }

  function changeMode(next: NavigationMode, enableTransition: boolean): void {
    const previous = mode;
    if (next === previous) return;
    if (previous === 'Plan') {
      mode = next;
      applyLimits();
      void controls.rotatePolarTo(orbitPolar, enableTransition);
    }
    if (previous === 'FirstPerson') {
      mode = 'Orbit';
      applyLimits();
      leaveFirstPerson();
    }
    mode = next;
    if (next === 'Plan') {
      orbitPolar = controls.polarAngle > 1e-3 ? controls.polarAngle : Math.PI / 3;
      applyLimits();
      void controls.rotatePolarTo(0, enableTransition);
    } else if (next === 'FirstPerson') {
      applyLimits();
      enterFirstPerson();
    } else {
      applyLimits();
    }
    applyInputMapping();
    updateWalk();
  }

  function fitOrtho(): void {
    // The frustum at zoom 1 shows the current perspective framing at the target.
    const half = visibleHalfHeight(controls.distanceEnd, perspective.getEffectiveFOV());
    ortho.top = half;
    ortho.bottom = -half;
    ortho.left = -half * aspect;
    ortho.right = half * aspect;
    ortho.near = perspective.near;
    ortho.far = perspective.far + Math.max(sceneRadius * ORTHO_DISTANCE_RADII, controls.distanceEnd);
    ortho.updateProjectionMatrix();
  }

  function orthoDistance(): number {
    return Math.max(controls.distanceEnd, sceneRadius * ORTHO_DISTANCE_RADII, CAMERA_MIN_DISTANCE);
  }

  // Keyboard, Shift and focus.
  const onKeyDown = (e: KeyboardEvent) => {
    if (isTypingTarget(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (mode !== 'FirstPerson' || !isWalkKey(e.code)) return;
    held.add(e.code);
    api.setShift(e.shiftKey);
    updateWalk();
    e.preventDefault();
  };
  const onKeyUp = (e: KeyboardEvent) => {
    if (held.delete(e.code)) updateWalk();
  };
  const onWindowKey = (e: KeyboardEvent) => {
    if (e.key === 'Shift') api.setShift(e.type === 'keydown');
  };
  const release = () => {
    held.clear();
    api.setShift(false);
    updateWalk();
  };
  const onPointerDown = (e: PointerEvent) => {
    api.setShift(e.shiftKey);
    // A press on the 3D view gives it the keyboard.
    if (element && document.activeElement !== element) element.focus({ preventScroll: true });
  };
  const onFocusOut = (e: FocusEvent) => {
    if (!element?.contains(e.relatedTarget as Node | null)) release();
  };
  const onVisibility = () => {
    if (document.visibilityState !== 'visible') release();
  };
  if (element) {
    controls.connect(element);
    if (element.tabIndex < 0) element.tabIndex = 0;
    element.addEventListener('keydown', onKeyDown);
    element.addEventListener('keyup', onKeyUp);
    element.addEventListener('focusout', onFocusOut);
    // Capture: runs before camera-controls picks the action of the press from mouseButtons.
    element.addEventListener('pointerdown', onPointerDown, { capture: true });
    window.addEventListener('keydown', onWindowKey);
    window.addEventListener('keyup', onWindowKey);
    window.addEventListener('blur', release);
    document.addEventListener('visibilitychange', onVisibility);
  }

  applyLimits();
  applyInputMapping();

  const api: Navigation = {
    controls,
    get camera() {
      return active();
    },
    perspectiveCamera: perspective,
    orthographicCamera: ortho,
    get mode() {
      return mode;
    },
    get projection() {
      return projection;
    },
    get cameraConfig() {
      return config;
    },
    get sceneRadius() {
      return sceneRadius;
    },
    state() {
      return { mode, projection, cameraConfig: config };
    },
    setMode(requested) {
      const next = effectiveMode(parseMode(requested), projection);
      if (next !== mode) {
        changeMode(next, true);
        notify();
      }
      return mode;
    },
    setProjection(requested) {
      const next = parseProjection(requested);
      if (next === projection) return projection;
      // FirstPerson is perspective only.
      if (next === 'Orthographic' && mode === 'FirstPerson') changeMode('Orbit', false);
      controls.getPosition(scratchPosition, true);
      controls.getTarget(scratchTarget, true);
      if (next === 'Orthographic') {
        fitOrtho();
        ortho.position.copy(perspective.position);
        ortho.quaternion.copy(perspective.quaternion);
        ortho.up.copy(perspective.up);
        projection = next;
        controls.camera = ortho;
        applyLimits();
        void controls.zoomTo(1, false);
        void controls.dollyTo(orthoDistance(), false);
      } else {
        // The same visible height: the distance at which the perspective camera shows ortho.top / zoom.
        const half = ortho.top / controls.zoomEnd;
        perspective.position.copy(ortho.position);
        perspective.quaternion.copy(ortho.quaternion);
        perspective.up.copy(ortho.up);
        projection = next;
        controls.camera = perspective;
        applyLimits();
        void controls.zoomTo(1, false);
        void controls.dollyTo(distanceForHalfHeight(half, perspective.fov), false);
      }
      controls.update(0);
      applyInputMapping();
      options.onCameraChange?.(active());
      notify();
      return projection;
    },
    toggleProjection() {
      return api.setProjection(projection === 'Perspective' ? 'Orthographic' : 'Perspective');
    },
    setCameraConfig(requested) {
      config = parseCameraConfig(requested);
      applyInputMapping();
      notify();
      return config;
    },
    async fit(objects, enableTransition = false) {
      const radius = measure(objects, sphere);
      if (radius === 0) return 0;
      sceneRadius = radius;
      const wasFirstPerson = mode === 'FirstPerson';
      if (wasFirstPerson) changeMode('Orbit', false);
      applyLimits();
      perspective.near = Math.min(CAMERA_NEAR, radius / 50);
      perspective.far = Math.max(CAMERA_FAR, radius * 20);
      perspective.updateProjectionMatrix();
      // A three-quarter view from the front right, slightly above.
      await controls.setLookAt(
        sphere.center.x + radius * 1.2,
        sphere.center.y + radius * 0.8,
        sphere.center.z + radius * 1.6,
        sphere.center.x,
        sphere.center.y,
        sphere.center.z,
        enableTransition,
      );
      // setLookAt does not apply the polar limits: Plan turns back to looking straight down.
      if (mode === 'Plan') void controls.rotateTo(controls.azimuthAngle, 0, enableTransition);
      if (projection === 'Orthographic') {
        ortho.near = perspective.near;
        ortho.far = perspective.far + radius * ORTHO_DISTANCE_RADII;
        ortho.updateProjectionMatrix();
        void controls.dollyTo(orthoDistance(), false);
      }
      const fitted = controls.fitToSphere(sphere, enableTransition);
      if (wasFirstPerson) {
        if (enableTransition) await fitted;
        orbitDistance = controls.distanceEnd;
        changeMode('FirstPerson', false);
      } else {
        await fitted;
      }
      updateWalk();
      world.render.needsRender = true;
      return radius;
    },
    async recentreOn(point, enableTransition = true) {
      if (!point || !Number.isFinite(point.x) || !Number.isFinite(point.y) || !Number.isFinite(point.z)) {
        throw new Error('recentreOn needs a point with finite x, y and z.');
      }
      controls.getPosition(scratchPosition, true);
      if (mode === 'FirstPerson') {
        scratchDirection.subVectors(point, scratchPosition);
        if (scratchDirection.lengthSq() === 0) return;
        await controls.lookInDirectionOf(point.x, point.y, point.z, enableTransition);
        return;
      }
      if (mode === 'Plan') {
        // Top-down: the plan slides so the point is in the middle, at the same height above it.
        await controls.moveTo(point.x, point.y, point.z, enableTransition);
        return;
      }
      await controls.setLookAt(scratchPosition.x, scratchPosition.y, scratchPosition.z, point.x, point.y, point.z, enableTransition);
    },
    async lookAlong(requested, enableTransition = true) {
      const axis = parseViewAxis(requested);
      const side = axis[1] === 'y';
      if (!side && mode === 'Plan') {
        changeMode('Orbit', false);
        notify();
      }
      let polar: number;
      let azimuth: number;
      switch (axis) {
        case '+x': polar = Math.PI / 2; azimuth = Math.PI / 2; break;
        case '-x': polar = Math.PI / 2; azimuth = -Math.PI / 2; break;
        case '+z': polar = Math.PI / 2; azimuth = 0; break;
        case '-z': polar = Math.PI / 2; azimuth = Math.PI; break;
        case '+y': polar = 0; azimuth = controls.azimuthAngle; break;
        default: polar = Math.PI; azimuth = controls.azimuthAngle; break;
      }
      if (mode === 'Plan' && axis === '-y') polar = 0;
      // The shortest turn: the library interpolates the azimuth as a plain number.
      const current = controls.azimuthAngle;
      azimuth = current + MathUtils.euclideanModulo(azimuth - current + Math.PI, Math.PI * 2) - Math.PI;
      if (mode === 'FirstPerson') {
        // Look from the eye in the direction that views the scene from that side.
        scratchDirection.setFromSpherical(scratchSpherical.set(1, polar, azimuth)).negate();
        controls.getPosition(scratchPosition, true);
        await controls.lookInDirectionOf(
          scratchPosition.x + scratchDirection.x,
          scratchPosition.y + scratchDirection.y,
          scratchPosition.z + scratchDirection.z,
          enableTransition,
        );
        return;
      }
      await controls.rotateTo(azimuth, polar, enableTransition);
    },
    setSize(width, height) {
      if (!(width > 0 && height > 0)) return;
      aspect = width / height;
      const half = ortho.top > 0 ? ortho.top : 1;
      ortho.left = -half * aspect;
      ortho.right = half * aspect;
      ortho.updateProjectionMatrix();
      world.render.needsRender = true;
    },
    setShift(isHeld) {
      if (isHeld === shift) return;
      shift = isHeld;
      applyInputMapping();
      updateWalk();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      listeners.clear();
      held.clear();
      if (element) {
        element.removeEventListener('keydown', onKeyDown);
        element.removeEventListener('keyup', onKeyUp);
        element.removeEventListener('focusout', onFocusOut);
        element.removeEventListener('pointerdown', onPointerDown, { capture: true });
        window.removeEventListener('keydown', onWindowKey);
        window.removeEventListener('keyup', onWindowKey);
        window.removeEventListener('blur', release);
        document.removeEventListener('visibilitychange', onVisibility);
      }
      controls.dispose();
      if (world.navigation.controls === controls) world.navigation.controls = null;
    },
  };
  return api;
}

/**
 * The bounding sphere of everything in `objects` (world matrices must be current) into `out`;
 * returns its radius (at least 1e-3), or 0 when there is nothing.
 */
export function measure(objects: Iterable<Object3D>, out: Sphere): number {
  box.makeEmpty();
  for (const object of objects) {
    // Skinned meshes are bounded in their current pose: bring the bone matrices up to date first.
    object.traverse((o) => {
      const skinned = o as SkinnedMesh;
      if (skinned.isSkinnedMesh) {
        skinned.skeleton.update();
        (skinned as unknown as { boundingBox: Box3 | null }).boundingBox = null;
      }
    });
    objectBox.setFromObject(object, false);
    if (!objectBox.isEmpty()) box.union(objectBox);
  }
  if (box.isEmpty()) return 0;
  box.getBoundingSphere(out);
  out.radius = Math.max(out.radius, 1e-3);
  return out.radius;
}
