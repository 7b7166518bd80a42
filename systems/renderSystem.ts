import { ERR_CAMERA, ERR_RENDERER, ERR_SCENE } from '../src/protocol/errors';
import { syncObjectMatrices } from '../src/engine/sync';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Copies the world matrices the transform system changed into their Object3Ds (which have
 * matrixAutoUpdate and matrixWorldAutoUpdate off, so three.js never recomputes them), then draws
 * the frame if anything changed: a moved camera, a changed transform, a playing animation or an
 * explicit needsRender. A still scene costs no GPU work.
 */
export function renderSystem(world: ViewerWorld): ViewerWorld {
  const r = world.render;
  if (!r.renderer) throw new Error(ERR_RENDERER);
  if (!r.scene) throw new Error(ERR_SCENE);
  if (!r.camera) throw new Error(ERR_CAMERA);

  const t = world.transform;
  if (t.changed > 0) {
    syncObjectMatrices(world);
    r.needsRender = true;
  }
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
  return world;
}
