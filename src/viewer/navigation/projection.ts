import type { OrthographicCamera, PerspectiveCamera } from 'three';
import { CAMERA_FAR, CAMERA_MIN_DISTANCE, CAMERA_NEAR } from '../../protocol/constants';
import type { ViewerCameraControls } from './camera-controls';
import { distanceForHalfHeight, ORTHO_DISTANCE_RADII, visibleHalfHeight } from './framing';
import type { Projection } from './modes';

/** The orthographic frustum at zoom 1 that shows the perspective camera's framing at `distance` (its target). */
export function fitOrthoFrustum(ortho: OrthographicCamera, perspective: PerspectiveCamera, distance: number, aspect: number, sceneRadius: number): void {
  const half = visibleHalfHeight(distance, perspective.getEffectiveFOV());
  ortho.top = half;
  ortho.bottom = -half;
  ortho.left = -half * aspect;
  ortho.right = half * aspect;
  ortho.near = perspective.near;
  ortho.far = perspective.far + Math.max(sceneRadius * ORTHO_DISTANCE_RADII, distance);
  ortho.updateProjectionMatrix();
}

/** How far the orthographic camera sits from its target: far enough that nothing of the scene is behind it. */
export function orthoDistance(distance: number, sceneRadius: number): number {
  return Math.max(distance, sceneRadius * ORTHO_DISTANCE_RADII, CAMERA_MIN_DISTANCE);
}

/**
 * Hands the controls over to the other projection's camera, keeping the visible height at the
 * target: to orthographic, a frustum that shows the perspective framing (at zoom 1, from
 * orthoDistance); to perspective, the distance at which it shows ortho.top / zoom. `limits`
 * applies the mode's limits once the camera is handed over.
 */
export function switchCamera(
  controls: ViewerCameraControls,
  perspective: PerspectiveCamera,
  ortho: OrthographicCamera,
  next: Projection,
  aspect: number,
  sceneRadius: number,
  limits: () => void,
): void {
  if (next === 'Orthographic') {
    fitOrthoFrustum(ortho, perspective, controls.distanceEnd, aspect, sceneRadius);
    ortho.position.copy(perspective.position);
    ortho.quaternion.copy(perspective.quaternion);
    ortho.up.copy(perspective.up);
    controls.camera = ortho;
    limits();
    void controls.zoomTo(1, false);
    void controls.dollyTo(orthoDistance(controls.distanceEnd, sceneRadius), false);
    return;
  }
  const half = ortho.top / controls.zoomEnd;
  perspective.position.copy(ortho.position);
  perspective.quaternion.copy(ortho.quaternion);
  perspective.up.copy(ortho.up);
  controls.camera = perspective;
  limits();
  void controls.zoomTo(1, false);
  void controls.dollyTo(distanceForHalfHeight(half, perspective.fov), false);
}

/** The perspective camera's depth range for a scene of this radius. */
export function fitPerspectiveDepth(perspective: PerspectiveCamera, radius: number): void {
  perspective.near = Math.min(CAMERA_NEAR, radius / 50);
  perspective.far = Math.max(CAMERA_FAR, radius * 20);
  perspective.updateProjectionMatrix();
}

/** The orthographic camera's depth range: the perspective one's, ORTHO_DISTANCE_RADII scene radii further back. */
export function fitOrthoDepth(ortho: OrthographicCamera, perspective: PerspectiveCamera, radius: number): void {
  ortho.near = perspective.near;
  ortho.far = perspective.far + radius * ORTHO_DISTANCE_RADII;
  ortho.updateProjectionMatrix();
}
