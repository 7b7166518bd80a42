import { describe, expect, it } from 'vitest';
import { addFrameStep, runFrameSteps } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';

describe('frame steps', () => {
  it('runs the steps of a slot in the order they were added, and removes them', () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    const removeA = addFrameStep(world, 'overlays', { name: 'a', run: () => ran.push('a') });
    addFrameStep(world, 'overlays', { name: 'b', run: () => ran.push('b') });
    addFrameStep(world, 'helpers', { name: 'h', run: () => ran.push('h') });
    runFrameSteps(world, 'overlays');
    expect(ran).toEqual(['a', 'b']);
    removeA();
    removeA();
    runFrameSteps(world, 'overlays');
    expect(ran).toEqual(['a', 'b', 'b']);
  });

  it('refuses the same step twice in a slot', () => {
    const world = createViewerWorld();
    const step = { name: 'labels', run: () => undefined };
    addFrameStep(world, 'input', step);
    expect(() => addFrameStep(world, 'input', step)).toThrow("The frame step 'labels' is already in the 'input' slot.");
  });
});
