import { MaterialProperties, MAX_MUTATIONS_PER_BATCH, NodeProperties, type Mutation } from '../protocol/mutation';
import { ERR_MATERIAL_ID, ERR_MISSING_MODEL_ID, ERR_MODEL_ID, ERR_NODE_ID } from '../protocol/editor';
import type { InstanceChange } from '../protocol/instance-changes';
import type { SceneObjectChange } from '../protocol/scene-objects';

/**
 * The unsaved edits, one queue per model (editor specification sections 4 and 5). A new mutation
 * with the same key as the last one of its model's queue replaces it (a drag saved as one matrix,
 * a slider as its last value), unless that one is being sent: a mutation on the wire is never
 * changed. Only the listed node and material properties make mutations; others are dropped here
 * and never reach the server. A successful save removes exactly what it sent, so edits made
 * while it was in flight stay queued.
 */

/** The '@settings' queue's one entry: the whole scene settings (PATCH viewer-config sends `properties`). */
export interface SettingsChange {
  key: 'settings';
  uuid: string;
  createdAt: number;
  type: 'setSettings';
  properties: Record<string, unknown>;
}

/** What a queue holds: a model's mutations, or the scene's object changes, instance changes or settings (src/editor/saver.ts sends each to its route). */
export type QueuedEdit = Mutation | SceneObjectChange | (InstanceChange & { key: string }) | SettingsChange;

export type NodePropertyName = keyof NodeProperties;
export type MaterialPropertyName = keyof MaterialProperties;

const NODE_KEYS = new Set<string>(Object.keys(NodeProperties.shape));
const MATERIAL_KEYS = new Set<string>(Object.keys(MaterialProperties.shape));

/** The listed properties of `properties` (others are ignored, as the specification says). */
export function pickListed(kind: 'node' | 'material', properties: Record<string, unknown>): Record<string, unknown> {
  const keys = kind === 'node' ? NODE_KEYS : MATERIAL_KEYS;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) if (keys.has(key) && properties[key] !== undefined) out[key] = properties[key];
  return out;
}

/**
 * Why the server would refuse these properties (a name longer than the protocol allows, a number
 * that is not finite, ...), or null when they are valid: checked before queuing, so a refused
 * edit is told at once and never queued.
 */
