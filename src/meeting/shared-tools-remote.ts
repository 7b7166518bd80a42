import { Vector3 } from 'three';
import type { Vec3 } from '../protocol/meeting';
import type { ToolPut } from '../protocol/shared-tools';
import {
  addEntry,
  currentState,
  EMPTY,
  forgetEntry,
  newer,
  scratchPosition,
  scratchRotation,
  type SharedToolsTarget,
  type ToolEntries,
} from './shared-tools-entries';

/**
 * Changes from the others, applied in the frame (the meeting queues its RFCs) through the tools'
 * own functions, with the state read back as the last one shared: nothing applied from outside is
 * ever sent back. A failure is reported, never thrown.
 */

const points = (list: readonly Vec3[]) => list.map((p) => new Vector3(p[0], p[1], p[2]));

/** A plane or measurement put whole by `writer`: made, moved or replaced here, unless ours is newer. */
export function applyPut(entries: ToolEntries, target: SharedToolsTarget, change: ToolPut, writer: string, report: (message: string) => void): void {
  const { sections, measurements, world } = target;
  if (entries.tombstones.has(change.id)) return;
  entries.stale?.delete(change.id);
  let entry = entries.byId.get(change.id);
  if (entry && !newer(change.rev, writer, entry)) return;
  const kind = change.op;
  if (entry && entry.kind !== kind) {
    report(`A shared ${kind} from ${writer} reuses the id of a ${entry.kind} (${change.id}): it was ignored.`);
    return;
  }
  entries.applying++;
  try {
    if (change.op === 'section') {
      const [px, py, pz] = change.section.position;
      const [qx, qy, qz, qw] = change.section.rotation;
      scratchPosition.set(px, py, pz);
      scratchRotation.set(qx, qy, qz, qw);
      if (entry) sections.setPose(entry.eid, scratchPosition, scratchRotation);
      else {
        entry = { id: change.id, kind: 'section', eid: sections.place(scratchPosition, scratchRotation), measure: null, rev: 0, writer, known: EMPTY };
        addEntry(entries, entry);
      }
    } else {
      const m = change.measurement;
      if (entry && entry.measure === m.kind && (world.measurementPoints.get(entry.eid)?.length ?? 0) === m.points.length * 3) {
        measurements.setPoints(entry.eid, points(m.points));
      } else {
        if (entry) {
          entries.measurementEntries.delete(entry.eid);
          measurements.remove(entry.eid);
        }
        entry = { id: change.id, kind: 'measurement', eid: measurements.restore(m.kind, points(m.points)), measure: m.kind, rev: 0, writer, known: EMPTY };
        addEntry(entries, entry);
      }
    }
    entry.rev = change.rev;
    entry.writer = writer;
    // What the tools hold now (float32 Transforms round), so the next send sees no change of ours.
    const state = currentState(target, entry);
    entry.known = state ? Float64Array.from(state) : EMPTY;
  } catch (error) {
    report(
      `A ${kind === 'section' ? 'section plane' : 'measurement'} shared by another participant could not be shown: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    entries.applying--;
  }
}

/** A plane or measurement deleted by another participant: gone here too, and its id never comes back. */
export function applyDelete(entries: ToolEntries, target: SharedToolsTarget, id: string, report: (message: string) => void): void {
  entries.tombstones.add(id);
  entries.stale?.delete(id);
  const entry = entries.byId.get(id);
  if (!entry) return;
  entries.applying++;
  try {
    forgetEntry(entries, entry, false);
    if (entry.kind === 'section') target.sections.remove(entry.eid);
    else target.measurements.remove(entry.eid);
  } catch (error) {
    report(`A shared object deleted by another participant could not be removed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    entries.applying--;
  }
}
