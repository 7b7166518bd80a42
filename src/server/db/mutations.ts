import { Mutation, type SavedMutation } from '../../protocol/mutation.ts';
import { StoreError } from './common.ts';

/**
 * The rules of apply-mutations both adapters share. PostgreSQL looks up the uuids of a batch in
 * one query and plans the batch with planBatch; SQLite (in-process, no round trips) inserts each
 * mutation with ON CONFLICT DO NOTHING and looks up only the ones that were there already, with
 * the same comparison (sameMutation) and the same conflict error.
 */

export interface MutationRow {
  seq: number;
  uuid: string;
  type: Mutation['type'];
  targetId: string;
  /** The mutation as validated (unknown properties dropped), JSON. */
  body: string;
}

export interface BatchPlan {
  rows: MutationRow[];
  saved: SavedMutation[];
  lastSeq: number;
}

/** The same JSON for the same mutation: zod's output follows the schema's key order. */
export function canonical(mutation: Mutation): string {
  return JSON.stringify(Mutation.parse(mutation));
}

export function targetId(mutation: Mutation): string {
  return mutation.type === 'updateNode' ? mutation.nodeId : mutation.materialId;
}

/** True when a stored mutation (JSON text or parsed) is the same edit as `mutation`. */
export function sameMutation(stored: unknown, mutation: Mutation, body = JSON.stringify(mutation)): boolean {
  if (stored === body) return true;
  const parsed = typeof stored === 'string' ? JSON.parse(stored) : stored;
  return canonical(parsed as Mutation) === canonical(mutation);
}

export function conflictError(index: number, uuid: string, seq: number): StoreError {
  return new StoreError('CONFLICT', `mutations[${index}].uuid: mutation ${uuid} was already saved (seq ${seq}) with different content; a changed edit needs a new uuid`);
}

/**
 * `existing`: uuid -> the stored seq and body (JSON text or a parsed object) of mutations of this
 * batch that the model's log already holds. Throws StoreError CONFLICT when a uuid comes back with
 * different content (in the log or earlier in the same batch).
 */
export function planBatch(
  lastSeq: number,
  mutations: readonly Mutation[],
  existing: ReadonlyMap<string, { seq: number; body: unknown }>,
): BatchPlan {
  const rows: MutationRow[] = [];
  const saved: SavedMutation[] = [];
  const inBatch = new Map<string, { seq: number; body: string; index: number }>();
  let seq = lastSeq;
  mutations.forEach((mutation, index) => {
    const body = JSON.stringify(mutation);
    const stored = existing.get(mutation.uuid);
    if (stored) {
      if (!sameMutation(stored.body, mutation, body)) throw conflictError(index, mutation.uuid, stored.seq);
      saved.push({ uuid: mutation.uuid, seq: stored.seq });
      return;
    }
    const earlier = inBatch.get(mutation.uuid);
    if (earlier) {
      if (earlier.body !== body) {
        throw new StoreError('CONFLICT', `mutations[${index}].uuid: ${mutation.uuid} repeats mutations[${earlier.index}] with different content`);
      }
      saved.push({ uuid: mutation.uuid, seq: earlier.seq });
      return;
    }
    seq += 1;
    inBatch.set(mutation.uuid, { seq, body, index });
    rows.push({ seq, uuid: mutation.uuid, type: mutation.type, targetId: targetId(mutation), body });
    saved.push({ uuid: mutation.uuid, seq });
  });
  return { rows, saved, lastSeq: seq };
}
