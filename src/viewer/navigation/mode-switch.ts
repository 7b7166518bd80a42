import { Vector3 } from 'three';
import type { ViewerCameraControls } from './camera-controls';
import { visibleHalfHeight } from './framing';
import { distanceLimits, FIRST_PERSON_DISTANCE, FIRST_PERSON_ROTATE_SPEED, type NavigationMode } from './modes';
import { CAMERA_MIN_DISTANCE } from '../../protocol/constants';

const position = new Vector3();
const target = new Vector3();
const direction = new Vector3();

/**
 * A mode's limits on the controls: the distance range (distanceLimits), the orthographic zoom
 * range that matches it (zoom z shows what a perspective camera shows from
 * distanceForHalfHeight(orthoTop / z)), Plan's polar lock at 0, FirstPerson's look speed and no
 * dolly towards the cursor there.
 */
export function applyModeLimits(controls: ViewerCameraControls, mode: NavigationMode, sceneRadius: number, orthoTop: number, fovDeg: number): void {
  const { min, max } = distanceLimits(mode, sceneRadius);
  controls.minDistance = min;
  controls.maxDistance = max;
  const half = orthoTop > 0 ? orthoTop : 1;
  controls.minZoom = mode === 'FirstPerson' ? 0.5 : half / visibleHalfHeight(Math.max(max, 1e-6), fovDeg);
  controls.maxZoom = mode === 'FirstPerson' ? 8 : half / visibleHalfHeight(Math.max(min, 1e-6), fovDeg);
  controls.minPolarAngle = 0;
  controls.maxPolarAngle = mode === 'Plan' ? 0 : Math.PI;
  const rotate = mode === 'FirstPerson' ? FIRST_PERSON_ROTATE_SPEED : 1;
  controls.azimuthRotateSpeed = rotate;
  controls.polarRotateSpeed = rotate;
  controls.dollyToCursor = mode !== 'FirstPerson';
}

/** Enters FirstPerson: the eye stays, the target moves to just in front of it. Returns the orbit distance to remember. */
export function enterFirstPerson(controls: ViewerCameraControls): number {
  const orbitDistance = controls.distanceEnd;
  controls.getPosition(position, true);
  controls.getTarget(target, true);
  direction.subVectors(target, position).normalize();
  target.copy(position).addScaledVector(direction, FIRST_PERSON_DISTANCE);
  void controls.setLookAt(position.x, position.y, position.z, target.x, target.y, target.z, false);
  return orbitDistance;
}

/** Leaves FirstPerson: the target goes back to the remembered orbit distance ahead of the eye (twice the scene's radius when none). */
export function leaveFirstPerson(controls: ViewerCameraControls, orbitDistance: number, sceneRadius: number): void {
  controls.getPosition(position, true);
  controls.getTarget(target, true);
  direction.subVectors(target, position).normalize();
  const d = orbitDistance > 0 ? orbitDistance : Math.max(sceneRadius * 2, CAMERA_MIN_DISTANCE);
  target.copy(position).addScaledVector(direction, d);
  void controls.zoomTo(1, false);
  void controls.setLookAt(position.x, position.y, position.z, target.x, target.y, target.z, false);
}
