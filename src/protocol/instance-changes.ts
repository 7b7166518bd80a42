import { z } from 'zod';
import { changeList, changesBody } from './change-batch.ts';
import { FLOATS_PER_INSTANCE, MAX_INSTANCE_CHANGES_PER_BATCH, MAX_INSTANCES_PER_REQUEST } from './instances.ts';

/**
 * The changes of a group's instances (src/protocol/instances.ts), as the editor sends them and the
 * model service checks them: POST /v1/scenes/{sceneId}/instance-changes. A module of their own:
 * the viewer never parses them, and building their schemas took 10 to 30 ms of a weak device's
 * main thread when the viewer's code was evaluated (bench/LOAD-PROFILE.md).
 */

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const objectId = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} undefined.` : `${field} must be a string`) }).regex(ID, { error: `${field} must be 1-100 characters of A-Z a-z 0-9 _ -` });
const instanceIds = z
  .array(z.number().int({ error: 'ids must be whole numbers' }).min(0, { error: 'ids must not be negative' }).max(0xffffffff, { error: 'ids must fit in 32 bits' }), { error: 'ids must be a list of instance ids' })
  .min(1, { error: 'ids must not be empty' });
const floats = z.array(z.number().refine(Number.isFinite, { error: 'matrices must hold finite numbers' }), { error: 'matrices must be a list of numbers' });

const base = {
  /** The editor's queue key (a later change of the same key replaces a queued one); not used by the server. */
  key: z.string().max(300).optional(),
  uuid: objectId('uuid'),
  createdAt: z.number().int().nonnegative(),
  groupId: objectId('groupId'),
};

export const InstanceChange = z
  .discriminatedUnion(
    'type',
    [
      /** Moves instances: `matrices` holds FLOATS_PER_INSTANCE floats per id, in the order of ids. */
      z.strictObject({ ...base, type: z.literal('setInstances'), ids: instanceIds, matrices: floats }),
      /** Adds instances with new ids (at or above the group's nextId before the change). */
      z.strictObject({ ...base, type: z.literal('addInstances'), ids: instanceIds, matrices: floats }),
      z.strictObject({ ...base, type: z.literal('removeInstances'), ids: instanceIds }),
    ],
    { error: "type must be 'setInstances', 'addInstances' or 'removeInstances'" },
  )
  .superRefine((change, ctx) => {
    if (change.type !== 'removeInstances' && change.matrices.length !== change.ids.length * FLOATS_PER_INSTANCE) {
      ctx.addIssue({ code: 'custom', path: ['matrices'], message: `matrices must hold ${FLOATS_PER_INSTANCE} numbers per id (${change.ids.length * FLOATS_PER_INSTANCE}), not ${change.matrices.length}` });
    }
    if (new Set(change.ids).size !== change.ids.length) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'ids must not repeat within a change' });
  });
export type InstanceChange = z.infer<typeof InstanceChange>;

export const ApplyInstanceChangesRequest = changesBody(
  changeList(InstanceChange, MAX_INSTANCE_CHANGES_PER_BATCH).refine((changes) => changes.reduce((n, c) => n + c.ids.length, 0) <= MAX_INSTANCES_PER_REQUEST, {
    error: `changes: at most ${MAX_INSTANCES_PER_REQUEST} instances per request`,
  }),
);
export type ApplyInstanceChangesRequest = z.infer<typeof ApplyInstanceChangesRequest>;

export interface ApplyInstanceChangesResponse {
  sceneId: string;
  applied: string[];
  skipped: string[];
  /** Each changed group's revision and nextId after the request. */
  groups: Record<string, { revision: number; nextId: number; count: number }>;
}
