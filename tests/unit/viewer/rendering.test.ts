import { TRIANGLE_BUDGETS } from '../../../src/engine/triangle-budget';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

interface Made {
  disposed: boolean;
  camera: number;
  config: unknown;
}
const created: Made[] = [];
let cameraGeneration = 0;
let failNext = false;

vi.mock('../../../src/engine/lights', () => ({ sizeSunShadow: () => {} }));
vi.mock('../../../src/viewer/postprocessing/composer', () => ({
  createPostProcessing: (_world: unknown, options: { config: unknown }) => {
    if (failNext) {
      failNext = false;
      throw new Error('no float targets');
    }
    const stack: Made = { disposed: false, camera: cameraGeneration, config: options.config };
    created.push(stack);
    return {
      draw: () => stack,
      setSize: () => {},
      setSceneRadius: () => {},
      // The config the stack holds (what a person changed through it).
      getConfig: () => ({ from: stack.camera }),
      setConfig: () => {},
      updateConfig: () => ({}),
      sceneTarget: () => null,
      effects: { ao: { configuration: { halfRes: false } } },
      dispose: () => {
        stack.disposed = true;
      },
    };
  },
}));

import { createRendering } from '../../../src/viewer/rendering';
import { settingsForTier } from '../../../src/viewer/quality';
import { ERR_CUSTOM_EFFECTS } from '../../../src/protocol/errors';

function setup(tier: 'low' | 'medium') {
  const world = { render: { draw: null as null | (() => unknown), needsRender: false, budget: { budget: 0 } }, shadows: { sunMapSize: 0, pointLights: false } };
  let ratio = 1;
  const context = { renderer: { getPixelRatio: () => ratio, setPixelRatio: (r: number) => (ratio = r) }, sun: {} };
  const detection = { settings: settingsForTier(tier, 1), score: null, facts: null, forced: true, ms: 0, gpuName: null, earlyProbeMs: null };
  return { world, rendering: createRendering(world as any, context as any, detection as any, {}, () => {}) };
}

describe('the rendering quality and its post-processing stack', () => {
  beforeEach(() => {
    created.length = 0;
    cameraGeneration = 0;
    failNext = false;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('fetches the stack for a tier with effects, and rebuilds it at once when the camera changes', async () => {
    const { world, rendering } = setup('medium');
    expect(rendering.post).toBeNull();
    await rendering.ready();
    expect(rendering.post).not.toBeNull();
    expect(world.render.draw!()).toBe(created[0]);

    // The projection switch: the old stack goes and the new one is there in the same call, so no
    // frame is drawn without effects and the host API never sees 'Custom effects not initialized!'.
    cameraGeneration = 1;
    rendering.cameraChanged();
    expect(rendering.post).not.toBeNull();
    expect(created.map((s) => [s.camera, s.disposed])).toEqual([
      [0, true],
      [1, false],
    ]);
    // The new stack draws, and starts from the config the old one held.
    expect(world.render.draw!()).toBe(created[1]);
    expect(created[1]!.config).toEqual({ from: 0 });
    expect(() => rendering.updateConfig({})).not.toThrow();
  });

  it('the low tier has no stack; switching the tier up builds one and back down drops it', async () => {
    const { world, rendering } = setup('low');
    await rendering.ready();
    expect(rendering.post).toBeNull();
    expect(world.render.budget.budget, "the tier's triangle budget").toBe(TRIANGLE_BUDGETS.low);
    expect(() => rendering.updateConfig({})).toThrow(ERR_CUSTOM_EFFECTS);
    rendering.setQuality('medium');
    await rendering.ready();
    expect(rendering.post).not.toBeNull();
    expect(world.render.budget.budget).toBe(TRIANGLE_BUDGETS.medium);
    rendering.setQuality('low');
    expect(rendering.post).toBeNull();
    expect(world.render.draw).toBeNull();
    rendering.setQuality('medium');
    expect(rendering.post).not.toBeNull();
    expect(created.length).toBe(2);
  });

  it('a tier switched down before the code arrives builds nothing; so does a disposed viewer', async () => {
    const first = setup('medium');
    first.rendering.setQuality('low');
    await first.rendering.ready();
    expect(first.rendering.post).toBeNull();
    expect(first.world.render.draw).toBeNull();

    const second = setup('medium');
    second.rendering.dispose();
    await second.rendering.ready();
    expect(second.rendering.post).toBeNull();
    expect(created.length).toBe(0);
  });

  it('a stack that cannot be built is reported, and the picture goes on without effects', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { world, rendering } = setup('medium');
    await rendering.ready();
    failNext = true;
    rendering.cameraChanged();
    expect(rendering.post).toBeNull();
    expect(world.render.draw).toBeNull();
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('could not be loaded'), expect.objectContaining({ message: 'no float targets' }));
    expect(() => rendering.updateConfig({})).toThrow(ERR_CUSTOM_EFFECTS);
  });
});
