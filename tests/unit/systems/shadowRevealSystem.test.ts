import { DirectionalLight, Scene, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { ensureSunEntity } from '../../../src/engine/lights';
import { deferShadows, finishShadowReveal, SHADOW_FADE_MS, SHADOW_MAPS_DELAY_MS, SHADOW_REVEAL, shadowMapsDrawn } from '../../../src/engine/shadow-reveal';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { renderSystem } from '../../../systems/renderSystem';
import { shadowRevealSystem } from '../../../systems/shadowRevealSystem';

/** A world with a sun entity and a renderer that records, per draw, whether its shadow pass would run. */
function setup() {
  const world = createViewerWorld();
  const sun = new DirectionalLight();
  sun.castShadow = true;
  const scene = new Scene();
  scene.add(sun);
  ensureSunEntity(world, sun);
  const shadowMap = { autoUpdate: true, needsUpdate: false };
  const draws: { shadowPass: boolean; intensity: number }[] = [];
  world.render.renderer = { shadowMap } as unknown as WebGLRenderer;
  world.render.scene = scene;
  world.render.camera = sun.shadow.camera;
  world.render.draw = () => {
    draws.push({ shadowPass: shadowMap.autoUpdate || shadowMap.needsUpdate, intensity: sun.shadow.intensity });
  };
  // The render system's info read, as a renderer without one.
  (world.render.renderer as unknown as { info: unknown }).info = { render: { calls: 0, triangles: 0 } };
  let now = 1000;
  /** One frame at `now + dt` ms: the reveal, then the render system (as in PIPELINE). */
  const frame = (dt = 16) => {
    now += dt;
    world.time.then = now;
    shadowRevealSystem(world);
    renderSystem(world);
  };
  return { world, sun, shadowMap, draws, frame };
}

const phase = (world: ViewerWorld) => world.shadows.reveal.phase;

describe('shadowRevealSystem', () => {
  it('runs right before the render system', () => {
    expect(PIPELINE.indexOf(shadowRevealSystem)).toBe(PIPELINE.indexOf(renderSystem) - 1);
  });

  it('does nothing while no reveal is asked for', () => {
    const { world, draws, frame, sun } = setup();
    world.render.needsRender = true;
    frame();
    expect(draws).toEqual([{ shadowPass: true, intensity: 1 }]);
    expect(sun.shadow.intensity).toBe(1);
    expect(phase(world)).toBe(SHADOW_REVEAL.idle);
  });

  it('draws the first picture without the shadow pass, the maps after the delay, then fades them in keeping the maps', () => {
    const { world, draws, frame, sun, shadowMap } = setup();
    deferShadows(world);
    // Held frames (a load): nothing drawn, no shadow pass allowed.
    world.render.hold = 1;
    world.render.needsRender = true;
    frame();
    expect(draws).toHaveLength(0);
    expect(shadowMap.autoUpdate).toBe(false);
    world.render.hold = 0;
    // The first picture, in a long frame (a slow device): no shadow pass, shadows weightless.
    frame();
    expect(draws).toEqual([{ shadowPass: false, intensity: 0 }]);
    expect(phase(world)).toBe(SHADOW_REVEAL.held);
    // The delay counts from the first frame after the picture, however long the picture took.
    frame(SHADOW_MAPS_DELAY_MS * 3);
    expect(phase(world)).toBe(SHADOW_REVEAL.waiting);
    frame(SHADOW_MAPS_DELAY_MS / 2);
    expect(draws).toHaveLength(1);
    expect(phase(world)).toBe(SHADOW_REVEAL.waiting);
    // After it: one frame draws the maps, the shadows still at 0.
    frame(SHADOW_MAPS_DELAY_MS);
    expect(draws[1]).toEqual({ shadowPass: true, intensity: 0 });
    expect(phase(world)).toBe(SHADOW_REVEAL.maps);
    // Then the fade, by time, in frames that keep the maps: half way, then full, then idle.
    frame(SHADOW_FADE_MS / 2);
    expect(draws[2].shadowPass).toBe(false);
    expect(draws[2].intensity).toBeCloseTo(0.5, 5);
    expect(phase(world)).toBe(SHADOW_REVEAL.fading);
    frame(SHADOW_FADE_MS / 2);
    expect(draws[3]).toEqual({ shadowPass: false, intensity: 1 });
    expect(phase(world)).toBe(SHADOW_REVEAL.idle);
    expect(sun.shadow.intensity).toBe(1);
    expect(shadowMap.autoUpdate).toBe(true);
    frame();
    expect(draws).toHaveLength(4);
    // Back to normal: a change of the scene draws the maps.
    world.render.needsRender = true;
    frame();
    expect(draws[4]).toEqual({ shadowPass: true, intensity: 1 });
  });

  it('a change of the scene during the fade draws the maps again; a held fade step keeps them unless what held asks for them', () => {
    const { world, draws, frame } = setup();
    deferShadows(world);
    world.render.needsRender = true;
    frame();
    frame();
    frame(SHADOW_MAPS_DELAY_MS); // the maps
    expect(draws.map((d) => d.shadowPass)).toEqual([false, true]);
    world.render.needsRender = true; // an edit, in the same frame as a fade step
    frame(SHADOW_FADE_MS / 4);
    expect(draws[2].shadowPass).toBe(true);
    frame(SHADOW_FADE_MS / 4);
    expect(draws[3].shadowPass).toBe(false);
    // A fade step while a picture is held: its request waits, and still keeps the maps after it.
    world.render.hold = 1;
    frame(SHADOW_FADE_MS / 8);
    expect(draws).toHaveLength(4);
    expect(world.render.needsPicture).toBe(true);
    world.render.hold = 0;
    renderSystem(world);
    expect(draws[4].shadowPass).toBe(false);
    // What held it and changed the scene (a load releasing its hold sets needsRender): drawn again.
    world.render.hold = 1;
    frame(SHADOW_FADE_MS / 8);
    world.render.hold = 0;
    world.render.needsRender = true;
    renderSystem(world);
    expect(draws[5].shadowPass).toBe(true);
  });

  it('resolves shadowMapsDrawn once the maps are drawn, not before', async () => {
    const { world, frame } = setup();
    await shadowMapsDrawn(world); // no reveal: at once
    deferShadows(world);
    let drawn = false;
    void shadowMapsDrawn(world).then(() => (drawn = true));
    world.render.needsRender = true;
    frame();
    frame();
    frame(SHADOW_MAPS_DELAY_MS + 1);
    await Promise.resolve();
    expect(drawn).toBe(false);
    frame();
    await Promise.resolve();
    expect(drawn).toBe(true);
  });

  it('finishShadowReveal (a screenshot) shows the shadows at once', async () => {
    const { world, frame, sun, shadowMap, draws } = setup();
    deferShadows(world);
    world.render.needsRender = true;
    frame();
    let drawn = false;
    void shadowMapsDrawn(world).then(() => (drawn = true));
    finishShadowReveal(world);
    await Promise.resolve();
    expect(drawn).toBe(true);
    expect(sun.shadow.intensity).toBe(1);
    expect(shadowMap.autoUpdate).toBe(true);
    expect(phase(world)).toBe(SHADOW_REVEAL.idle);
    // The viewport shows them too, at once.
    frame();
    expect(draws[1]).toEqual({ shadowPass: true, intensity: 1 });
  });
});
