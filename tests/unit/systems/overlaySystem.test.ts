import { describe, expect, it } from 'vitest';
import { addFrameStep } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { overlaySystem } from '../../../systems/overlaySystem';
import { renderSystem } from '../../../systems/renderSystem';

describe('overlaySystem', () => {
  it("runs the 'overlays' steps and no other slot's", () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    addFrameStep(world, 'overlays', { name: 'tool labels', run: () => ran.push('labels') });
    addFrameStep(world, 'overlays', { name: 'host-api', run: () => ran.push('gizmo') });
    addFrameStep(world, 'input', { name: 'pointer', run: () => ran.push('input') });
    addFrameStep(world, 'helpers', { name: 'measurements', run: () => ran.push('helpers') });
    expect(overlaySystem(world)).toBe(world);
    expect(ran).toEqual(['labels', 'gizmo']);
  });

  it('is the last system: DOM overlays follow the picture of the same frame', () => {
    expect(PIPELINE.indexOf(overlaySystem)).toBe(PIPELINE.length - 1);
    expect(PIPELINE.indexOf(overlaySystem)).toBeGreaterThan(PIPELINE.indexOf(renderSystem));
  });
});
