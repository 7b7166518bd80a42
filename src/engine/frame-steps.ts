import { FRAME_STEP_ORDER, frameStepRank } from './frame-step-order';
import type { FrameSlot, FrameStep, ViewerWorld } from './world';

/**
 * Adds a step to a slot of the frame, at its name's place in FRAME_STEP_ORDER (after the steps of
 * the same name already there); returns its removal. A name the slot's order does not list is
 * refused.
 */
export function addFrameStep(world: ViewerWorld, slot: FrameSlot, step: FrameStep): () => void {
  const steps = world.steps[slot];
  if (steps.includes(step)) throw new Error(`The frame step '${step.name}' is already in the '${slot}' slot.`);
  const rank = frameStepRank(slot, step.name);
  if (rank < 0) {
    throw new Error(
      `The frame step '${step.name}' has no place in the '${slot}' slot: add it to FRAME_STEP_ORDER (src/engine/frame-step-order.ts), which lists ${FRAME_STEP_ORDER[slot].join(', ')}.`,
    );
  }
  let at = steps.length;
  while (at > 0 && frameStepRank(slot, steps[at - 1].name) > rank) at--;
  steps.splice(at, 0, step);
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
