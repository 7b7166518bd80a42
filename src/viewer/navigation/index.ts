import { Box3, OrthographicCamera, Sphere, Vector3, type Object3D, type PerspectiveCamera } from 'three';
import { HELPER_LAYER } from '../../engine/layers';
import { writeViewPose } from '../../engine/view-pose';
import type { ViewerWorld } from '../../engine/world';
import { CAMERA_FAR, CAMERA_NEAR } from '../../protocol/constants';
import type { Emitter, ViewerEventMap } from '../events';
import type { Keyboard } from '../input/keyboard';
import type { KeyAction } from '../input/keymap';
import type { PointerRouter } from '../input/pointer-router';
import { ViewerCameraControls } from './camera-controls';
import { measure, nearestAzimuth } from './framing';
import { bindNavigationKeys } from './keys';
import { applyModeLimits, enterFirstPerson, leaveFirstPerson } from './mode-switch';
import {
  effectiveMode,
  mouseButtonsFor,
  parseCameraConfig,
  parseMode,
  parseProjection,
  parseViewAxis,
  touchesFor,
  type CameraConfig,
  type NavigationMode,
  type Projection,
  type ViewAxis,
  type ViewerCamera,
} from './modes';
import { fitOrthoDepth, fitPerspectiveDepth, orthoDistance, switchCamera } from './projection';
import { frameFromAbove, lookFromEye, recentre, threeQuarterView, viewAngles } from './views';
import { applyWalk } from './walking';
import { wheelTowardsSurface } from './wheel';

export * from './modes';
export { ViewerCameraControls } from './camera-controls';
export { distanceForHalfHeight, KEY_ORBIT_STEP, KEY_ZOOM_SHARE, measure, nearestAzimuth, visibleHalfHeight } from './framing';
export { RUN_FACTOR, walkSpeed, WALK_ACTIONS } from './walking';

/**
 * Navigation of the viewer (viewer specification sections 2, 4 and 9) on camera-controls, composed
 * of: the modes and their input mapping and limits (modes.ts), what a change of mode does to the
 * camera (mode-switch.ts), the camera controls with allocation-free walking (camera-controls.ts),
 * the key map's keys (keys.ts) and walking by them (walking.ts), the wheel (wheel.ts), framing
 * (framing.ts), the views from a side (views.ts) and the projection switch (projection.ts).
 *
 * - modes 'Orbit' (default), 'FirstPerson' (perspective only: asked for in orthographic it falls
 *   back to Orbit) and 'Plan' (top-down: the polar angle is locked at 0, rotating spins the plan);
 * - projections 'Perspective' and 'Orthographic'; switching keeps the framing (the visible height
 *   at the orbit target stays the same) and replaces the camera object (onCameraChange);
 * - camera configs 'simple' and 'editor' (mouseButtonsFor);
 * - FirstPerson looks around in place and walks with the held walking keys of the key map.
 */

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
  /** The viewer's keyboard: the walking keys and Shift (none: no keys, for tests and off-screen use). */
  keyboard?: Keyboard;
  /** Where 'navigation' events go (every mode, projection or config change). */
  events?: Emitter<ViewerEventMap>;
  /**
   * The viewer's pointer router: the wheel zooms towards its pick under the pointer, slowing near
   * the surface and never passing it (wheel.ts). Absent: the wheel dollies towards the orbit target.
   */
  pointer?: PointerRouter;
}

export interface FitOptions {
  /** Frame from the current view direction (the Fit button) instead of the three-quarter view of a first framing. */
  keepDirection?: boolean;
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
  /**
   * Frames the objects (world matrices current); returns their bounding radius, 0 when empty. From
   * a three-quarter view, or from the current direction with `keepDirection` (in Plan: from above,
   * the plan square to the axes).
   */
  fit(objects: Iterable<Object3D>, enableTransition?: boolean, options?: FitOptions): Promise<number>;
  /** Remembers the current view as Home (the viewer does it when a scene has loaded). */
  saveHome(): void;
  /** Back to the Home view (Orbit), or to a fit of the scene when none was saved. */
  home(enableTransition?: boolean): Promise<void>;
  /** Keeps the camera where it is and turns it to look at `point`, which becomes the orbit target (smooth). */
  recentreOn(point: Vector3, enableTransition?: boolean): Promise<void>;
  /**
   * Turns the view to look at the target from the given side (smooth); a side view leaves Plan for
   * Orbit. Top and bottom views are square to the axes (X to the right, -Z up the screen for the
   * top) and framed on the scene once turned.
   */
  lookAlong(axis: ViewAxis | string, enableTransition?: boolean): Promise<void>;
  /**
   * The camera moves that others ask for (the host API, follow mode, comments' views, scene
   * settings): camera-controls' own, and the view pose (world.view) written at once, so a read
   * right after sees the pose asked for.
   */
  setLookAt(px: number, py: number, pz: number, tx: number, ty: number, tz: number, enableTransition?: boolean): Promise<void>;
  zoomTo(zoom: number, enableTransition?: boolean): Promise<void>;
  fitToBox(box: Box3, enableTransition?: boolean): Promise<unknown>;
  /** The drawing area's CSS size changed. */
  setSize(width: number, height: number): void;
  /** Whether Shift is held (the 'editor' config's truck switch, running); the keyboard reports it. */
  setShift(held: boolean): void;
  /** The mode, projection and config now (a 'navigation' event tells every change). */
  state(): NavigationState;
  dispose(): void;
}

