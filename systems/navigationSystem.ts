import type { ViewerWorld } from '../src/engine/world';

/**
 * Updates the camera controls (src/viewer/navigation.ts: camera-controls plus first-person walking
 * by the held keys, speed x frame time, without allocation); a moved camera asks for a new frame.
 */
export function navigationSystem(world: ViewerWorld): ViewerWorld {
  const controls = world.navigation.controls;
  if (controls && controls.update(world.time.delta)) world.render.needsRender = true;
  return world;
}
