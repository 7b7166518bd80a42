import { describe, expect, it } from 'vitest';
import { addFrameStep } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { inputSystem } from '../../../systems/inputSystem';

describe('inputSystem', () => {
  it("runs the 'input' steps and no other slot's", () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    addFrameStep(world, 'input', { name: 'pointer', run: () => ran.push('hover') });
    addFrameStep(world, 'input', { name: 'pointer', run: () => ran.push('drag') });
    addFrameStep(world, 'helpers', { name: 'measurements', run: () => ran.push('helpers') });
    addFrameStep(world, 'overlays', { name: 'magnifier', run: () => ran.push('overlays') });
    expect(inputSystem(world)).toBe(world);
    expect(ran).toEqual(['hover', 'drag']);
  });

  it('is the first system of the frame, so the frame works with the latest pointer', () => {
    expect(PIPELINE[0]).toBe(inputSystem);
  });
});
