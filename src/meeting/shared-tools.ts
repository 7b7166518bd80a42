import { Quaternion, Vector3 } from 'three';
import type { ViewerWorld } from '../engine/world';
import { MAX_MEASUREMENT_POINTS } from '../protocol/comments';
import type { Vec3 } from '../protocol/meeting';
import {
  MAX_TOOL_CHANGES,
  SHARED_TOOLS_INTERVAL_MS,
  SHARED_TOOLS_MAX_MESSAGE_BYTES,
  TOOL_CHANGES_FUNCTION,
  TOOL_STATE_FUNCTION,
  TOOL_STATE_REQUEST_FUNCTION,
  TOOL_STATE_TIMEOUT_MS,
  TOOLS_OBJECT,
  ToolChangesArgs,
  ToolStateArgs,
  ToolStateRequestArgs,
  describeArgsError,
  type SharedMeasurement,
  type ToolChange,
  type ToolPut,
  type ToolStateObject,
} from '../protocol/shared-tools';
import type { Emitter, ViewerEventMap } from '../viewer/events';
import type { Measurements } from '../viewer/tools/measurements';
import type { MeasureKind } from '../viewer/tools/measure-machine';
import type { Sections } from '../viewer/tools/section';

/**
 * Section planes and measurements made in a meeting are the meeting's (issue 14, item 7): everyone
 * sees them, anyone may move, correct or delete them. The wire is `src/protocol/shared-tools.ts`.
 *
 * - What goes out: a plane or measurement made while the meeting is joined gets an id
 *   (`{client id}:{counter}`) at the next send; every SHARED_TOOLS_INTERVAL_MS at most, each shared
 *   object whose state (a plane's Transform, a measurement's engine points) differs from the last
 *   one shared goes out whole with the next revision, so a drag sends 20 poses a second and its
 *   last pose always; deletions go with them. One RFC carries them all (frames stay small).
 * - What comes in: applied by the message system in the frame (the meeting queues RFCs), through
 *   the tools' own functions (`place`, `setPose`, `restore`, `setPoints`, `remove`), with the state
 *   read back as the last one shared, so nothing applied from outside is ever sent back. The
 *   creation and deletion events they raise are recognised as ours and not sent either.
 * - Newcomers: once connected, a participant asks one other (the lowest client id, then the next
 *   after TOOL_STATE_TIMEOUT_MS without an answer) for the set with handleToolStateRequest; the
 *   one asked answers in parts once it holds the set itself. Asking one, not replaying from all,
 *   keeps a join O(set) instead of O(people x set) and gives objects whose creator left to the
 *   newcomer too. After a reconnect the answer is the truth for the objects held before: those
 *   it lacks were deleted meanwhile.
 * - Planes and measurements present before the meeting was joined stay the person's own (follow
 *   mode shows them to followers), as do those made under `unshared` (follow mode's copies).
 */

export interface SharedToolsMeeting {
  call(object: string, fn: string, args: unknown[]): boolean;
  register(object: string, handlers: Record<string, (senderId: string, args: unknown[]) => void>): () => void;
}

export interface SharedToolsTarget {
  world: ViewerWorld;
  events: Emitter<ViewerEventMap>;
  sections: Pick<Sections, 'place' | 'pose' | 'setPose' | 'remove'>;
  measurements: Pick<Measurements, 'restore' | 'setPoints' | 'remove'>;
}

export interface SharedTools {
  /** Connected with this client id; `others`: the other participants (from the first STATE). */
  connected(selfId: string, others: readonly string[]): void;
  /** The connection ended (a reconnect follows): nothing is sent until connected again. */
  disconnected(): void;
  /** A participant left (the one asked for the state may be gone). */
  left(clientId: string): void;
  /** Sends what changed (called every frame after the helpers; sends at most every SHARED_TOOLS_INTERVAL_MS). */
  flush(now: number): void;
  /** Runs `fn` with sharing held: planes and measurements it makes or removes stay this viewer's own. */
  unshared<T>(fn: () => T): T;
  /** The plane is the meeting's (or will be at the next send). */
  isSharedSection(eid: number): boolean;
  isSharedMeasurement(eid: number): boolean;
  /** This viewer holds the meeting's set (it was alone, or got the answer). */
  readonly synced: boolean;
  /** The shared objects by id (tests, debugging). */
  list(): { id: string; kind: 'section' | 'measurement'; eid: number; rev: number }[];
  dispose(): void;
}

