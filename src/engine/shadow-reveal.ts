import type { LightShadow } from 'three';
import { lightEntities } from './lights';
import type { ViewerWorld } from './world';

/**
 * Shadows that arrive after a scene's first picture (issue 9: "a weak device must not pay for its
 * shadow maps before it sees anything"). The first picture is drawn with the programs it will keep
 * (every casting light still casts, so nothing links twice) but without the shadow pass, and with
 * every shadow's intensity at 0, so the maps that were never drawn darken nothing. A frame
 * SHADOW_MAPS_DELAY_MS later draws the maps; then the shadows fade in over SHADOW_FADE_MS instead
 * of appearing at once.
 *
 * The whole sequence is run by the shadow reveal system (systems/shadowRevealSystem.ts), right
 * before the render system; a load asks for it with `deferShadows` before it releases its picture.
 */
export const SHADOW_FADE_MS = 300;
/**
 * How long after the first picture the shadow maps are drawn: long enough for the page to hear that
 * the picture is out (the UI, viewerready to a host page that may share the process) before the
 * maps' frame takes the GPU, short enough that nobody has started to move.
 */
export const SHADOW_MAPS_DELAY_MS = 200;

/** The phases of world.shadows.reveal. */
export const SHADOW_REVEAL = {
  /** Shadows are drawn as usual. */
  idle: 0,
  /** The next picture drawn is a first picture: no shadow pass, shadows weightless. */
  pending: 1,
  /** The first picture is being drawn: waiting for it to be out. */
  held: 2,
  /** The first picture is out: SHADOW_MAPS_DELAY_MS from here before the maps. */
  waiting: 3,
  /** The frame that draws the shadow maps (the shadows still weightless). */
  maps: 4,
  /** The shadows fade in (frames that keep the maps just drawn). */
  fading: 5,
} as const;

/** Asks for the next picture to go out before any shadow map is drawn (a scene's first picture). */
export function deferShadows(world: ViewerWorld): void {
  const reveal = world.shadows.reveal;
  // A reveal under way starts again: the new scene's first picture goes out first.
  reveal.phase = SHADOW_REVEAL.pending;
  reveal.frame = 0;
  reveal.start = 0;
}

const waiters = new WeakMap<ViewerWorld, (() => void)[]>();

/**
 * Resolves once the shadow maps have been drawn (at once when no reveal is under way): what keeps
 * the shadow pass's programs warm (the instanced groups' stand-in depth materials) waits for it.
 */
export function shadowMapsDrawn(world: ViewerWorld): Promise<void> {
  const phase = world.shadows.reveal.phase;
  if (phase === SHADOW_REVEAL.idle || phase === SHADOW_REVEAL.fading) return Promise.resolve();
  return new Promise((resolve) => {
    const list = waiters.get(world);
    if (list) list.push(resolve);
    else waiters.set(world, [resolve]);
  });
}

/** Called by the reveal system once the maps are drawn (or the reveal was cut short). */
export function settleShadowMapWaiters(world: ViewerWorld): void {
  const list = waiters.get(world);
  if (!list) return;
  waiters.delete(world);
  for (const resolve of list) resolve();
}

/**
 * Ends a reveal under way at once: shadow maps drawn with the next draw, shadows at full intensity.
 * A screenshot calls it, so that a picture taken right after the viewer is ready has its shadows.
 */
export function finishShadowReveal(world: ViewerWorld): void {
  const reveal = world.shadows.reveal;
  if (reveal.phase === SHADOW_REVEAL.idle) return;
  const renderer = world.render.renderer;
  if (renderer) renderer.shadowMap.autoUpdate = true;
  setShadowIntensity(world, 1);
  world.render.needsRender = true;
  reveal.phase = SHADOW_REVEAL.idle;
  settleShadowMapWaiters(world);
}

/**
 * Sets the intensity of every light's shadow (the shader's mix between lit and shadowed): the
 * reveal is the only writer of LightShadow.intensity in the viewer. Allocates nothing.
 */
export function setShadowIntensity(world: ViewerWorld, intensity: number): void {
  const eids = lightEntities(world);
  for (let i = 0; i < eids.length; i++) {
    const shadow = (world.objects[eids[i]] as { shadow?: LightShadow } | undefined)?.shadow;
    if (shadow) shadow.intensity = intensity;
  }
}
