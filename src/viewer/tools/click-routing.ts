import type { ToolName } from './tool-manager';

/** Where a click on the scene goes. */
export type ClickTarget = 'sampler' | 'measurement' | 'section' | 'scene';

/**
 * The routing of a click (or a tap): Shift+click always samples a point ("Point sampler: shift
 * plus left click"); so does any click while the 'Sample point' toggle is on (touch screens have no
 * Shift), whatever tool is active; otherwise the active tool takes it, and without one the scene
 * (select a measurement, or pick and raise 'hit' / 'background-hit').
 */
export function clickTarget(shift: boolean, samplingArmed: boolean, active: ToolName | null): ClickTarget {
  if (shift || samplingArmed) return 'sampler';
  if (active === 'length-measure-tool' || active === 'area-measure-tool' || active === 'angle-measure-tool') return 'measurement';
  if (active === 'section-tool') return 'section';
  return 'scene';
}

/**
 * Whether the 'Sample point' toggle stays on after its click: it turns itself off once a point was
 * sampled; after a miss (nothing under the finger) it stays on, so the person can try again.
 */
export function samplingStaysArmed(sampled: boolean): boolean {
  return !sampled;
}
