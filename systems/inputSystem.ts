import { runFrameSteps } from '../src/engine/frame-steps';
import type { ViewerWorld } from '../src/engine/world';

/**
 * The first step of the frame: pointer work coalesced since the last frame (a hover pick, a handle
 * drag) runs once here with the latest pointer position (src/viewer/input registers it). Discrete
 * input (presses, clicks, keys) is handled when it happens, so its default can be prevented.
 */
export function inputSystem(world: ViewerWorld): ViewerWorld {
  runFrameSteps(world, 'input');
  return world;
}
