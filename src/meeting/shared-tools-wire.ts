import type { Vec3 } from '../protocol/meeting';
import { MAX_TOOL_CHANGES, SHARED_TOOLS_MAX_MESSAGE_BYTES, type SharedMeasurement, type ToolPut } from '../protocol/shared-tools';
import type { Entry } from './shared-tools-entries';

/** Shared objects as the wire carries them (src/protocol/shared-tools.ts), and RFCs kept under the frame's limits. */

/** The object whole, in `state` (a section's position and rotation, a measurement's points). */
export function toPut(entry: Entry, state: Float64Array): ToolPut {
  if (entry.kind === 'section') {
    return {
      op: 'section',
      id: entry.id,
      rev: entry.rev,
      section: { position: [state[0], state[1], state[2]], rotation: [state[3], state[4], state[5], state[6]] },
    };
  }
  const points: Vec3[] = [];
  for (let i = 0; i + 2 < state.length; i += 3) points.push([state[i], state[i + 1], state[i + 2]]);
  return { op: 'measurement', id: entry.id, rev: entry.rev, measurement: { kind: entry.measure!, points } as SharedMeasurement };
}

/**
 * Splits items into parts under the byte and count limits and sends each (`last` on the final one;
 * no items: one empty last part); returns the items that could not be sent.
 */
export function sendInParts<T>(items: T[], send: (part: T[], last: boolean) => boolean): T[] {
  const failed: T[] = [];
  let part: T[] = [];
  let bytes = 0;
  const go = (last: boolean) => {
    if (!send(part, last)) failed.push(...part);
    part = [];
    bytes = 0;
  };
  for (const item of items) {
    const size = JSON.stringify(item).length + 1;
    if (part.length > 0 && (bytes + size > SHARED_TOOLS_MAX_MESSAGE_BYTES || part.length >= MAX_TOOL_CHANGES)) go(false);
    part.push(item);
    bytes += size;
  }
  if (part.length > 0 || items.length === 0) go(true);
  return failed;
}
