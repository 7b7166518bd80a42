import { z } from 'zod';
import { MAX_MEASUREMENT_POINTS } from './comments';
import { AVATAR_UPDATE_INTERVAL_MS, MEETING_MAX_FRAME_BYTES, Vec3 } from './meeting';

/**
 * The shared tools of a meeting (issue 14, item 7): section planes and finished measurements made
 * in a meeting are the meeting's, and each person's editor selection is shown to the others. All
 * travel as RFCs on registered objects (viewer specification section 7; DESIGN.md 4.2), whose
 * `args[0]` the server sets to the sender's client id. Browser and tests import this one module.
 *
 * - `tools.handleToolChanges(clientId, changes)`: puts (a plane's pose, a measurement's points,
 *   whole: creating and editing are the same message) and deletes, batched per 50 ms.
 * - `tools.handleToolStateRequest(clientId, responderId)`: a newcomer asks one participant for
 *   the whole set; `tools.handleToolState(clientId, requesterId, part)` answers in parts.
 * - `selection.handleSelection(clientId, selection | null)`: what a person has selected.
 *
 * Every shared object has an id made by its creator (`{creator's client id}:{counter}`), the same
 * for everyone, and a revision: a put replaces the object when its (rev, writer) is greater than
 * the one held, so two people editing at once end with the same result everywhere; a delete wins.
 */

/** The registered object of shared section planes and measurements, and its functions. */
export const TOOLS_OBJECT = 'tools';
export const TOOL_CHANGES_FUNCTION = 'handleToolChanges';
export const TOOL_STATE_REQUEST_FUNCTION = 'handleToolStateRequest';
export const TOOL_STATE_FUNCTION = 'handleToolState';
/** The registered object of the editors' selections, and its function. */
export const SELECTION_OBJECT = 'selection';
export const SELECTION_FUNCTION = 'handleSelection';

/** Changes go out at most this often (a dragged plane or point), like the avatars' poses; the last state always goes. */
export const SHARED_TOOLS_INTERVAL_MS = AVATAR_UPDATE_INTERVAL_MS;
/** A newcomer waits this long for the state before asking the next participant. */
export const TOOL_STATE_TIMEOUT_MS = 3000;
/** One RFC of changes or of the state stays under this many bytes of JSON (the server closes a frame over 64 KiB). */
export const SHARED_TOOLS_MAX_MESSAGE_BYTES = Math.floor(MEETING_MAX_FRAME_BYTES * 0.75);
/** Most changes in one RFC. */
export const MAX_TOOL_CHANGES = 256;
/** Most instance ids one shared selection carries (a larger selection is shown by these). */
export const MAX_SHARED_SELECTION_IDS = 256;

/** `{creator's client id}:{creator's counter}`. */
export const SharedObjectId = z
  .string({ error: 'an id must be a string' })
  .max(140, { error: 'an id is at most 140 characters' })
  .regex(/^[^:\s]{1,100}:[0-9]{1,9}$/, { error: "an id must be '{client id}:{counter}'" });

const Revision = z.number({ error: 'rev must be a number' }).int({ error: 'rev must be a whole number' }).min(1).max(Number.MAX_SAFE_INTEGER);

/** A unit quaternion [x, y, z, w] (within 1e-3 of length 1). */
export const Quaternion = z
  .tuple([z.number().finite(), z.number().finite(), z.number().finite(), z.number().finite()], { error: 'rotation must be [x, y, z, w] of finite numbers' })
  .refine((q) => Math.abs(Math.hypot(q[0], q[1], q[2], q[3]) - 1) < 1e-3, { error: 'rotation must be a unit quaternion' });

/**
 * A section plane's pose: a point of the plane (the centre of its square) and the rotation that
 * turns +Z onto its normal (the kept side is where normal . p + constant >= 0).
 */
export const SharedSection = z.object({ position: Vec3, rotation: Quaternion });
export type SharedSection = z.infer<typeof SharedSection>;

