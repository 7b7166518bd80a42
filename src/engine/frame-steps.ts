import type { FrameSlot, FrameStep, ViewerWorld } from './world';

/** Adds a step to a slot of the frame; returns its removal. Steps run in the order they were added. */
export function addFrameStep(world: ViewerWorld, slot: FrameSlot, step: FrameStep): () => void {
  const steps = world.steps[slot];
  if (steps.includes(step)) throw new Error(`The frame step '${step.name}' is already in the '${slot}' slot.`);
  steps.push(step);
  return () => {
    const i = steps.indexOf(step);
    if (i >= 0) steps.splice(i, 1);
  };
}

/** Runs the steps of a slot (the systems of that slot call this). */
export function runFrameSteps(world: ViewerWorld, slot: FrameSlot): void {
  const steps = world.steps[slot];
  for (let i = 0; i < steps.length; i++) steps[i].run(world);
}
