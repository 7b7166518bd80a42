import { runFrameSteps } from '../src/engine/frame-steps';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Helper objects follow the scene before the picture is drawn (the 'helpers' steps: section planes'
 * clipping and caps, measurement drawings whose points changed, gizmos on the current camera).
 */
export function helperSystem(world: ViewerWorld): ViewerWorld {
  runFrameSteps(world, 'helpers');
  return world;
}
