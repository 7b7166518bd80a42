import CameraControls from 'camera-controls';
import {
  Box3,
  Matrix4,
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
import { CAMERA_FAR, CAMERA_MAX_DISTANCE_ORBIT, CAMERA_MIN_DISTANCE, CAMERA_NEAR } from '../engine/constants';
import type { ViewerWorld } from '../engine/world';

CameraControls.install({ THREE: { Vector2, Vector3, Vector4, Quaternion, Matrix4, Spherical, Box3, Sphere, Raycaster } });

export type CameraConfig = 'simple' | 'editor';

/**
 * Orbit navigation with camera-controls. Camera config 'simple': left rotates, middle and right
 * truck, the wheel dollies; one finger rotates, two fingers dolly and truck. (The navigation issue
 * adds FirstPerson and Plan modes, the 'editor' config and the orientation gizmo.)
 */
export function createNavigation(world: ViewerWorld, camera: PerspectiveCamera, element: HTMLElement): CameraControls {
  const controls = new CameraControls(camera, element);
  const A = CameraControls.ACTION;
  controls.mouseButtons.left = A.ROTATE;
  controls.mouseButtons.middle = A.TRUCK;
  controls.mouseButtons.right = A.TRUCK;
  controls.mouseButtons.wheel = A.DOLLY;
  controls.touches.one = A.TOUCH_ROTATE;
  controls.touches.two = A.TOUCH_DOLLY_TRUCK;
  controls.touches.three = A.TOUCH_TRUCK;
  controls.minDistance = CAMERA_MIN_DISTANCE;
  controls.maxDistance = CAMERA_MAX_DISTANCE_ORBIT;
  controls.dollyToCursor = true;
  controls.smoothTime = 0.12;
  world.navigation.controls = controls;
  return controls;
}

const box = new Box3();
const objectBox = new Box3();
const sphere = new Sphere();

/**
 * Frames everything in `objects` (their world matrices must be current). The specification's
 * distance limits (1 to 300 in orbit) and clip planes (0.1 to 2000) hold for scenes that fit in
 * them; a scene smaller or larger than that range widens them so it can still be seen whole and
 * close up. Returns the bounding sphere radius, or 0 when there is nothing to frame.
 */
export async function frameObjects(
  controls: CameraControls,
  camera: PerspectiveCamera,
  objects: Iterable<Object3D>,
  enableTransition = false,
): Promise<number> {
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
  box.getBoundingSphere(sphere);
  const radius = Math.max(sphere.radius, 1e-3);
  controls.minDistance = Math.min(CAMERA_MIN_DISTANCE, radius * 0.2);
  controls.maxDistance = Math.max(CAMERA_MAX_DISTANCE_ORBIT, radius * 8);
  camera.near = Math.min(CAMERA_NEAR, radius / 50);
  camera.far = Math.max(CAMERA_FAR, radius * 20);
  camera.updateProjectionMatrix();
  // A three-quarter view from the front right, slightly above.
  await controls.setLookAt(
    sphere.center.x + radius * 1.2,
    sphere.center.y + radius * 0.8,
    sphere.center.z + radius * 1.6,
    sphere.center.x,
    sphere.center.y,
    sphere.center.z,
    false,
  );
  await controls.fitToSphere(sphere, enableTransition);
  return radius;
}
