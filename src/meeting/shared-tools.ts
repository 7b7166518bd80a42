import { MAX_MEASUREMENT_POINTS } from '../protocol/comments';
import {
  SHARED_TOOLS_INTERVAL_MS,
  TOOL_CHANGES_FUNCTION,
  TOOL_STATE_FUNCTION,
  TOOL_STATE_REQUEST_FUNCTION,
  TOOL_STATE_TIMEOUT_MS,
  TOOLS_OBJECT,
  ToolChangesArgs,
  ToolStateArgs,
  ToolStateRequestArgs,
  describeArgsError,
  type ToolChange,
  type ToolPut,
  type ToolStateObject,
} from '../protocol/shared-tools';
import type { MeasureKind } from '../viewer/tools/measure-machine';
import { addEntry, createToolEntries, currentState, EMPTY, forgetEntry, sameState, type Entry, type SharedToolsTarget } from './shared-tools-entries';
import { applyDelete, applyPut } from './shared-tools-remote';
import { sendInParts, toPut } from './shared-tools-wire';

export type { SharedToolsTarget } from './shared-tools-entries';

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

export function createSharedTools(meeting: SharedToolsMeeting, target: SharedToolsTarget, options: SharedToolsOptions): SharedTools {
  const { world } = target;
  const entries = createToolEntries();
  const { byId, sectionEntries, measurementEntries, pendingDeletes } = entries;
  /** Made here while in the meeting, not yet sent (their id comes with the first send). */
  const freshSections = new Set<number>();
  const freshMeasurements = new Map<number, MeasureKind>();
  let selfId: string | null = null;
  let counter = 0;
  let lastFlush = -Infinity;
  /** Nesting of `unshared` (entries.applying: of applying remote changes): their events are not ours to send. */
  let held = 0;
  let synced = false;
  /** Asking for the state: who is left to ask, whom, since when. */
  let candidates: string[] = [];
  let askedAt: number | null = null;
  let asked: string | null = null;
  /** Requesters waiting until this viewer holds the set. */
  const waiting = new Set<string>();

  const report = (message: string) => options.report(message);
  const ours = () => entries.applying === 0 && held === 0;

  // ----- Local changes: creations and deletions from the tools' events; moves found by flush -----

  const offs: (() => void)[] = [];
  offs.push(
    target.events.on('section', (event) => {
      if (event.action === 'created') {
        if (ours()) freshSections.add(event.id);
      } else if (event.action === 'deleted') {
        freshSections.delete(event.id);
        const entry = sectionEntries.get(event.id);
        if (entry) forgetEntry(entries, entry, ours());
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
        if (entry) forgetEntry(entries, entry, ours());
      }
    }),
  );

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
    for (const eid of freshSections) addEntry(entries, { id: `${self}:${++counter}`, kind: 'section', eid, measure: null, rev: 0, writer: self, known: EMPTY });
    freshSections.clear();
    for (const [eid, kind] of freshMeasurements) {
      const count = (world.measurementPoints.get(eid)?.length ?? 0) / 3;
      if (count > MAX_MEASUREMENT_POINTS) {
        report(`This area has ${count} points, more than the ${MAX_MEASUREMENT_POINTS} a meeting shares: it stays yours only.`);
        continue;
      }
      addEntry(entries, { id: `${self}:${++counter}`, kind: 'measurement', eid, measure: kind, rev: 0, writer: self, known: EMPTY });
    }
    freshMeasurements.clear();
    const changes: ToolChange[] = [];
    const changed: Entry[] = [];
    for (const entry of byId.values()) {
      const state = currentState(target, entry);
      if (!state || sameState(state, entry.known)) continue;
      entry.rev++;
      entry.writer = self;
      entry.known = Float64Array.from(state);
      changes.push(toPut(entry, entry.known));
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
    if (entries.stale && answered) for (const id of entries.stale) applyDelete(entries, target, id, report);
    entries.stale = null;
    for (const requester of waiting) answer(requester);
    waiting.clear();
  };

  const answer = (requester: string) => {
    if (selfId === null) return;
    const self = selfId;
    const objects: ToolStateObject[] = [];
    for (const entry of byId.values()) {
      if (entry.known.length === 0) continue; // not shared yet: it goes to everyone with the next changes
      objects.push({ ...toPut(entry, entry.known), writer: entry.writer } as ToolStateObject);
    }
    const failed = sendInParts(objects, (part, last) => meeting.call(TOOLS_OBJECT, TOOL_STATE_FUNCTION, [self, requester, { objects: part, last }]));
    if (failed.length > 0) waiting.add(requester);
  };

  // ----- Remote changes (applied in the frame: the meeting queues its RFCs): ./shared-tools-remote.ts -----

  const unregister = meeting.register(TOOLS_OBJECT, {
    [TOOL_CHANGES_FUNCTION](sender, args) {
      const parsed = ToolChangesArgs.safeParse(args);
      if (!parsed.success) return report(`${TOOL_CHANGES_FUNCTION} from ${sender}: bad arguments (${describeArgsError(parsed.error)}); nothing was applied.`);
      for (const change of parsed.data[1]) {
        if (change.op === 'delete') applyDelete(entries, target, change.id, report);
        else applyPut(entries, target, change, sender, report);
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
        applyPut(entries, target, change as ToolPut, writer, report);
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
      entries.stale = byId.size > 0 ? new Set(byId.keys()) : null;
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
