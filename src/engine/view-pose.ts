import { Quaternion, Vector3 } from 'three';
import type { ViewerWorld } from './world';

export type ViewProjection = 'Perspective' | 'Orthographic';

/**
 * The view's pose as world data, as Transform is for nodes: written only by the navigation
 * (src/viewer/navigation: once per frame after camera-controls updated, and at once when it moves
 * the camera), read by everyone else (the meeting's presence, the host API, comments and their
 * BCF viewpoints, shadow follow). Readers never write it; the camera is moved through the navigation.
 */
export interface ViewPose {
  /** The eye and the orbit target as the picture shows them now. */
  readonly position: Vector3;
  readonly target: Vector3;
  /** Where a transition ends (equal to position and target at rest): what the last move asked for. */
  readonly positionEnd: Vector3;
  readonly targetEnd: Vector3;
  /** The camera's up and orientation. */
  readonly up: Vector3;
  readonly quaternion: Quaternion;
  projection: ViewProjection;
  /** The perspective camera's vertical field of view (degrees), kept in orthographic too. */
  fov: number;
  /** The camera's zoom (1 in perspective). */
  zoom: number;
  /** The orthographic camera's visible height ((top - bottom) / zoom). */
  orthoHeight: number;
  /** Bumped by every write that changed anything; 0 until the navigation first wrote the pose. */
  version: number;
}

export function createViewPose(): ViewPose {
  return {
    position: new Vector3(),
    target: new Vector3(),
    positionEnd: new Vector3(),
    targetEnd: new Vector3(),
    up: new Vector3(0, 1, 0),
    quaternion: new Quaternion(),
    projection: 'Perspective',
    fov: 50,
    zoom: 1,
    orthoHeight: 1,
    version: 0,
  };
}

/** What the navigation writes the pose from (camera-controls and the camera in use). */
export interface ViewPoseSource {
  getPosition(out: Vector3, receiveEndValue?: boolean): Vector3;
  getTarget(out: Vector3, receiveEndValue?: boolean): Vector3;
}

export interface ViewCamera {
  readonly up: Vector3;
  readonly quaternion: Quaternion;
  readonly zoom: number;
}

const scratch = new Vector3();

/** Copies `v` into `into`; true when it differed. */
function take(into: Vector3, v: Vector3): boolean {
  if (into.equals(v)) return false;
  into.copy(v);
  return true;
}

/**
 * Writes the pose from camera-controls and the camera in use (the navigation's job); bumps
 * `version` when anything changed. Allocates nothing.
 */
export function writeViewPose(
  world: ViewerWorld,
  controls: ViewPoseSource,
  camera: ViewCamera,
  projection: ViewProjection,
  fov: number,
  orthoHeight: number,
): void {
  const view = world.view;
  let changed = view.version === 0;
  changed = take(view.position, controls.getPosition(scratch, false)) || changed;
  changed = take(view.target, controls.getTarget(scratch, false)) || changed;
  changed = take(view.positionEnd, controls.getPosition(scratch, true)) || changed;
  changed = take(view.targetEnd, controls.getTarget(scratch, true)) || changed;
  changed = take(view.up, camera.up) || changed;
  if (!view.quaternion.equals(camera.quaternion)) {
    view.quaternion.copy(camera.quaternion);
    changed = true;
  }
  if (view.projection !== projection || view.fov !== fov || view.zoom !== camera.zoom || view.orthoHeight !== orthoHeight) {
    view.projection = projection;
    view.fov = fov;
    view.zoom = camera.zoom;
    view.orthoHeight = orthoHeight;
    changed = true;
  }
  if (changed) view.version++;
}

/**
 * What the view looks at: the pose's target (where a move ends) once the navigation wrote it, else
 * the camera's position. Writes `out`; allocates nothing.
 */
export function viewFocus(world: ViewerWorld, out: Vector3): Vector3 {
  if (world.view.version > 0) return out.copy(world.view.targetEnd);
  const camera = world.render.camera;
  return camera ? out.copy(camera.position) : out.set(0, 0, 0);
}

/** The eye: the pose's position once the navigation wrote it, else the camera's position (or null without a camera). */
export function viewEye(world: ViewerWorld): Vector3 | null {
  if (world.view.version > 0) return world.view.position;
  return world.render.camera ? world.render.camera.position : null;
}
