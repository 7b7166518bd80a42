import { z } from 'zod';

/**
 * The body of a request that applies a batch of changes, `{ "changes": [...] }`: the shape and the
 * error messages that POST /v1/scenes/{id}/object-changes (src/protocol/scene-objects.ts) and
 * /instance-changes (src/protocol/instance-changes.ts) share.
 */

/** The list of changes: at least one, at most `max`. */
export function changeList<T extends z.ZodType>(change: T, max: number) {
  return z
    .array(change, { error: 'changes must be a list' })
    .min(1, { error: 'changes must not be empty' })
    .max(max, { error: `changes: at most ${max} per request` });
}

/** The request body around the list: no other field. */
export function changesBody<L extends z.ZodType>(changes: L) {
  return z.strictObject(
    { changes },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}` : 'the body must be { "changes": [...] }') },
  );
}
