import { Vector2 } from 'three';
import { runFrameSteps } from '../src/engine/frame-steps';
import { ERR_CAMERA, ERR_RENDERER, ERR_SCENE } from '../src/protocol/errors';
import { setLevelView } from '../src/engine/instance-levels';
import { ensureShadowPasses } from '../src/engine/moving-casters';
import { afterFrame, beforeFrame, budgetMoving, noteCameraMoved, refineDue } from '../src/engine/triangle-budget';
import { pictureDue, type ViewerWorld } from '../src/engine/world';

/**
 * Draws the frame if anything asked for it (a moved camera, a synced transform or flag, a playing
 * animation, an explicit `needsRender` or `needsPicture`) and nothing holds it. A still scene costs
 * no GPU work. The shadow maps are drawn again only when the scene changed (`needsRender`), not
 * when the camera alone moved (`world.camera.moved`) or what asked changed no shadow
 * (`needsPicture`). The 'afterDraw' steps draw over a picture right after it (the editor's
 * selection outline), only in the frames that drew one.
 */
const drawingBuffer = new Vector2();

export function renderSystem(world: ViewerWorld): ViewerWorld {
  const r = world.render;
  if (!r.renderer) throw new Error(ERR_RENDERER);
  if (!r.scene) throw new Error(ERR_SCENE);
  if (!r.camera) throw new Error(ERR_CAMERA);

  // The budget's clock is the frame's timestamp (world.time.then, ms), not the clamped animation time.
  const budget = r.budget;
  const now = world.time.then;
  const levelled = r.instanceLevels && world.instanceGroups.size > 0;
  if (world.camera.moved) noteCameraMoved(budget, now);
  // The camera came to rest with the picture coarsened for motion: refine it (shadows too).
  if (levelled && refineDue(budget, now)) r.needsRender = true;
  if (!pictureDue(world)) return world;
  // A restored context comes with a new shadow map: the budget's and the moving casters' passes on it.
  ensureShadowPasses(r.renderer, world);
  beforeFrame(budget, now);
  const sceneChanged = r.needsRender;
  const castersMoved = r.needsCasterShadows;
  r.needsRender = false;
  r.needsPicture = false;
  r.needsCasterShadows = false;

  const start = performance.now();
  // Every pass of this frame (shadow maps first) chooses instance levels for the picture's view.
  if (world.instanceGroups.size > 0 && typeof r.renderer.getDrawingBufferSize === 'function') {
    r.renderer.getDrawingBufferSize(drawingBuffer);
    // As render() itself does first: the pose navigation wrote this frame.
    r.camera.updateMatrixWorld();
    setLevelView(r.camera, drawingBuffer.y, budget.bias);
  }
  // Only the view or the picture changed: the shadow maps are still those of this scene (a shadow
  // map depends on its light and the casters, never on the camera; the sun's box following the
  // view asks for a full frame itself). An orbit frame then skips every shadow pass.
  const shadowMap = r.renderer.shadowMap;
  const shadowAutoUpdate = shadowMap.autoUpdate;
  // Only moving casters changed (a playing animation): their own pass over the static casters' kept
  // depth (src/engine/moving-casters.ts).
  if (!sceneChanged && !castersMoved) shadowMap.autoUpdate = false;
  r.casterShadowsOnly = !sceneChanged && castersMoved;
  // Shadow maps drawn outside a frame (a screenshot's) are not this frame's.
  budget.frameShadow = null;
  r.instanceFinerTriangles = 0;
  try {
    if (r.draw) r.draw(world.time.delta);
    else r.renderer.render(r.scene, r.camera);
  } finally {
    shadowMap.autoUpdate = shadowAutoUpdate;
    r.casterShadowsOnly = false;
  }
  const info = r.renderer.info.render;
  world.stats.renderedFrames++;
  world.stats.lastRenderMs = performance.now() - start;
  world.stats.drawCalls = info.calls;
  world.stats.triangles = info.triangles;
  // The budget judges the frame and sets the next one's bias: a changed bias is a picture due (at
  // rest with the shadow maps, whose levels it changes too; moving, they wait for the rest).
  // Only levelled instance groups give way to the bias: nothing else is drawn again for it.
  if (afterFrame(budget, info.triangles, now, levelled, sceneChanged || !castersMoved, r.instanceFinerTriangles) && levelled) {
    if (budgetMoving(budget, now)) r.needsPicture = true;
    else r.needsRender = true;
  }
  runFrameSteps(world, 'afterDraw');
  return world;
}