export function propertiesProblem(kind: 'node' | 'material', properties: Record<string, unknown>): string | null {
  const parsed = (kind === 'node' ? NodeProperties : MaterialProperties).safeParse(pickListed(kind, properties));
  if (parsed.success) return null;
  return parsed.error.issues.map((i) => (i.path.length && !i.message.startsWith(String(i.path[0])) ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

let counter = 0;
/** A mutation uuid: unique per edit (saving is idempotent by it). */
export function newUuid(): string {
  const random = globalThis.crypto?.randomUUID?.().replace(/-/g, '') ?? Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  return `${random.slice(0, 24)}${(counter++ % 1296).toString(36).padStart(2, '0')}`;
}

/**
 * An updateNode mutation; throws the specification's 'modelId undefined.' / 'nodeId undefined.'.
 * Returns null when no listed property is left (nothing to save).
 */
export function nodeMutation(modelId: string | undefined, nodeId: string | undefined, properties: Record<string, unknown>, now = Date.now()): (Mutation & { modelId: string }) | null {
  if (!modelId) throw new Error(ERR_MODEL_ID);
  if (!nodeId) throw new Error(ERR_NODE_ID);
  const problem = propertiesProblem('node', properties);
  if (problem) throw new Error(`The edit was not made: ${problem}`);
  const listed = pickListed('node', properties);
  const keys = Object.keys(listed).sort();
  if (keys.length === 0) return null;
  return { modelId, key: `node/${nodeId}/${keys.join(',')}`, uuid: newUuid(), createdAt: now, type: 'updateNode', nodeId, properties: listed as NodeProperties };
}

/** An updateMaterial mutation; throws 'modelId undefined.' / 'materialId undefined.'. */
export function materialMutation(modelId: string | undefined, materialId: string | undefined, properties: Record<string, unknown>, now = Date.now()): (Mutation & { modelId: string }) | null {
  if (!modelId) throw new Error(ERR_MODEL_ID);
  if (!materialId) throw new Error(ERR_MATERIAL_ID);
  const problem = propertiesProblem('material', properties);
  if (problem) throw new Error(`The edit was not made: ${problem}`);
  const listed = pickListed('material', properties);
  const keys = Object.keys(listed).sort();
  if (keys.length === 0) return null;
  return { modelId, key: `material/${materialId}/${keys.join(',')}`, uuid: newUuid(), createdAt: now, type: 'updateMaterial', materialId, properties: listed as MaterialProperties };
}

export type QueueSnapshot = Record<string, QueuedEdit[]>;

export class MutationQueues {
  private readonly queues = new Map<string, QueuedEdit[]>();
  /** uuids being sent: never replaced, removed when their save succeeds. */
  private readonly inFlight = new Set<string>();
  private readonly listeners = new Set<() => void>();

  /** Queues a mutation of a model; throws 'Missing model ID in mutation.' without a model id. */
  add(modelId: string | undefined | null, mutation: QueuedEdit): void {
    if (!modelId) throw new Error(ERR_MISSING_MODEL_ID);
    const clean = stripModelId(mutation);
    let queue = this.queues.get(modelId);
    if (!queue) this.queues.set(modelId, (queue = []));
    const last = queue[queue.length - 1];
    if (last && last.key === clean.key && !this.inFlight.has(last.uuid)) queue[queue.length - 1] = clean;
    else queue.push(clean);
    this.changed();
  }

  /** The models with queued mutations. */
  models(): string[] {
    return [...this.queues.keys()].filter((id) => (this.queues.get(id)?.length ?? 0) > 0);
  }

  pending(modelId: string): readonly QueuedEdit[] {
    return this.queues.get(modelId) ?? [];
  }

  get size(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** The next batch of a model to send (at most the server's batch limit), marked in flight. */
  takeBatch(modelId: string, max = MAX_MUTATIONS_PER_BATCH): QueuedEdit[] {
    const batch = (this.queues.get(modelId) ?? []).slice(0, max);
    for (const m of batch) this.inFlight.add(m.uuid);
    return batch;
  }

  /** The batch was stored (or refused for good): its mutations leave the queue. */
  remove(modelId: string, uuids: Iterable<string>): void {
    const gone = new Set(uuids);
    for (const uuid of gone) this.inFlight.delete(uuid);
    const queue = this.queues.get(modelId);
    if (!queue) return;
    const kept = queue.filter((m) => !gone.has(m.uuid));
    if (kept.length === 0) this.queues.delete(modelId);
    else this.queues.set(modelId, kept);
    this.changed();
  }

  /** The batch was not stored (network, server error): it stays queued, replaceable again. */
  release(uuids: Iterable<string>): void {
    for (const uuid of uuids) this.inFlight.delete(uuid);
  }

  snapshot(): QueueSnapshot {
    const out: QueueSnapshot = {};
    for (const [id, queue] of this.queues) if (queue.length) out[id] = queue.map((m) => ({ ...m }));
    return out;
  }

  /**
   * Queues the mutations of a snapshot (old unsaved edits restored after a reload) BEFORE what is
   * queued now: they are older. One with the same key as a queued (newer) mutation, or already
   * queued, is dropped, so an old edit never replaces a newer one. Returns what was queued.
   */
  restore(snapshot: QueueSnapshot): QueueSnapshot {
    const restored: QueueSnapshot = {};
    for (const [modelId, list] of Object.entries(snapshot)) {
      if (!modelId) throw new Error(ERR_MISSING_MODEL_ID);
      const queue = this.queues.get(modelId) ?? [];
      const newer = new Set(queue.flatMap((m) => [m.key, m.uuid]));
      const older = list.map(stripModelId).filter((m) => !newer.has(m.key) && !newer.has(m.uuid));
      if (older.length === 0) continue;
      this.queues.set(modelId, [...older, ...queue]);
      restored[modelId] = older;
    }
    this.changed();
    return restored;
  }

  clear(): void {
    this.queues.clear();
    this.inFlight.clear();
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function stripModelId(mutation: QueuedEdit & { modelId?: string }): QueuedEdit {
  if (!('modelId' in mutation)) return mutation;
  const { modelId: _modelId, ...rest } = mutation;
  return rest as QueuedEdit;
}
