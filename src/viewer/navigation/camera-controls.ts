import CameraControls from 'camera-controls';
import { Box3, Matrix4, Quaternion, Raycaster, Sphere, Spherical, Vector2, Vector3, Vector4 } from 'three';

CameraControls.install({ THREE: { Vector2, Vector3, Vector4, Quaternion, Matrix4, Spherical, Box3, Sphere, Raycaster } });

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
  /** Called after every update (the navigation writes the view pose, world.view, there). */
  afterUpdate: (() => void) | null = null;

  override update(delta: number): boolean {
    // Called by the base constructor before our fields exist.
    const w = this.walk as typeof this.walk | undefined;
    if (w && (w.forward !== 0 || w.right !== 0 || w.up !== 0) && delta > 0) this.step(w.forward * w.speed * delta, w.right * w.speed * delta, w.up * w.speed * delta);
    const moved = super.update(delta);
    const after = this.afterUpdate as (() => void) | null | undefined;
    if (after) after();
    return moved;
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

