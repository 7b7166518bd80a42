import type { ViewerWorld } from '../src/engine/world';

/** Updates the camera controls; a moved camera asks for a new frame. */
export function navigationSystem(world: ViewerWorld): ViewerWorld {
  const controls = world.navigation.controls;
  if (controls && controls.update(world.time.delta)) world.render.needsRender = true;
  return world;
}