export interface SharedToolsOptions {
  /** A malformed change, one that could not be applied: console error and notice (the meeting's report). */
  report: (message: string) => void;
}

interface Entry {
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

const EMPTY = new Float64Array(0);
const scratchPosition = new Vector3();
const scratchRotation = new Quaternion();
const scratchSection = new Float64Array(7);

export function createSharedTools(meeting: SharedToolsMeeting, target: SharedToolsTarget, options: SharedToolsOptions): SharedTools {
  const { sections, measurements, world } = target;
  const byId = new Map<string, Entry>();
  const sectionEntries = new Map<number, Entry>();
  const measurementEntries = new Map<number, Entry>();
  /** Made here while in the meeting, not yet sent (their id comes with the first send). */
  const freshSections = new Set<number>();
  const freshMeasurements = new Map<number, MeasureKind>();
  const pendingDeletes: string[] = [];
  /** Deleted ids: a late put for one of them is old news. */
  const tombstones = new Set<string>();
  let selfId: string | null = null;
  let counter = 0;
  let lastFlush = -Infinity;
  /** Nesting of applying remote changes and of `unshared`: their events are not ours to send. */
  let applying = 0;
  let held = 0;
  let synced = false;
  /** Asking for the state: who is left to ask, whom, since when. */
  let candidates: string[] = [];
  let askedAt: number | null = null;
  let asked: string | null = null;
  /** Requesters waiting until this viewer holds the set. */
  const waiting = new Set<string>();
  /** Objects held before a reconnect that the answer has not confirmed yet. */
  let stale: Set<string> | null = null;

  const report = (message: string) => options.report(message);
  const ours = () => applying === 0 && held === 0;

  // ----- Local changes: creations and deletions from the tools' events; moves found by flush -----

  const offs: (() => void)[] = [];
  offs.push(
    target.events.on('section', (event) => {
      if (event.action === 'created') {
        if (ours()) freshSections.add(event.id);
      } else if (event.action === 'deleted') {
        freshSections.delete(event.id);
        const entry = sectionEntries.get(event.id);
        if (entry) forget(entry, ours());
      }
    }),
  );
  offs.push(
    target.events.on('measurement', (event) => {
      if (event.action === 'created') {
        if (ours()) freshMeasurements.set(event.id, event.kind);
      } else if (event.action === 'deleted') {
        freshMeasurements.delete(event.id);
        const entry = measurementEntries.get(event.id);
        if (entry) forget(entry, ours());
      }
    }),
  );

  /** The object is gone here; `tell`: its deletion is ours to send. */
  const forget = (entry: Entry, tell: boolean) => {
    byId.delete(entry.id);
    (entry.kind === 'section' ? sectionEntries : measurementEntries).delete(entry.eid);
    tombstones.add(entry.id);
    stale?.delete(entry.id);
    if (tell && applying === 0) pendingDeletes.push(entry.id);
  };

  const add = (entry: Entry) => {
    byId.set(entry.id, entry);
    (entry.kind === 'section' ? sectionEntries : measurementEntries).set(entry.eid, entry);
  };

  /** The object's present state into a buffer (a scratch one for sections; the engine's own for measurements). */
  const current = (entry: Entry): Float64Array | null => {
    if (entry.kind === 'section') {
      if (!sections.pose(entry.eid, scratchPosition, scratchRotation)) return null;
      scratchPosition.toArray(scratchSection, 0);
      scratchRotation.toArray(scratchSection, 3);
      return scratchSection;
    }
    return world.measurementPoints.get(entry.eid) ?? null;
  };

  const same = (a: Float64Array, b: Float64Array) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };

  const put = (entry: Entry, state: Float64Array): ToolPut => {
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
  };

  /** Splits items into RFCs under the byte and count limits and sends each; returns the items that could not be sent. */
  const sendInParts = <T>(items: T[], send: (part: T[], last: boolean) => boolean): T[] => {
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
  };

