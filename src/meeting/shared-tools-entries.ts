import { Quaternion, Vector3 } from 'three';
import type { ViewerWorld } from '../engine/world';
import type { Emitter, ViewerEventMap } from '../viewer/events';
import type { Measurements } from '../viewer/tools/measurements';
import type { MeasureKind } from '../viewer/tools/measure-machine';
import type { Sections } from '../viewer/tools/section';

/**
 * The meeting's shared planes and measurements as this viewer holds them (./shared-tools.ts says
 * how they are shared): one entry per object, found by id and by entity, the ids deleted, and the
 * state of each object now and as last shared.
 */

export interface SharedToolsTarget {
  world: ViewerWorld;
  events: Emitter<ViewerEventMap>;
  sections: Pick<Sections, 'place' | 'pose' | 'setPose' | 'remove'>;
  measurements: Pick<Measurements, 'restore' | 'setPoints' | 'remove'>;
}

export interface Entry {
  id: string;
  kind: 'section' | 'measurement';
  eid: number;
  /** The measurement's kind (measurements only). */
  measure: MeasureKind | null;
  rev: number;
  writer: string;
  /** The state last shared (sent or applied): a section's position and rotation, a measurement's points. Empty: never shared. */
  known: Float64Array;
}

/** What is shared, and the bookkeeping the local and the remote changes both keep. */
export interface ToolEntries {
  readonly byId: Map<string, Entry>;
  readonly sectionEntries: Map<number, Entry>;
  readonly measurementEntries: Map<number, Entry>;
  /** Deleted ids: a late put for one of them is old news. */
  readonly tombstones: Set<string>;
  /** Deletions of ours not sent yet. */
  readonly pendingDeletes: string[];
  /** Objects held before a reconnect that the answer has not confirmed yet. */
  stale: Set<string> | null;
  /** Nesting of applying remote changes: their events are not ours to send. */
  applying: number;
}

export const EMPTY = new Float64Array(0);
export const scratchPosition = new Vector3();
export const scratchRotation = new Quaternion();
const scratchSection = new Float64Array(7);

export function createToolEntries(): ToolEntries {
  return { byId: new Map(), sectionEntries: new Map(), measurementEntries: new Map(), tombstones: new Set(), pendingDeletes: [], stale: null, applying: 0 };
}

export function addEntry(entries: ToolEntries, entry: Entry): void {
  entries.byId.set(entry.id, entry);
  (entry.kind === 'section' ? entries.sectionEntries : entries.measurementEntries).set(entry.eid, entry);
}

/** The object is gone here; `tell`: its deletion is ours to send. */
export function forgetEntry(entries: ToolEntries, entry: Entry, tell: boolean): void {
  entries.byId.delete(entry.id);
  (entry.kind === 'section' ? entries.sectionEntries : entries.measurementEntries).delete(entry.eid);
  entries.tombstones.add(entry.id);
  entries.stale?.delete(entry.id);
  if (tell && entries.applying === 0) entries.pendingDeletes.push(entry.id);
}

/** The object's present state into a buffer (a scratch one for sections; the engine's own for measurements). */
export function currentState(target: SharedToolsTarget, entry: Entry): Float64Array | null {
  if (entry.kind === 'section') {
    if (!target.sections.pose(entry.eid, scratchPosition, scratchRotation)) return null;
    scratchPosition.toArray(scratchSection, 0);
    scratchRotation.toArray(scratchSection, 3);
    return scratchSection;
  }
  return target.world.measurementPoints.get(entry.eid) ?? null;
}

export function sameState(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** (rev, writer) decides between concurrent edits: the higher revision, then the higher writer id. */
export const newer = (rev: number, writer: string, entry: Entry) => rev > entry.rev || (rev === entry.rev && writer > entry.writer);
