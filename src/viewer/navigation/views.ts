import { Spherical, Vector3, type Box3, type Sphere } from 'three';
import type { ViewerCameraControls } from './camera-controls';
import { nearestAzimuth } from './framing';
import type { NavigationMode, ViewAxis } from './modes';

const position = new Vector3();
const direction = new Vector3();
const spherical = new Spherical();

/**
 * The camera's angles for a view from one side (lookAlong): the sides level, top and bottom square
 * to the axes with X to the right (never the current spin); in Plan the bottom view is the top
 * one. The azimuth is the nearest to `currentAzimuth` (the library interpolates it as a plain number).
 */
export function viewAngles(axis: ViewAxis, mode: NavigationMode, currentAzimuth: number): { polar: number; azimuth: number } {
  let polar: number;
  let azimuth: number;
  switch (axis) {
    case '+x':
      polar = Math.PI / 2;
      azimuth = Math.PI / 2;
      break;
    case '-x':
      polar = Math.PI / 2;
      azimuth = -Math.PI / 2;
      break;
    case '+z':
      polar = Math.PI / 2;
      azimuth = 0;
      break;
    case '-z':
      polar = Math.PI / 2;
      azimuth = Math.PI;
      break;
    case '+y':
      polar = 0;
      azimuth = 0;
      break;
    default:
      polar = Math.PI;
      azimuth = 0;
      break;
  }
  if (mode === 'Plan' && axis === '-y') polar = 0;
  return { polar, azimuth: nearestAzimuth(currentAzimuth, azimuth) };
}

/** FirstPerson's view from one side: from the eye, in the direction that views the scene from there. */
export function lookFromEye(controls: ViewerCameraControls, polar: number, azimuth: number, enableTransition: boolean): Promise<void> {
  direction.setFromSpherical(spherical.set(1, polar, azimuth)).negate();
  controls.getPosition(position, true);
  return controls.lookInDirectionOf(position.x + direction.x, position.y + direction.y, position.z + direction.z, enableTransition);
}

/**
 * Looks straight down (or at `polar`), square to the axes (X to the right, -Z up the screen), and
 * frames the scene's box for that final orientation with a margin of a tenth of the scene's size
 * (camera-controls fits for where the rotation ends, so nothing is cropped by a frame taken half
 * way). Without a scene it only turns.
 */
export async function frameFromAbove(controls: ViewerCameraControls, sceneBox: Box3, sceneRadius: number, enableTransition: boolean, polar = 0): Promise<void> {
  const turn = controls.rotateTo(nearestAzimuth(controls.azimuthAngle, 0), polar, enableTransition);
  if (sceneBox.isEmpty()) {
    await turn;
    return;
  }
  const pad = Math.max(sceneRadius * 0.1, 1e-3);
  await Promise.all([turn, controls.fitToBox(sceneBox, enableTransition, { paddingLeft: pad, paddingRight: pad, paddingTop: pad, paddingBottom: pad })]);
}

/** The first framing's view of a scene: a three-quarter view from the front right, slightly above. */
export function threeQuarterView(controls: ViewerCameraControls, sphere: Sphere, enableTransition: boolean): Promise<void> {
  const { center, radius } = sphere;
  return controls.setLookAt(center.x + radius * 1.2, center.y + radius * 0.8, center.z + radius * 1.6, center.x, center.y, center.z, enableTransition);
}

/**
 * Recentres on a point (smooth): Orbit keeps the camera where it is and turns it to look at the
 * point, which becomes the orbit target; FirstPerson looks at it from the eye; Plan slides the plan
 * so the point is in the middle, at the same height above it.
 */
export async function recentre(controls: ViewerCameraControls, mode: NavigationMode, point: Vector3, enableTransition: boolean): Promise<void> {
  controls.getPosition(position, true);
  if (mode === 'FirstPerson') {
    if (direction.subVectors(point, position).lengthSq() === 0) return;
    await controls.lookInDirectionOf(point.x, point.y, point.z, enableTransition);
    return;
  }
  if (mode === 'Plan') {
    await controls.moveTo(point.x, point.y, point.z, enableTransition);
    return;
  }
  await controls.setLookAt(position.x, position.y, position.z, point.x, point.y, point.z, enableTransition);
}