  const flush = (now: number) => {
    if (selfId === null) return;
    if (!synced && asked !== null && askedAt !== null && now - askedAt >= TOOL_STATE_TIMEOUT_MS) askNext(now);
    else if (!synced && asked === null && askedAt === null) askNext(now);
    // Looked at (and sent) at most every SHARED_TOOLS_INTERVAL_MS: a drag's poses in between are
    // skipped, the state at each look goes whole.
    if (now - lastFlush < SHARED_TOOLS_INTERVAL_MS) return;
    lastFlush = now;
    const self = selfId;
    // Made here since the last send: they become the meeting's now.
    for (const eid of freshSections) add({ id: `${self}:${++counter}`, kind: 'section', eid, measure: null, rev: 0, writer: self, known: EMPTY });
    freshSections.clear();
    for (const [eid, kind] of freshMeasurements) {
      const count = (world.measurementPoints.get(eid)?.length ?? 0) / 3;
      if (count > MAX_MEASUREMENT_POINTS) {
        report(`This area has ${count} points, more than the ${MAX_MEASUREMENT_POINTS} a meeting shares: it stays yours only.`);
        continue;
      }
      add({ id: `${self}:${++counter}`, kind: 'measurement', eid, measure: kind, rev: 0, writer: self, known: EMPTY });
    }
    freshMeasurements.clear();
    const changes: ToolChange[] = [];
    const changed: Entry[] = [];
    for (const entry of byId.values()) {
      const state = current(entry);
      if (!state || same(state, entry.known)) continue;
      entry.rev++;
      entry.writer = self;
      entry.known = Float64Array.from(state);
      changes.push(put(entry, entry.known));
      changed.push(entry);
    }
    for (const id of pendingDeletes) changes.push({ op: 'delete', id });
    pendingDeletes.length = 0;
    if (changes.length === 0) return;
    const failed = sendInParts(changes, (part) => meeting.call(TOOLS_OBJECT, TOOL_CHANGES_FUNCTION, [self, part]));
    // Not sent (the connection dropped meanwhile): sent again once connected.
    for (const change of failed) {
      if (change.op === 'delete') pendingDeletes.push(change.id);
      else {
        const entry = byId.get(change.id);
        if (entry) entry.known = EMPTY;
      }
    }
  };

  // ----- Remote changes (applied in the frame: the meeting queues its RFCs) -----

  const newer = (rev: number, writer: string, entry: Entry) => rev > entry.rev || (rev === entry.rev && writer > entry.writer);

  const points = (list: readonly Vec3[]) => list.map((p) => new Vector3(p[0], p[1], p[2]));

