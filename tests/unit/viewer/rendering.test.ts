import { beforeEach, describe, expect, it, vi } from 'vitest';

const created: { disposed: boolean; camera: number }[] = [];
let cameraGeneration = 0;

vi.mock('../../../src/engine/lights', () => ({ sizeSunShadow: () => {} }));
vi.mock('../../../src/viewer/postprocessing/composer', () => ({
  createPostProcessing: () => {
    const stack = { disposed: false, camera: cameraGeneration };
    created.push(stack);
    return {
      draw: () => {},
      setSize: () => {},
      setSceneRadius: () => {},
      getConfig: () => ({}),
      setConfig: () => {},
      updateConfig: () => ({}),
      sceneTarget: () => null,
      effects: { ao: { configuration: { halfRes: false } } },
      dispose: () => {
        stack.disposed = true;
      },
      stack,
    };
  },
}));

import { createRendering } from '../../../src/viewer/rendering';
import { settingsForTier } from '../../../src/viewer/quality';
import { ERR_CUSTOM_EFFECTS } from '../../../src/protocol/errors';

function setup(tier: 'low' | 'medium') {
  const world = { render: { draw: null as unknown, needsRender: false }, shadows: { sunMapSize: 0, pointLights: false } };
  let ratio = 1;
  const context = { renderer: { getPixelRatio: () => ratio, setPixelRatio: (r: number) => (ratio = r) }, sun: {} };
  const detection = { settings: settingsForTier(tier, 1), score: null, facts: null, forced: true, ms: 0, gpuName: null, earlyProbeMs: null };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { world, rendering: createRendering(world as any, context as any, detection as any, {}, () => {}) };
}

describe('the rendering quality and its post-processing stack', () => {
  beforeEach(() => {
    created.length = 0;
    cameraGeneration = 0;
  });

  it('fetches the stack for a tier with effects, and rebuilds it at once when the camera changes', async () => {
    const { world, rendering } = setup('medium');
    expect(rendering.post).toBeNull();
    await rendering.ready();
    expect(rendering.post).not.toBeNull();
    expect(world.render.draw).toBe(rendering.post!.draw);

    // The projection switch: the old stack goes and the new one is there in the same call, so no
    // frame is drawn without effects and the host API never sees 'Custom effects not initialized!'.
    cameraGeneration = 1;
    rendering.cameraChanged();
    expect(rendering.post).not.toBeNull();
    expect(created.map((s) => [s.camera, s.disposed])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(() => rendering.updateConfig({})).not.toThrow();
  });

  it('the low tier has no stack; switching the tier up builds one and back down drops it', async () => {
    const { world, rendering } = setup('low');
    await rendering.ready();
    expect(rendering.post).toBeNull();
    expect(() => rendering.updateConfig({})).toThrow(ERR_CUSTOM_EFFECTS);
    rendering.setQuality('medium');
    await rendering.ready();
    expect(rendering.post).not.toBeNull();
    rendering.setQuality('low');
    expect(rendering.post).toBeNull();
    expect(world.render.draw).toBeNull();
    rendering.setQuality('medium');
    expect(rendering.post).not.toBeNull();
    expect(created.length).toBe(2);
  });
});
