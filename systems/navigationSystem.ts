import type { ViewerWorld } from '../src/engine/world';

/**
 * Updates the camera controls (src/viewer/navigation: camera-controls plus first-person walking by
 * the held keys, speed x frame time, without allocation). `world.camera.moved` tells the rest of the
 * frame (labels, gizmos, shadows) that the view changed, and the render system draws for it. A
 * moved camera does not set `needsRender`: that flag means the scene itself changed, and only then
 * are the shadow maps drawn again (systems/renderSystem.ts).
 */
export function navigationSystem(world: ViewerWorld): ViewerWorld {
  const controls = world.navigation.controls;
  const moved = !!controls && controls.update(world.time.delta);
  world.camera.moved = moved;
  if (moved) world.camera.version++;
  return world;
}
