import { runFrameSteps } from '../src/engine/frame-steps';
import type { ViewerWorld } from '../src/engine/world';

/**
 * After the picture: what is drawn over the canvas in the DOM follows it in the same frame (the
 * 'overlays' steps: labels pinned to 3D points, the orientation gizmo). Each step does its work only
 * when the camera moved (`world.camera.moved`) or its own content changed.
 */
export function overlaySystem(world: ViewerWorld): ViewerWorld {
  runFrameSteps(world, 'overlays');
  return world;
}
