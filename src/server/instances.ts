import { FLOATS_PER_INSTANCE, MAX_INSTANCES_PER_GROUP, noInstanceError, packMatrix } from '../protocol/instances.ts';
import { InstanceChange, type ApplyInstanceChangesResponse } from '../protocol/instance-changes.ts';
import { decodeInstanceSet, encodeInstanceSet, type InstanceSet } from '../protocol/instance-set.ts';
import type { InstanceLogRow, Store } from './db/common.ts';

/**
 * The instances of instanced asset groups, kept by the model service (src/protocol/instances.ts).
 *
 * Storage (db/schema.ts migration 2): per group a base set (the binary instance set as of a
 * revision) and a log of the changes after it, a row each — a moved instance stores its ~250-byte
 * change, never the group. After FOLD_AFTER logged changes the current set becomes the new base.
 *
 * Each process keeps the sets it served last in memory (an LRU by instance count), brought up to
 * date from the log when another process wrote; writes are optimistic (commit only if the group's
 * revision is the one the plan was made on, else read the log and plan again), so any number of
 * server processes share a group without a lock held over a request.
 */

/** Logged changes after which the current set is written as the group's new base. */
export const FOLD_AFTER = 500;
/**
 * Instances kept in memory over all cached groups (52 bytes each, plus the id index, plus the
 * gzipped copy the route keeps of a served set: about 26 more for the demo's layouts).
 */
export const CACHE_INSTANCES = 4_000_000;
const MAX_ATTEMPTS = 8;

export class InstanceChangeError extends Error {
  constructor(
    readonly statusCode: 400 | 404 | 409 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'InstanceChangeError';
  }
}

/** A group's set, editable in place: slots packed 0..count-1, an id -> slot index. */
export class LiveInstanceSet {
  ids: Uint32Array;
  matrices: Float32Array;
  count: number;
  nextId: number;
  revision: number;
  /** slot + 1 of each id below nextId (0: absent). */
  private slotOf: Uint32Array;
  private encoded: Uint8Array | null = null;

  constructor(set: InstanceSet) {
    this.count = set.ids.length;
    this.ids = set.ids;
    this.matrices = set.matrices;
    this.nextId = set.nextId;
    this.revision = set.revision;
    this.slotOf = new Uint32Array(Math.max(16, set.nextId));
    for (let slot = 0; slot < this.count; slot++) this.slotOf[this.ids[slot]!] = slot + 1;
  }

  has(id: number): boolean {
    return id < this.nextId && this.slotOf[id]! !== 0;
  }

  /** The set as stored and served (cached until the next change). */
  encode(): Uint8Array {
    this.encoded ??= encodeInstanceSet(this.snapshot());
    return this.encoded;
  }

  snapshot(): InstanceSet {
    return { ids: this.ids.subarray(0, this.count), matrices: this.matrices.subarray(0, this.count * FLOATS_PER_INSTANCE), nextId: this.nextId, revision: this.revision };
  }

  /**
   * Applies a change that `check` accepted, as revision `revision`. A revision the set has already
   * reached is skipped: two readers catching up from the log at once, or a writer whose own rows a
   * reader applied while its commit was in flight, never apply a change twice.
   */
  apply(change: InstanceChange, revision: number): void {
    if (revision <= this.revision) return;
    this.encoded = null;
    this.revision = revision;
    if (change.type === 'setInstances') {
      change.ids.forEach((id, i) => this.matrices.set(change.matrices.slice(i * FLOATS_PER_INSTANCE, (i + 1) * FLOATS_PER_INSTANCE), (this.slotOf[id]! - 1) * FLOATS_PER_INSTANCE));
    } else if (change.type === 'addInstances') {
      this.reserve(this.count + change.ids.length, Math.max(...change.ids) + 1);
      change.ids.forEach((id, i) => {
        this.ids[this.count] = id;
        this.matrices.set(change.matrices.slice(i * FLOATS_PER_INSTANCE, (i + 1) * FLOATS_PER_INSTANCE), this.count * FLOATS_PER_INSTANCE);
        this.slotOf[id] = ++this.count;
        if (id >= this.nextId) this.nextId = id + 1;
      });
    } else {
      for (const id of change.ids) {
        // The last slot moves into the removed one: slots stay packed, ids stay.
        const slot = this.slotOf[id]! - 1;
        const last = --this.count;
        if (slot !== last) {
          const moved = this.ids[last]!;
          this.ids[slot] = moved;
          this.matrices.copyWithin(slot * FLOATS_PER_INSTANCE, last * FLOATS_PER_INSTANCE, (last + 1) * FLOATS_PER_INSTANCE);
          this.slotOf[moved] = slot + 1;
        }
        this.slotOf[id] = 0;
      }
    }
  }

