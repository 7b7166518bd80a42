import type { ViewerWorld } from '../src/engine/world';
import { animationMixerSystem } from './animationMixerSystem';
import { navigationSystem } from './navigationSystem';
import { renderSystem } from './renderSystem';
import { shadowBudgetSystem } from './shadowBudgetSystem';
import { shadowFollowSystem } from './shadowFollowSystem';
import { transformSystem } from './transformSystem';
import { waterSystem } from './waterSystem';

export type System = (world: ViewerWorld) => ViewerWorld;

/**
 * The frame, in order. Each step is one system; systems never call each other.
 *
 * The animation mixer runs before the transform system (DESIGN.md lists it after): the mixer
 * writes node transforms, and running it first lets the transform system propagate them in the
 * same frame instead of one frame late.
 */
export const PIPELINE: readonly System[] = [
  // input: pointer and keyboard state (a later issue adds the input system here)
  navigationSystem, //          camera controls: orbit, first-person, plan
  animationMixerSystem, //      mixers advance; animated node transforms copied into Transform
  transformSystem, //           local -> world matrices, parents before children, dirty only
  // avatar smoothing          (meetings issue)
  // instance compaction       (editor issue: packs slots after 100 marked removals)
  shadowFollowSystem, //        the sun's shadow box follows the view (camera moved > 10 units)
  shadowBudgetSystem, //        at most 12 shadow maps (point light 6), by importance to the view
  waterSystem, //               water waves advance; a frame while water is shown
  renderSystem, //              world matrices -> Object3D, draw when something changed
];

export function runPipeline(world: ViewerWorld, pipeline: readonly System[] = PIPELINE): ViewerWorld {
  for (let i = 0; i < pipeline.length; i++) pipeline[i](world);
  return world;
}
