import CameraControls from 'camera-controls';
import type { OrthographicCamera, PerspectiveCamera } from 'three';
import { CAMERA_MAX_DISTANCE, CAMERA_MAX_DISTANCE_ORBIT, CAMERA_MIN_DISTANCE } from '../../protocol/constants';
import { ERR_MODE } from '../../protocol/errors';

/**
 * The navigation's modes, projections and camera configs (viewer specification sections 4 and 9)
 * as pure data and rules: names and their checks, the mouse and touch mapping of each, and the
 * distance limits. No camera, no DOM.
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

/** Zoom-out stops this many scene radii from the target: a few model sizes, the model still readable. */
export const ZOOM_OUT_RADII = 8;

/**
 * Distance limits of a mode. The minimum is 1 (a scene of less than 1 m bounding radius lowers it to
 * a fifth of its radius). The maximum is ZOOM_OUT_RADII scene radii (at least 4 minimums), within
 * the specification's 300 in Orbit and 5000 otherwise; only a scene too large for those (more than
 * an eighth of the maximum in radius) raises it, so any scene can be seen whole. With no scene yet
 * (`radius` 0) the specification's maxima apply. FirstPerson pins the distance at FIRST_PERSON_DISTANCE.
 */
export function distanceLimits(mode: NavigationMode, radius: number): { min: number; max: number } {
  if (mode === 'FirstPerson') return { min: FIRST_PERSON_DISTANCE, max: FIRST_PERSON_DISTANCE };
  const r = radius > 0 && Number.isFinite(radius) ? radius : 0;
  const min = r > 0 && r < CAMERA_MIN_DISTANCE ? r * 0.2 : CAMERA_MIN_DISTANCE;
  const specMax = mode === 'Orbit' ? CAMERA_MAX_DISTANCE_ORBIT : CAMERA_MAX_DISTANCE;
  if (r === 0) return { min, max: specMax };
  const max = Math.max(Math.min(specMax, r * ZOOM_OUT_RADII), r * ZOOM_OUT_RADII > specMax ? r * ZOOM_OUT_RADII : 0, min * 4);
  return { min, max };
}
