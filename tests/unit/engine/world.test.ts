import { createTriangleBudget } from '../../../src/engine/triangle-budget';
import { entityExists, getEntityComponents } from 'bitecs';
import { describe, expect, it } from 'vitest';
import { MAX_ENTITIES } from '../../../components';
import { addViewerEntity, advanceTime, createViewerWorld, pictureDue } from '../../../src/engine/world';

describe('createViewerWorld', () => {
  it('starts with empty registries and a first frame to draw', () => {
    const world = createViewerWorld();
    expect(world.time).toEqual({ delta: 0, elapsed: 0, frame: 0, then: 0 });
    expect(world.objects).toEqual([]);
    expect(world.render).toEqual({
      renderer: null,
      scene: null,
      camera: null,
      needsRender: true,
      needsPicture: false,
      draw: null,
      hold: 0,
      instanceCulling: true,
      instanceLevels: true,
      instanceFinerTriangles: 0,
      budget: createTriangleBudget(0),
      needsCasterShadows: false,
      casterShadowsOnly: false,
      movingCasters: { flagged: expect.any(Uint8Array), models: new Map(), release: expect.any(Function) },
      splitShadows: true,
      batches: { due: new Set(), byModel: new Map(), batchOf: null, instanceOf: null, list: [], enabled: true, flagged: [] },
    });
    expect(world.navigation.controls).toBeNull();
    expect(world.transform.count).toBe(0);
    expect(world.transform.anyDirty).toBe(false);
    expect(world.transform.changed).toBe(0);
    expect(world.transform.builtVersion).not.toBe(world.transform.version);
    expect(world.models.size).toBe(0);
    expect(world.animation.speed).toBe(1);
    expect(world.animation.listeners.size).toBe(0);
    expect(world.stats).toEqual({ renderedFrames: 0, lastRenderMs: 0, drawCalls: 0, triangles: 0 });
  });

  it('gives each world its own state', () => {
    const a = createViewerWorld();
    const b = createViewerWorld();
    a.render.needsRender = false;
    a.animation.speed = 2;
    addViewerEntity(a);
    expect(b.render.needsRender).toBe(true);
    expect(b.animation.speed).toBe(1);
    expect(addViewerEntity(b)).toBe(1);
    expect(a.transform).not.toBe(b.transform);
    expect(a.models).not.toBe(b.models);
  });
});

describe('addViewerEntity', () => {
  it('never hands out entity 0, which means "none"', () => {
    const world = createViewerWorld();
    const ids = [addViewerEntity(world), addViewerEntity(world), addViewerEntity(world)];
    expect(ids).toEqual([1, 2, 3]);
    expect(ids).not.toContain(0);
  });

  it('starts every world at id 1', () => {
    const a = createViewerWorld();
    addViewerEntity(a);
    addViewerEntity(a);
    const b = createViewerWorld();
    expect(addViewerEntity(b)).toBe(1);
  });

  it('refuses to go past the component arrays and leaves no half-made entity behind', () => {
    const world = createViewerWorld();
    for (let i = 1; i < MAX_ENTITIES; i++) addViewerEntity(world);
    expect(entityExists(world, MAX_ENTITIES - 1)).toBe(true);
    expect(() => addViewerEntity(world)).toThrow(`The scene has more than ${MAX_ENTITIES - 1} entities, which this viewer cannot hold.`);
    expect(entityExists(world, MAX_ENTITIES)).toBe(false);
    // Still refuses (and still leaks nothing) on the next try.
    expect(() => addViewerEntity(world)).toThrow();
    expect(entityExists(world, MAX_ENTITIES)).toBe(false);
    expect(entityExists(world, MAX_ENTITIES + 1)).toBe(false);
  });
});

describe('advanceTime', () => {
  it('makes the first frame a zero step', () => {
    const world = createViewerWorld();
    advanceTime(world, 5000);
    expect(world.time).toEqual({ delta: 0, elapsed: 0, frame: 1, then: 5000 });
  });

  it('converts milliseconds to seconds and accumulates elapsed time', () => {
    const world = createViewerWorld();
    advanceTime(world, 1000);
    advanceTime(world, 1016);
    expect(world.time.delta).toBeCloseTo(0.016, 12);
    advanceTime(world, 1050);
    expect(world.time.delta).toBeCloseTo(0.034, 12);
    expect(world.time.elapsed).toBeCloseTo(0.05, 12);
    expect(world.time.frame).toBe(3);
    expect(world.time.then).toBe(1050);
  });

  it('clamps a long pause (a background tab) to 100 ms', () => {
    const world = createViewerWorld();
    advanceTime(world, 0);
    advanceTime(world, 100);
    expect(world.time.delta).toBeCloseTo(0.1, 12);
    advanceTime(world, 60_100);
    expect(world.time.delta).toBeCloseTo(0.1, 12);
    expect(world.time.elapsed).toBeCloseTo(0.2, 12);
    expect(world.time.then).toBe(60_100);
  });

  it('never steps backwards when the clock does', () => {
    const world = createViewerWorld();
    advanceTime(world, 500);
    advanceTime(world, 400);
    expect(world.time.delta).toBe(0);
    expect(world.time.elapsed).toBe(0);
    // The next step is measured from the clock's new value.
    advanceTime(world, 420);
    expect(world.time.delta).toBeCloseTo(0.02, 12);
  });

  it('treats a zero timestamp on a later frame as a real time', () => {
    const world = createViewerWorld();
    advanceTime(world, 0);
    advanceTime(world, 0);
    expect(world.time.delta).toBe(0);
    expect(world.time.frame).toBe(2);
  });
});

describe('entities of a fresh world', () => {
  it('have no components', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    expect(getEntityComponents(world, eid)).toEqual([]);
  });
});

describe('pictureDue', () => {
  it('is true when a scene change, a picture or a moved camera asks, and never while held', () => {
    const world = createViewerWorld();
    world.render.needsRender = false;
    expect(pictureDue(world)).toBe(false);
    for (const ask of ['needsRender', 'needsPicture', 'moved'] as const) {
      if (ask === 'moved') world.camera.moved = true;
      else world.render[ask] = true;
      expect(pictureDue(world), ask).toBe(true);
      world.render.hold = 1;
      expect(pictureDue(world), `${ask} while held`).toBe(false);
      world.render.hold = 0;
      world.render.needsRender = world.render.needsPicture = world.camera.moved = false;
    }
  });
});
