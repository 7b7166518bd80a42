import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { setup } from '../../support/viewer-api';

describe('viewer API: scene (settings, post-processing, quality, animations)', () => {
  it('sets the animation speed through the viewer, which keeps it in range', async () => {
    const { run, speed } = setup();
    expect(await run('setAnimationSpeed', { speed: 2 })).toEqual({ speed: 2 });
    expect(speed()).toBe(2);
    expect(await run('setAnimationSpeed', { speed: 0.01 })).toEqual({ speed: 0.1 });
  });

  it('answers the quality tier and the post-processing from the viewer', async () => {
    const { run, viewer } = setup();
    const config = { bloom: false };
    const setRenderConfig = vi.fn();
    Object.assign(viewer, {
      quality: { settings: { tier: 'medium', postProcessing: true }, forced: false },
      getRenderConfig: () => config,
      setRenderConfig,
      setQuality: vi.fn(async () => ({ tier: 'low', postProcessing: false })),
    });
    expect(await run('getQuality', {})).toEqual({ tier: 'medium', forced: false, postprocessing: true });
    expect(await run('setQuality', { tier: 'low' })).toEqual({ tier: 'low', forced: true, postprocessing: false });
    expect(await run('getPostProcessing', {})).toBe(config);
    await run('setPostProcessing', { config: { bloom: true } });
    expect(setRenderConfig).toHaveBeenCalledWith(expect.objectContaining({ bloom: true }));
  });

  it('refuses an animation of a model that is not loaded', async () => {
    const { run } = setup();
    await expect(run('seekAnimation', { modelId: 'nope', animation: 'walk', time: 1 })).rejects.toThrow("There is no loaded model 'nope'.");
    expect(await run('listAnimations', {})).toEqual([]);
  });
});