const scratchTarget = new Vector3();
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
  /** The last framed scene's world box (Plan and top views frame it). */
  const sceneBox = new Box3();
  const home = { saved: false, position: new Vector3(), target: new Vector3() };
  let aspect = perspective.aspect || 1;
  /** Orbit distance remembered while in FirstPerson. */
  let orbitDistance = 0;
  /** Polar angle remembered while in Plan. */
  let orbitPolar = Math.PI / 3;
  /** Walking actions whose keys are held. */
  const held = new Set<KeyAction>();

  const active = (): ViewerCamera => (projection === 'Orthographic' ? ortho : perspective);

  /** The view pose from camera-controls and the camera in use: after every update of the controls (the frame's step) and when a move starts. */
  const writePose = () => writeViewPose(world, controls, active(), projection, perspective.fov, (ortho.top - ortho.bottom) / ortho.zoom);
  controls.afterUpdate = writePose;
  /** A move started: its end is known now (the pose is written), and again when it ends. */
  const posed = <T>(move: Promise<T>): Promise<T> => {
    writePose();
    return move.then((value) => {
      writePose();
      return value;
    });
  };

  function applyInputMapping(): void {
    mouseButtonsFor(config, mode, projection, shift, controls.mouseButtons);
    touchesFor(mode, projection, controls.touches);
  }

  function applyLimits(): void {
    applyModeLimits(controls, mode, sceneRadius, ortho.top, perspective.fov);
  }

  function notify(): void {
    options.events?.emit('navigation', api.state());
    world.render.needsRender = true;
  }

  function updateWalk(): void {
    if (mode !== 'FirstPerson') held.clear();
    applyWalk(controls.walk, held, sceneRadius, shift);
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
      leaveFirstPerson(controls, orbitDistance, sceneRadius);
    }
    mode = next;
    if (next === 'Plan') {
      orbitPolar = controls.polarAngle > 1e-3 ? controls.polarAngle : Math.PI / 3;
      applyLimits();
      void frameFromAbove(controls, sceneBox, sceneRadius, enableTransition);
    } else if (next === 'FirstPerson') {
      applyLimits();
      orbitDistance = enterFirstPerson(controls);
    } else {
      applyLimits();
    }
    applyInputMapping();
    updateWalk();
    writePose();
  }

  // The walking keys and Shift come from the viewer's keyboard (keys.ts).
  const unbind: (() => void)[] = [];
  if (options.keyboard) {
    unbind.push(
      ...bindNavigationKeys(options.keyboard, {
        controls,
        mode: () => mode,
        projection: () => projection,
        held,
        walkChanged: updateWalk,
        setShift: (on) => api.setShift(on),
        moved: () => void (world.render.needsRender = true),
      }),
    );
  }
  // The wheel zooms towards the surface under the pointer (wheel.ts).
  if (options.pointer) unbind.push(options.pointer.add('navigation', wheelTowardsSurface(controls, options.pointer, () => mode !== 'FirstPerson' && projection !== 'Orthographic')));
  if (element) {
    controls.connect(element);
    if (element.tabIndex < 0) element.tabIndex = 0;
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
      // The same visible height at the target (projection.ts).
      projection = next;
      switchCamera(controls, perspective, ortho, next, aspect, sceneRadius, applyLimits);
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
    async fit(objects, enableTransition = false, fitOptions = {}) {
      const radius = measure(objects, sphere, sceneBox);
      if (radius === 0) return 0;
      sceneRadius = radius;
      const wasFirstPerson = mode === 'FirstPerson';
      if (wasFirstPerson) changeMode('Orbit', false);
      applyLimits();
      fitPerspectiveDepth(perspective, radius);
      const orthographic = projection === 'Orthographic';
      if (fitOptions.keepDirection && !wasFirstPerson) {
        if (mode === 'Plan') await frameFromAbove(controls, sceneBox, sceneRadius, enableTransition);
        else {
          if (orthographic) fitOrthoDepth(ortho, perspective, radius);
          await controls.fitToSphere(sphere, enableTransition);
        }
        world.render.needsRender = true;
        return radius;
      }
      await threeQuarterView(controls, sphere, enableTransition);
      // setLookAt does not apply the polar limits: Plan turns back to looking straight down, square.
      if (mode === 'Plan') void controls.rotateTo(nearestAzimuth(controls.azimuthAngle, 0), 0, enableTransition);
      if (orthographic) {
        fitOrthoDepth(ortho, perspective, radius);
        void controls.dollyTo(orthoDistance(controls.distanceEnd, sceneRadius), false);
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
    saveHome() {
      controls.getPosition(home.position, false);
      controls.getTarget(home.target, false);
      home.saved = true;
    },
    async home(enableTransition = true) {
      if (mode !== 'Orbit') {
        changeMode('Orbit', false);
        notify();
      }
      if (!home.saved) {
        if (sceneRadius > 0) await controls.fitToSphere(sphere.set(sceneBox.getCenter(scratchTarget), sceneRadius), enableTransition);
        return;
      }
      const p = home.position;
      const t = home.target;
      if (projection === 'Orthographic') {
        // The home direction, framed for the orthographic camera (its distance is not a zoom).
        await controls.setLookAt(p.x, p.y, p.z, t.x, t.y, t.z, false);
        await controls.zoomTo(1, false);
        void controls.dollyTo(orthoDistance(controls.distanceEnd, sceneRadius), false);
        if (sceneRadius > 0) await controls.fitToSphere(sphere.set(sceneBox.getCenter(scratchTarget), sceneRadius), enableTransition);
        return;
      }
      await controls.setLookAt(p.x, p.y, p.z, t.x, t.y, t.z, enableTransition);
    },
    async recentreOn(point, enableTransition = true) {
      if (!point || !Number.isFinite(point.x) || !Number.isFinite(point.y) || !Number.isFinite(point.z)) {
        throw new Error('recentreOn needs a point with finite x, y and z.');
      }
      await recentre(controls, mode, point, enableTransition);
    },
    async lookAlong(requested, enableTransition = true) {
      const axis = parseViewAxis(requested);
      const side = axis[1] === 'y';
      if (!side && mode === 'Plan') {
        changeMode('Orbit', false);
        notify();
      }
      const { polar, azimuth } = viewAngles(axis, mode, controls.azimuthAngle);
      if (mode === 'FirstPerson') return lookFromEye(controls, polar, azimuth, enableTransition);
      if (!side) {
        await controls.rotateTo(azimuth, polar, enableTransition);
        return;
      }
      // Framed for where the turn ends.
      await frameFromAbove(controls, sceneBox, sceneRadius, enableTransition, polar);
    },
    setLookAt(px, py, pz, tx, ty, tz, enableTransition = false) {
      return posed(controls.setLookAt(px, py, pz, tx, ty, tz, enableTransition));
    },
    zoomTo(zoom, enableTransition = false) {
      return posed(controls.zoomTo(zoom, enableTransition));
    },
    fitToBox(box, enableTransition = false) {
      return posed(controls.fitToBox(box, enableTransition));
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
    dispose() {
      for (const off of unbind) off();
      held.clear();
      controls.dispose();
      if (world.navigation.controls === controls) world.navigation.controls = null;
    },
  };
  // Framing and the view buttons' moves write the pose at once and when they end, like the moves above.
  const { fit, home: goHome, recentreOn, lookAlong } = api;
  api.fit = (objects, enableTransition, fitOptions) => posed(fit(objects, enableTransition, fitOptions));
  api.home = (enableTransition) => posed(goHome(enableTransition));
  api.recentreOn = (point, enableTransition) => posed(recentreOn(point, enableTransition));
  api.lookAlong = (axis, enableTransition) => posed(lookAlong(axis, enableTransition));
  writePose();
  return api;
}