  const applyPut = (change: ToolPut, writer: string) => {
    if (tombstones.has(change.id)) return;
    stale?.delete(change.id);
    let entry = byId.get(change.id);
    if (entry && !newer(change.rev, writer, entry)) return;
    const kind = change.op;
    if (entry && entry.kind !== kind) {
      report(`A shared ${kind} from ${writer} reuses the id of a ${entry.kind} (${change.id}): it was ignored.`);
      return;
    }
    applying++;
    try {
      if (change.op === 'section') {
        const [px, py, pz] = change.section.position;
        const [qx, qy, qz, qw] = change.section.rotation;
        scratchPosition.set(px, py, pz);
        scratchRotation.set(qx, qy, qz, qw);
        if (entry) sections.setPose(entry.eid, scratchPosition, scratchRotation);
        else {
          entry = { id: change.id, kind: 'section', eid: sections.place(scratchPosition, scratchRotation), measure: null, rev: 0, writer, known: EMPTY };
          add(entry);
        }
      } else {
        const m = change.measurement;
        if (entry && entry.measure === m.kind && (world.measurementPoints.get(entry.eid)?.length ?? 0) === m.points.length * 3) {
          measurements.setPoints(entry.eid, points(m.points));
        } else {
          if (entry) {
            measurementEntries.delete(entry.eid);
            measurements.remove(entry.eid);
          }
          entry = { id: change.id, kind: 'measurement', eid: measurements.restore(m.kind, points(m.points)), measure: m.kind, rev: 0, writer, known: EMPTY };
          add(entry);
        }
      }
      entry.rev = change.rev;
      entry.writer = writer;
      // What the tools hold now (float32 Transforms round), so the next send sees no change of ours.
      const state = current(entry);
      entry.known = state ? Float64Array.from(state) : EMPTY;
    } catch (error) {
      report(`A ${kind === 'section' ? 'section plane' : 'measurement'} shared by another participant could not be shown: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      applying--;
    }
  };

  const applyDelete = (id: string) => {
    tombstones.add(id);
    stale?.delete(id);
    const entry = byId.get(id);
    if (!entry) return;
    applying++;
    try {
      forget(entry, false);
      if (entry.kind === 'section') sections.remove(entry.eid);
      else measurements.remove(entry.eid);
    } catch (error) {
      report(`A shared object deleted by another participant could not be removed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      applying--;
    }
  };

  // ----- The set for newcomers -----

  const askNext = (now: number) => {
    const next = candidates.shift();
    if (next === undefined) {
      // Nobody answered: whoever is here joined with us, and everything made since came as changes.
      becomeSynced(false);
      return;
    }
    asked = next;
    askedAt = now;
    meeting.call(TOOLS_OBJECT, TOOL_STATE_REQUEST_FUNCTION, [selfId, next]);
  };

  /** `answered`: the set came from someone (else this viewer's own set is the meeting's). */
  const becomeSynced = (answered: boolean) => {
    synced = true;
    asked = null;
    askedAt = null;
    candidates = [];
    // Held before the reconnect and neither in the answer nor changed since: deleted while this viewer was away.
    if (stale && answered) for (const id of stale) applyDelete(id);
    stale = null;
    for (const requester of waiting) answer(requester);
    waiting.clear();
  };

  const answer = (requester: string) => {
    if (selfId === null) return;
    const self = selfId;
    const objects: ToolStateObject[] = [];
    for (const entry of byId.values()) {
      if (entry.known.length === 0) continue; // not shared yet: it goes to everyone with the next changes
      objects.push({ ...put(entry, entry.known), writer: entry.writer } as ToolStateObject);
    }
    const failed = sendInParts(objects, (part, last) => meeting.call(TOOLS_OBJECT, TOOL_STATE_FUNCTION, [self, requester, { objects: part, last }]));
    if (failed.length > 0) waiting.add(requester);
  };

  const unregister = meeting.register(TOOLS_OBJECT, {
    [TOOL_CHANGES_FUNCTION](sender, args) {
      const parsed = ToolChangesArgs.safeParse(args);
      if (!parsed.success) return report(`${TOOL_CHANGES_FUNCTION} from ${sender}: bad arguments (${describeArgsError(parsed.error)}); nothing was applied.`);
      for (const change of parsed.data[1]) {
        if (change.op === 'delete') applyDelete(change.id);
        else applyPut(change, sender);
      }
    },
    [TOOL_STATE_REQUEST_FUNCTION](sender, args) {
      const parsed = ToolStateRequestArgs.safeParse(args);
      if (!parsed.success) return report(`${TOOL_STATE_REQUEST_FUNCTION} from ${sender}: bad arguments (${describeArgsError(parsed.error)}).`);
      if (parsed.data[1] !== selfId) return;
      if (synced) return answer(sender);
      waiting.add(sender);
      // We asked each other: neither answers before the other, so the next is asked at once.
      if (asked === sender) askedAt = -Infinity;
    },
    [TOOL_STATE_FUNCTION](sender, args) {
      const parsed = ToolStateArgs.safeParse(args);
      if (!parsed.success) return report(`${TOOL_STATE_FUNCTION} from ${sender}: bad arguments (${describeArgsError(parsed.error)}); nothing was applied.`);
      const [, requester, part] = parsed.data;
      if (requester !== selfId) return;
      for (const object of part.objects) {
        const { writer, ...change } = object;
        applyPut(change as ToolPut, writer);
      }
      if (part.last && !synced && sender === asked) becomeSynced(true);
    },
  });

  return {
    connected(self, others) {
      selfId = self;
      lastFlush = -Infinity;
      waiting.clear();
      candidates = [...others].filter((id) => id !== self).sort();
      asked = null;
      askedAt = null;
      // What was held before a reconnect waits for the answer's word.
      stale = byId.size > 0 ? new Set(byId.keys()) : null;
      synced = false;
      if (candidates.length === 0) becomeSynced(false);
    },
    disconnected() {
      selfId = null;
      synced = false;
      asked = null;
      askedAt = null;
      candidates = [];
      waiting.clear();
    },
    left(clientId) {
      waiting.delete(clientId);
      candidates = candidates.filter((id) => id !== clientId);
      // The one asked is gone: ask the next at the next flush.
      if (asked === clientId) askedAt = -Infinity;
    },
    flush,
    unshared(fn) {
      held++;
      try {
        return fn();
      } finally {
        held--;
      }
    },
    isSharedSection: (eid) => sectionEntries.has(eid) || freshSections.has(eid),
    isSharedMeasurement: (eid) => measurementEntries.has(eid) || freshMeasurements.has(eid),
    get synced() {
      return synced;
    },
    list() {
      return [...byId.values()].map((e) => ({ id: e.id, kind: e.kind, eid: e.eid, rev: e.rev }));
    },
    dispose() {
      unregister();
      for (const off of offs) off();
      byId.clear();
      sectionEntries.clear();
      measurementEntries.clear();
      freshSections.clear();
      freshMeasurements.clear();
    },
  };
}