  private reserve(count: number, nextId: number): void {
    if (count > this.ids.length) {
      const capacity = Math.max(count, Math.ceil(this.ids.length * 1.5), 16);
      const ids = new Uint32Array(capacity);
      ids.set(this.ids.subarray(0, this.count));
      const matrices = new Float32Array(capacity * FLOATS_PER_INSTANCE);
      matrices.set(this.matrices.subarray(0, this.count * FLOATS_PER_INSTANCE));
      this.ids = ids;
      this.matrices = matrices;
    }
    if (nextId > this.slotOf.length) {
      const slotOf = new Uint32Array(Math.max(nextId, Math.ceil(this.slotOf.length * 1.5)));
      slotOf.set(this.slotOf);
      this.slotOf = slotOf;
    }
  }
}

/**
 * Checks a group's changes in order against its set without changing it (ids added or removed by
 * earlier changes of the batch count). Throws InstanceChangeError naming the change.
 */
export function checkChanges(set: LiveInstanceSet, changes: readonly { change: InstanceChange; index: number }[]): void {
  // New ids count up from nextId: a batch adding k new instances may use nextId .. nextId+k-1
  // (any order), so a group's ids (and its id index) never jump to 2^32.
  let fresh = 0;
  for (const { change } of changes) if (change.type === 'addInstances') for (const id of change.ids) if (id >= set.nextId) fresh++;
  const added = new Set<number>();
  const removed = new Set<number>();
  const exists = (id: number) => (set.has(id) && !removed.has(id)) || added.has(id);
  let count = set.count;
  for (const { change, index } of changes) {
    for (const id of change.ids) {
      if (change.type === 'addInstances') {
        // An id not in the set may come (back): a new one from nextId, or a removed one restored by
        // an undo (the same instance again). An id in the set is a conflict.
        if (exists(id)) throw new InstanceChangeError(409, `changes[${index}]: Instance id ${id} already exists in group ${change.groupId}`);
        if (id >= set.nextId + fresh) throw new InstanceChangeError(400, `changes[${index}]: Instance id ${id} is beyond the ids of group ${change.groupId}: new ids count up from its next id ${set.nextId}`);
        added.add(id);
        count++;
      } else {
        if (!exists(id)) throw new InstanceChangeError(404, `changes[${index}]: ${noInstanceError(id).message}`);
        if (change.type === 'removeInstances') {
          if (added.delete(id)) {
            // Added and removed in one batch: the id is spent all the same.
          } else removed.add(id);
          count--;
        }
      }
    }
  }
  if (count > MAX_INSTANCES_PER_GROUP) throw new InstanceChangeError(400, `A group holds at most ${MAX_INSTANCES_PER_GROUP} instances`);
}

function canonical(body: string): string {
  return JSON.stringify(InstanceChange.parse(JSON.parse(body)));
}

