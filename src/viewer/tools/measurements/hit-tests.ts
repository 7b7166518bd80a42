import { Vector2, type Vector3 } from 'three';
import type { MeasurementEntry } from './entities';

/** How close (CSS pixels) a press must be to a measurement point to drag it, or to a line to select it. */
export const POINT_GRAB_PX = 10;
export const LINE_SELECT_PX = 6;

/** A world point to client pixels (false when it is not in front of the camera): ToolContext.toClient. */
export type ToClient = (point: Vector3, out: Vector2) => boolean;

const screenA = new Vector2();
const screenB = new Vector2();
const pointer = new Vector2();

/**
 * Screen-space hit tests of finished measurements. The point within POINT_GRAB_PX of the pointer
 * nearest to it, the selected measurement's first (its points win over others drawn at the same
 * place); null when none is that close.
 */
export function nearestPoint(
  toClient: ToClient,
  entries: Iterable<MeasurementEntry>,
  selected: number,
  clientX: number,
  clientY: number,
): { entry: MeasurementEntry; index: number } | null {
  pointer.set(clientX, clientY);
  let best: { entry: MeasurementEntry; index: number } | null = null;
  let bestDistance = POINT_GRAB_PX;
  const ordered = [...entries].sort((a, b) => Number(b.eid === selected) - Number(a.eid === selected));
  for (const entry of ordered) {
    entry.points.forEach((p, index) => {
      if (!toClient(p, screenA)) return;
      const d = screenA.distanceTo(pointer);
      if (d < bestDistance || (d <= bestDistance && best === null)) {
        bestDistance = d;
        best = { entry, index };
      }
    });
  }
  return best;
}

/** The first measurement whose line (an area's closing side included) passes within LINE_SELECT_PX of the pointer, or null. */
export function lineUnder(toClient: ToClient, entries: Iterable<MeasurementEntry>, clientX: number, clientY: number): MeasurementEntry | null {
  pointer.set(clientX, clientY);
  for (const entry of entries) {
    const n = entry.points.length;
    const segments = entry.kind === 'area' ? n : n - 1;
    for (let i = 0; i < segments; i++) {
      if (!toClient(entry.points[i], screenA) || !toClient(entry.points[(i + 1) % n], screenB)) continue;
      if (distanceToSegment(pointer, screenA, screenB) <= LINE_SELECT_PX) return entry;
    }
  }
  return null;
}

/** Distance from p to the segment a-b (2D). */
export function distanceToSegment(p: Vector2, a: Vector2, b: Vector2): number {
  const abx = b.x - a.x;
  const aby = b.y - a.y;
  const lengthSq = abx * abx + aby * aby;
  const t = lengthSq === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * abx + (p.y - a.y) * aby) / lengthSq));
  return Math.hypot(a.x + abx * t - p.x, a.y + aby * t - p.y);
}