/** A finished measurement: 2 points for a length, 3 for an angle (vertex in the middle), 3 or more for an area. */
export const SharedMeasurement = z
  .object({
    kind: z.enum(['length', 'area', 'angle']),
    points: z.array(Vec3).min(2).max(MAX_MEASUREMENT_POINTS),
  })
  .superRefine((m, ctx) => {
    const ok = m.kind === 'length' ? m.points.length === 2 : m.kind === 'angle' ? m.points.length === 3 : m.points.length >= 3;
    if (!ok) ctx.addIssue({ code: 'custom', path: ['points'], message: `a ${m.kind} measurement needs ${m.kind === 'length' ? '2' : m.kind === 'angle' ? '3' : 'at least 3'} points, got ${m.points.length}` });
  });
export type SharedMeasurement = z.infer<typeof SharedMeasurement>;

/** One change: a plane or a measurement put whole (created or edited), or an object deleted. */
export const ToolChange = z.discriminatedUnion('op', [
  z.object({ op: z.literal('section'), id: SharedObjectId, rev: Revision, section: SharedSection }),
  z.object({ op: z.literal('measurement'), id: SharedObjectId, rev: Revision, measurement: SharedMeasurement }),
  z.object({ op: z.literal('delete'), id: SharedObjectId }),
]);
export type ToolChange = z.infer<typeof ToolChange>;
export type ToolPut = Exclude<ToolChange, { op: 'delete' }>;

const ClientId = z.string({ error: 'the client id must be a string' }).min(1).max(100);

/** handleToolChanges(client id, changes). */
export const ToolChangesArgs = z.tuple([ClientId, z.array(ToolChange).min(1).max(MAX_TOOL_CHANGES)]);
/** handleToolStateRequest(client id, responder id): the named participant answers. */
export const ToolStateRequestArgs = z.tuple([ClientId, ClientId]);

/** An object of the state: a put and who wrote its revision (for the tie between equal revisions). */
export const ToolStateObject = z.union([
  z.object({ op: z.literal('section'), id: SharedObjectId, rev: Revision, writer: ClientId, section: SharedSection }),
  z.object({ op: z.literal('measurement'), id: SharedObjectId, rev: Revision, writer: ClientId, measurement: SharedMeasurement }),
]);
export type ToolStateObject = z.infer<typeof ToolStateObject>;

/** One part of the answer; the requester holds the whole set after the part with `last`. */
export const ToolStatePart = z.object({
  objects: z.array(ToolStateObject).max(MAX_TOOL_CHANGES),
  last: z.boolean(),
});
export type ToolStatePart = z.infer<typeof ToolStatePart>;
/** handleToolState(client id, requester id, part). */
export const ToolStateArgs = z.tuple([ClientId, ClientId, ToolStatePart]);

/** What a person has selected in the editor (by stable ids), or null for nothing. */
export const SharedSelection = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('node'), modelId: z.string().min(1).max(200), nodeId: z.string().min(1).max(200).nullable() }),
    z.object({ kind: z.literal('object'), uuid: z.string().min(1).max(200) }),
    z.object({
      kind: z.literal('instances'),
      groupId: z.string().min(1).max(200),
      ids: z.array(z.number().int().min(0).max(0xfffffffe)).min(1).max(MAX_SHARED_SELECTION_IDS),
      /** How many are selected (more than `ids` holds when the selection is large). */
      count: z.number().int().min(1),
    }),
  ])
  .nullable();
export type SharedSelection = z.infer<typeof SharedSelection>;
/** handleSelection(client id, selection). */
export const SelectionArgs = z.tuple([ClientId, SharedSelection]);

/** The first issue of a zod error as 'args[1][0].section.rotation: message' (the path in the RFC's args). */
export function describeArgsError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  let path = 'args';
  for (const part of issue.path) path += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return `${path}: ${issue.message}`;
}
