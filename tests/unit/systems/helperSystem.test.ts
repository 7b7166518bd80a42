import { describe, expect, it } from 'vitest';
import { addFrameStep } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { helperSystem } from '../../../systems/helperSystem';
import { renderSystem } from '../../../systems/renderSystem';
import { sectionPlaneSystem } from '../../../systems/sectionPlaneSystem';
import { syncSystem } from '../../../systems/syncSystem';

describe('helperSystem', () => {
  it("runs the 'helpers' steps in the order they were added, and no other slot's", () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    addFrameStep(world, 'helpers', { name: 'section planes', run: () => ran.push('section') });
    addFrameStep(world, 'helpers', { name: 'measurements', run: () => ran.push('measurements') });
    addFrameStep(world, 'input', { name: 'pointer', run: () => ran.push('input') });
    addFrameStep(world, 'overlays', { name: 'magnifier', run: () => ran.push('overlays') });
    expect(helperSystem(world)).toBe(world);
    expect(ran).toEqual(['section', 'measurements']);
  });

  it('runs after the section planes and the sync (helpers follow current matrices) and before the picture', () => {
    const at = PIPELINE.indexOf(helperSystem);
    expect(at).toBeGreaterThan(PIPELINE.indexOf(sectionPlaneSystem));
    expect(at).toBeGreaterThan(PIPELINE.indexOf(syncSystem));
    expect(at).toBeLessThan(PIPELINE.indexOf(renderSystem));
  });
});
