import type { ViewerWorld } from '../src/engine/world';
import { animationMixerSystem } from './animationMixerSystem';
import { avatarSmoothingSystem } from './avatarSmoothingSystem';
import { helperSystem } from './helperSystem';
import { inputSystem } from './inputSystem';
import { instanceCompactionSystem } from './instanceCompactionSystem';
import { messageSystem } from './messageSystem';
import { navigationSystem } from './navigationSystem';
import { overlaySystem } from './overlaySystem';
import { renderSystem } from './renderSystem';
import { sectionPlaneSystem } from './sectionPlaneSystem';
import { shadowBudgetSystem } from './shadowBudgetSystem';
import { shadowFollowSystem } from './shadowFollowSystem';
import { shadowRevealSystem } from './shadowRevealSystem';
import { syncSystem } from './syncSystem';
import { transformSystem } from './transformSystem';
import { waterSystem } from './waterSystem';

export type System = (world: ViewerWorld) => ViewerWorld;

/**
 * The frame, in order. Each step is one system; systems never call each other. The frame loop
 * (src/engine/frame-loop.ts) runs this array and nothing else: per-frame work of viewer parts that
 * are not entities runs as steps of the input, helpers and overlays slots.
 *
 * The animation mixer and the avatar smoothing run before the transform system (DESIGN.md lists
 * them after): they write node transforms, and running them first lets the transform system
 * propagate them in the same frame instead of one frame late.
 */
export const PIPELINE: readonly System[] = [
  inputSystem, //               coalesced pointer work: one hover pick, one handle drag per frame
  messageSystem, //             queued host-page and meeting messages, in arrival order
  navigationSystem, //          camera controls: orbit, first-person, plan; world.camera.moved
  animationMixerSystem, //      mixers advance; animated node transforms copied into Transform
  avatarSmoothingSystem, //     avatars glide to their people's poses (position 0.025, cursor 0.1)
  transformSystem, //           local -> world matrices, parents before children, dirty only
  sectionPlaneSystem, //        section planes' normal and constant from their world matrix
  instanceCompactionSystem, //   instanced asset groups: slots packed after 100 marked removals, ids kept
  shadowFollowSystem, //        the sun's shadow box follows the view (camera moved > 10 units)
  shadowBudgetSystem, //        at most 12 shadow maps (point light 6), by importance to the view
  waterSystem, //               water waves advance; a frame while water is shown
  syncSystem, //                ECS -> three.js: world matrices, visibility, shadow flags
  helperSystem, //              helpers follow: clipping planes and caps, measurement drawings, gizmos
  shadowRevealSystem, //        a scene's shadows after its first picture: maps, then a 300 ms fade
  renderSystem, //              draw when something changed
  overlaySystem, //             DOM over the canvas follows the picture: labels, orientation gizmo
];

export function runPipeline(world: ViewerWorld, pipeline: readonly System[] = PIPELINE): ViewerWorld {
  for (let i = 0; i < pipeline.length; i++) pipeline[i](world);
  return world;
}
