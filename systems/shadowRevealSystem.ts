import { SHADOW_FADE_MS, SHADOW_MAPS_DELAY_MS, SHADOW_REVEAL, setShadowIntensity, settleShadowMapWaiters } from '../src/engine/shadow-reveal';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Runs the shadows' arrival after a scene's first picture (src/engine/shadow-reveal.ts), right
 * before the render system, so it knows whether this frame draws:
 * - pending: the frame that draws the first picture (no shadow pass, shadows at 0) -> held;
 * - held: SHADOW_MAPS_DELAY_MS after that picture, shadow maps on and one more frame -> maps;
 * - maps: once that frame has drawn them -> fading;
 * - fading: SHADOW_FADE_MS after the maps' frame, shadows at full intensity -> idle.
 * Does nothing while idle; allocates nothing.
 */
export function shadowRevealSystem(world: ViewerWorld): ViewerWorld {
  const reveal = world.shadows.reveal;
  if (reveal.phase === SHADOW_REVEAL.idle) return world;
  const render = world.render;
  const renderer = render.renderer;
  if (!renderer) return world;
  const shadowMap = renderer.shadowMap;
  const drawn = world.stats.renderedFrames;
  switch (reveal.phase) {
    case SHADOW_REVEAL.pending:
      // Lights may still be added while the picture is held: each frame until it draws.
      setShadowIntensity(world, 0);
      shadowMap.autoUpdate = false;
      shadowMap.needsUpdate = false;
      if ((render.needsRender || world.camera.moved) && render.hold === 0) {
        reveal.phase = SHADOW_REVEAL.held;
        reveal.frame = drawn;
        reveal.start = world.time.then;
      }
      return world;
    case SHADOW_REVEAL.held:
      if (drawn === reveal.frame) {
        // Not drawn yet (or a hold came back): wait on; the wait below counts from the picture.
        setShadowIntensity(world, 0);
        reveal.start = world.time.then;
        return world;
      }
      // The page hears that the picture is out (viewerready, the UI) before the maps' frame takes
      // the GPU: a host page in the same process would otherwise wait for it.
      if (world.time.then - reveal.start < SHADOW_MAPS_DELAY_MS) {
        setShadowIntensity(world, 0);
        return world;
      }
      shadowMap.autoUpdate = true;
      setShadowIntensity(world, 0);
      reveal.phase = SHADOW_REVEAL.maps;
      reveal.frame = drawn;
      reveal.start = world.time.then;
      render.needsRender = true;
      return world;
    case SHADOW_REVEAL.maps:
      if (drawn === reveal.frame) {
        // Not drawn yet (a hold came back). The fade counts from the frame that draws the maps.
        setShadowIntensity(world, 0);
        reveal.start = world.time.then;
        render.needsRender = true;
        return world;
      }
      reveal.phase = SHADOW_REVEAL.fading;
      settleShadowMapWaiters(world);
      break;
  }
  // Fading: by wall-clock time, so a slow device does not fade for longer.
  const t = Math.min(1, (world.time.then - reveal.start) / SHADOW_FADE_MS);
  setShadowIntensity(world, t);
  render.needsRender = true;
  if (t >= 1) reveal.phase = SHADOW_REVEAL.idle;
  return world;
}
