import { describe, expect, it } from 'vitest';
import { clickTarget, samplingStaysArmed } from '../../../../src/viewer/tools/click-routing';
import { TOOL_NAMES } from '../../../../src/viewer/tools/tool-manager';

describe('click routing', () => {
  it('sends Shift+click to the sampler, whatever tool is active', () => {
    for (const tool of [null, ...TOOL_NAMES]) expect(clickTarget(true, false, tool)).toBe('sampler');
  });

  it("sends any click or tap to the sampler while 'Sample point' is on, whatever tool is active", () => {
    for (const tool of [null, ...TOOL_NAMES]) expect(clickTarget(false, true, tool)).toBe('sampler');
  });

  it('otherwise sends a click to the active tool, or to the scene without one', () => {
    expect(clickTarget(false, false, 'length-measure-tool')).toBe('measurement');
    expect(clickTarget(false, false, 'area-measure-tool')).toBe('measurement');
    expect(clickTarget(false, false, 'angle-measure-tool')).toBe('measurement');
    expect(clickTarget(false, false, 'section-tool')).toBe('section');
    expect(clickTarget(false, false, null)).toBe('scene');
  });

  it("turns 'Sample point' off after a sampled point, and keeps it on after a miss", () => {
    expect(samplingStaysArmed(true)).toBe(false);
    expect(samplingStaysArmed(false)).toBe(true);
  });
});
