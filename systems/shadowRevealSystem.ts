import { SHADOW_FADE_MS, SHADOW_MAPS_DELAY_MS, SHADOW_REVEAL, setShadowIntensity, settleShadowMapWaiters } from '../src/engine/shadow-reveal';
import { pictureDue, type ViewerWorld } from '../src/engine/world';

/**
 * Runs the shadows' arrival after a scene's first picture (src/engine/shadow-reveal.ts), right
 * before the render system, so it knows whether this frame draws:
 * - pending: the frame that draws the first picture (no shadow pass, shadows at 0) -> held;
 * - held: once that picture is out (its frame may be long on a slow device) -> waiting;
 * - waiting: SHADOW_MAPS_DELAY_MS later, shadow maps on and one more frame -> maps;
 * - maps: once that frame has drawn them -> fading;
 * - fading: frames that keep the maps just drawn (`needsPicture`: unless something else changed
 *   the scene), the shadows' intensity rising with time; SHADOW_FADE_MS after the maps' frame, at 1 -> idle.
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
  const now = world.time.then;
  switch (reveal.phase) {
    case SHADOW_REVEAL.pending:
      // Lights may still be added while the picture is held: each frame until it draws.
      setShadowIntensity(world, 0);
      shadowMap.autoUpdate = false;
      shadowMap.needsUpdate = false;
      if (pictureDue(world)) {
        reveal.phase = SHADOW_REVEAL.held;
        reveal.frame = drawn;
      }
      return world;
    case SHADOW_REVEAL.held:
      // Lights added since (a hold came back): weightless too.
      setShadowIntensity(world, 0);
      if (drawn === reveal.frame) return world;
      // The picture is out: the wait counts from now, after its frame, however long that took.
      reveal.phase = SHADOW_REVEAL.waiting;
      reveal.start = now;
      return world;
    case SHADOW_REVEAL.waiting:
      setShadowIntensity(world, 0);
      // The page hears that the picture is out (viewerready, the UI) before the maps' frame takes
      // the GPU: a host page in the same process would otherwise wait for it.
      if (now - reveal.start < SHADOW_MAPS_DELAY_MS) return world;
      shadowMap.autoUpdate = true;
      reveal.phase = SHADOW_REVEAL.maps;
      reveal.frame = drawn;
      reveal.start = now;
      render.needsRender = true;
      return world;
    case SHADOW_REVEAL.maps:
      if (drawn === reveal.frame) {
        // Not drawn yet (a hold came back). The fade counts from the frame that draws the maps.
        setShadowIntensity(world, 0);
        reveal.start = now;
        render.needsRender = true;
        return world;
      }
      reveal.phase = SHADOW_REVEAL.fading;
      settleShadowMapWaiters(world);
      break;
  }
  // Fading, by wall-clock time so that a slow device does not fade for longer (a step run by hand
  // may be timed a little before the maps' frame: never below 0).
  const t = Math.min(1, Math.max(0, (now - reveal.start) / SHADOW_FADE_MS));
  setShadowIntensity(world, t);
  if (t >= 1) reveal.phase = SHADOW_REVEAL.idle;
  // Only the intensity changes: this frame keeps the maps just drawn, unless something else
  // changed the scene.
  render.needsPicture = true;
  return world;
}
