import { runFrameSteps } from '../src/engine/frame-steps';
import { ERR_CAMERA, ERR_RENDERER, ERR_SCENE } from '../src/protocol/errors';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Draws the frame if anything asked for it (a moved camera, a synced transform or flag, a playing
 * animation, an explicit needsRender) and nothing holds it. A still scene costs no GPU work. The
 * 'afterDraw' steps draw over a picture right after it (the editor's selection outline), only in
 * the frames that drew one.
 */
export function renderSystem(world: ViewerWorld): ViewerWorld {
  const r = world.render;
  if (!r.renderer) throw new Error(ERR_RENDERER);
  if (!r.scene) throw new Error(ERR_SCENE);
  if (!r.camera) throw new Error(ERR_CAMERA);

  if (!r.needsRender || r.hold > 0) return world;
  r.needsRender = false;

  const start = performance.now();
  if (r.draw) r.draw(world.time.delta);
  else r.renderer.render(r.scene, r.camera);
  const info = r.renderer.info.render;
  world.stats.renderedFrames++;
  world.stats.lastRenderMs = performance.now() - start;
  world.stats.drawCalls = info.calls;
  world.stats.triangles = info.triangles;
  runFrameSteps(world, 'afterDraw');
  return world;
}