export interface InstanceService {
  /** The group's current set, encoded (undefined when the scene has no such group). */
  read(sceneId: string, groupId: string): Promise<{ bytes: Uint8Array; revision: number } | undefined>;
  /** The current set, for the server's own use (duplicate, host API). */
  current(sceneId: string, groupId: string): Promise<LiveInstanceSet | undefined>;
  /** Applies validated changes in order; idempotent by change uuid. */
  apply(sceneId: string, changes: readonly InstanceChange[], userId: string | null): Promise<Omit<ApplyInstanceChangesResponse, 'sceneId'>>;
  /** Replaces a group's instances (a putObject with matrices, a generated demo, a copy). */
  replace(sceneId: string, groupId: string, set: Omit<InstanceSet, 'revision'>): Promise<number>;
  remove(sceneId: string, groupId: string): Promise<void>;
}

export function createInstanceService(store: Store): InstanceService {
  const cache = new Map<string, LiveInstanceSet>();
  const key = (sceneId: string, groupId: string) => `${sceneId}/${groupId}`;

  function remember(k: string, set: LiveInstanceSet): void {
    cache.delete(k);
    cache.set(k, set);
    let total = 0;
    for (const s of cache.values()) total += s.count;
    for (const [other, s] of cache) {
      if (total <= CACHE_INSTANCES || other === k) break;
      cache.delete(other);
      total -= s.count;
    }
  }

  async function current(sceneId: string, groupId: string): Promise<LiveInstanceSet | undefined> {
    const k = key(sceneId, groupId);
    const record = await store.instanceGroupRevision(sceneId, groupId);
    if (!record) {
      cache.delete(k);
      return undefined;
    }
    let set = cache.get(k);
    if (set && set.revision === record.revision) {
      remember(k, set);
      return set;
    }
    if (!set || set.revision < record.baseRevision || set.revision > record.revision) {
      const full = await store.getInstanceGroup(sceneId, groupId);
      if (!full) {
        cache.delete(k);
        return undefined;
      }
      set = new LiveInstanceSet(decodeInstanceSet(full.base));
      if (set.revision !== full.baseRevision) set.revision = full.baseRevision;
    }
    if (set.revision < record.revision) {
      const rows: InstanceLogRow[] = await store.listInstanceChanges(sceneId, groupId, set.revision);
      for (const row of rows) set.apply(InstanceChange.parse(JSON.parse(row.body)), row.revision);
    }
    remember(k, set);
    return set;
  }

  async function replace(sceneId: string, groupId: string, input: Omit<InstanceSet, 'revision'>): Promise<number> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await store.instanceGroupRevision(sceneId, groupId);
      const revision = (record?.revision ?? 0) + 1;
      // Ids are never given twice in a group: a replacement's nextId is at least the old one.
      const old = record ? await current(sceneId, groupId) : undefined;
      const set = new LiveInstanceSet({ ...input, nextId: Math.max(input.nextId, old?.nextId ?? 0), revision });
      const bytes = set.encode();
      if (await store.commitInstances(sceneId, groupId, record?.revision ?? null, { revision, rows: [], base: { revision, bytes } })) {
        remember(key(sceneId, groupId), set);
        return revision;
      }
    }
    throw new InstanceChangeError(503, `Instanced group '${groupId}' is changing too fast to replace; try again`);
  }

  return {
    current,

    async read(sceneId, groupId) {
      const set = await current(sceneId, groupId);
      return set && { bytes: set.encode(), revision: set.revision };
    },

    replace,

    async remove(sceneId, groupId) {
      cache.delete(key(sceneId, groupId));
      await store.deleteInstanceGroup(sceneId, groupId);
    },

    async apply(sceneId, changes, userId) {
      // Repeated changes (a retried request) are skipped, as long as they are the same change.
      const known = await store.knownInstanceChanges(
        sceneId,
        changes.map((c) => c.uuid),
      );
      const applied: string[] = [];
      const skipped: string[] = [];
      const byGroup = new Map<string, { change: InstanceChange; index: number }[]>();
      const inBatch = new Map<string, string>();
      changes.forEach((change, index) => {
        const body = JSON.stringify(change);
        const stored = known.get(change.uuid);
        if (stored) {
          if (stored.groupId !== change.groupId || canonical(stored.body) !== canonical(body)) {
            throw new InstanceChangeError(409, `changes[${index}].uuid: change ${change.uuid} was already saved with different content; a changed edit needs a new uuid`);
          }
          skipped.push(change.uuid);
          return;
        }
        const earlier = inBatch.get(change.uuid);
        if (earlier !== undefined) {
          if (earlier !== body) throw new InstanceChangeError(409, `changes[${index}].uuid: ${change.uuid} repeats an earlier change of the request with different content`);
          skipped.push(change.uuid);
          return;
        }
        inBatch.set(change.uuid, body);
        const list = byGroup.get(change.groupId);
        if (list) list.push({ change, index });
        else byGroup.set(change.groupId, [{ change, index }]);
      });
      const groups: ApplyInstanceChangesResponse['groups'] = {};
      for (const [groupId, list] of byGroup) {
        let done = false;
        for (let attempt = 0; attempt < MAX_ATTEMPTS && !done; attempt++) {
          if (attempt > 0) {
            // The same request, retried by the client while this one was in flight, may have
            // stored some of these changes meanwhile: those are skipped now.
            const stored = await store.knownInstanceChanges(sceneId, list.map(({ change }) => change.uuid));
            for (let i = list.length - 1; i >= 0; i--) {
              if (!stored.has(list[i]!.change.uuid)) continue;
              skipped.push(list[i]!.change.uuid);
              list.splice(i, 1);
            }
            if (list.length === 0) break;
          }
          const set = await current(sceneId, groupId);
          if (!set) throw new InstanceChangeError(404, `changes[${list[0]!.index}]: Instanced group '${groupId}' not found in scene '${sceneId}'`);
          checkChanges(set, list);
          const start = set.revision;
          const rows = list.map(({ change }, i) => ({ revision: start + 1 + i, uuid: change.uuid, body: JSON.stringify(change) }));
          const revision = start + list.length;
          const record = await store.instanceGroupRevision(sceneId, groupId);
          const fold = record !== undefined && revision - record.baseRevision >= FOLD_AFTER;
          let base: { revision: number; bytes: Uint8Array } | undefined;
          if (fold) {
            // Fold on a copy: the cached set changes only once the commit is in.
            const next = new LiveInstanceSet({ ...set.snapshot(), ids: set.ids.slice(0, set.count), matrices: set.matrices.slice(0, set.count * FLOATS_PER_INSTANCE) });
            list.forEach(({ change }, i) => next.apply(change, start + 1 + i));
            base = { revision, bytes: next.encode() };
          }
          let committed: boolean;
          try {
            committed = await store.commitInstances(sceneId, groupId, start, { revision, rows, base, userId });
          } catch (error) {
            // A change uuid stored by a concurrent copy of this request: read again and skip it.
            const code = (error as { code?: string }).code ?? '';
            if (code === '23505' || code.startsWith('SQLITE_CONSTRAINT')) continue;
            throw error;
          }
          if (committed) {
            list.forEach(({ change }, i) => set.apply(change, start + 1 + i));
            groups[groupId] = { revision: set.revision, nextId: set.nextId, count: set.count };
            for (const { change } of list) applied.push(change.uuid);
            done = true;
          }
        }
        if (!done && list.length > 0) throw new InstanceChangeError(503, `Instanced group '${groupId}' is changing too fast; try again`);
      }
      return { applied, skipped, groups };
    },
  };
}

/** An instance set from the spec's inline shape (16-number matrices, ids 0..n-1). */
export function setFromMatrices(matrices: readonly (readonly number[])[]): Omit<InstanceSet, 'revision'> {
  const ids = new Uint32Array(matrices.length);
  const packed = new Float32Array(matrices.length * FLOATS_PER_INSTANCE);
  matrices.forEach((m, i) => {
    ids[i] = i;
    packMatrix(m, packed, i);
  });
  return { ids, matrices: packed, nextId: matrices.length };
}
