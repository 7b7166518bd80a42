import { describe, expect, it } from 'vitest';
import { addFrameStep } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { helperSystem } from '../../../systems/helperSystem';
import { inputSystem } from '../../../systems/inputSystem';
import { overlaySystem } from '../../../systems/overlaySystem';
import { renderSystem } from '../../../systems/renderSystem';
import { syncSystem } from '../../../systems/syncSystem';

describe('the slot systems (input, helpers, overlays)', () => {
  it('each runs the steps of its own slot', () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    addFrameStep(world, 'input', { name: 'i', run: () => ran.push('input') });
    addFrameStep(world, 'helpers', { name: 'h', run: () => ran.push('helpers') });
    addFrameStep(world, 'overlays', { name: 'o', run: () => ran.push('overlays') });
    overlaySystem(world);
    helperSystem(world);
    inputSystem(world);
    expect(ran).toEqual(['overlays', 'helpers', 'input']);
  });

  it('sit where the frame needs them: input first, helpers after the sync and before the picture, overlays after it', () => {
    expect(PIPELINE[0]).toBe(inputSystem);
    expect(PIPELINE.indexOf(helperSystem)).toBeGreaterThan(PIPELINE.indexOf(syncSystem));
    expect(PIPELINE.indexOf(helperSystem)).toBeLessThan(PIPELINE.indexOf(renderSystem));
    expect(PIPELINE.indexOf(overlaySystem)).toBeGreaterThan(PIPELINE.indexOf(renderSystem));
  });
});
