import type { FrameSlot } from './world';

/**
 * The order of the frame steps inside each slot, written down: a step runs at its name's place
 * here, whatever order the viewer's parts were created in (the editor, the comments and the
 * meeting come later than the viewer, and tools are made on first use). A name that is not here
 * is refused by addFrameStep, so a new step is placed on purpose. Steps of the same name run in
 * the order they were added.
 *
 * - helpers: the pick index is refitted first (the helpers below and the next frame's pick read
 *   it), the section planes follow their Transform before anything is clipped by them, then the
 *   drawings over the scene (measurements, the editor's helpers and gizmo, the host page's
 *   highlight, the meeting's selections, comment pins).
 * - overlays: the DOM and the small views first, then what reports the finished frame outward
 *   (the host page's camera events, the meeting's camera pose), so both see the same frame.
 */
export const FRAME_STEP_ORDER: { readonly [slot in FrameSlot]: readonly string[] } = {
  input: ['pointer'],
  helpers: [
    'pick-index-refit',
    'section planes',
    'section gizmo camera',
    'measurements',
    'object helpers',
    'editor gizmo',
    'host-api-highlight',
    'meeting: selections',
    'comment-pins',
  ],
  afterDraw: ['selection outline'],
  overlays: ['orientation gizmo', 'tool labels', 'magnifier', 'meeting: selection labels', 'host-api', 'meeting: camera pose'],
};

/** Where a step of this name runs in its slot; -1 when the slot has no place for it. */
export function frameStepRank(slot: FrameSlot, name: string): number {
  return FRAME_STEP_ORDER[slot].indexOf(name);
}
