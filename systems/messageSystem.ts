import { drainMessages } from '../src/engine/messages';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Applies the scene messages queued since the last frame (the host page's API requests, a meeting's
 * remote calls), in arrival order, after input and before anything moves: a remote change never
 * lands between two systems of a frame.
 */
export function messageSystem(world: ViewerWorld): ViewerWorld {
  if (drainMessages(world) > 0) world.render.needsRender = true;
  return world;
}
