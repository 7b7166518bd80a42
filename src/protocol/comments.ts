import { z } from 'zod';
import { MAX_MEASUREMENT_POINTS, MeasurementInfo, PROJECTION_NAMES, type AnnotationInfo } from './host-api.ts';
import { Vec3, ViewState } from './meeting.ts';

/**
 * Comments pinned to 3D points (editor specification section 3, "Comment anchor"; issue 16): a
 * thread (text, author, time, status, replies) with its anchor and the whole view it was made in.
 * Stored by the model service next to the scene:
 *
 *   GET    /v1/scenes/{id}/comments                              -> CommentList
 *   POST   /v1/scenes/{id}/comments                              CreateCommentRequest -> 201 CommentThread
 *   GET    /v1/scenes/{id}/comments/{commentId}                  -> CommentThread
 *   PATCH  /v1/scenes/{id}/comments/{commentId}                  UpdateCommentRequest -> CommentThread
 *   DELETE /v1/scenes/{id}/comments/{commentId}                  -> 204
 *   POST   /v1/scenes/{id}/comments/{commentId}/replies          CreateReplyRequest -> 201 CommentThread
 *   PATCH  /v1/scenes/{id}/comments/{commentId}/replies/{replyId} UpdateReplyRequest -> CommentThread
 *   DELETE /v1/scenes/{id}/comments/{commentId}/replies/{replyId} -> CommentThread
 *
 * Who may: whoever reads the scene reads its comments; signed-in readers comment unless the owner
 * turned comments off (the scene's `commentsEnabled`, PATCH /v1/scenes/{id}); one edits and deletes
 * one's own thread or reply; the scene's owner deletes any; the thread's author and the scene's
 * owner and editors resolve and reopen.
 *
 * The BCF module (issue 16, item 4) maps to and from these shapes: keep the names stable.
 */

// ---- limits ------------------------------------------------------------------------------------

/** Longest comment or reply text. */
export const MAX_COMMENT_TEXT = 10_000;
/** Longest thread title. */
export const MAX_COMMENT_TITLE = 200;
/** Most threads one scene keeps. */
export const MAX_COMMENTS_PER_SCENE = 10_000;
/** Most replies one thread keeps. */
export const MAX_REPLIES = 500;
/** Most section planes / measurements a comment's view keeps. */
export const MAX_VIEW_SECTIONS = 64;
export const MAX_VIEW_MEASUREMENTS = 64;
/** Most points of one measurement in a view (the host API's limit, named there). */
export { MAX_MEASUREMENT_POINTS } from './host-api.ts';

/** The comment tool's cursor (editor specification sections 2 and 7), made by scripts/assets/comment-cursor.ts; its hot spot is the bubble's tail. */
export const COMMENT_CURSOR_URL = '/assets/images/comment-cursor-4.png';
export const COMMENT_CURSOR_HOTSPOT = [1, 31] as const;

export const COMMENT_STATUSES = ['open', 'resolved'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

// ---- pieces ------------------------------------------------------------------------------------

/** Ids the service makes (newId) and the ones a client may propose for an anchor. */
export const CommentId = z
  .string({ error: 'an id must be a string' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'an id must be 1-64 characters of A-Z a-z 0-9 _ -' });

const vec3 = (name: string) =>
  z.tuple([z.number().finite(), z.number().finite(), z.number().finite()], { error: `${name} must be [x, y, z] of finite numbers` });

/**
 * The comment anchor of the specification: `position` is the pinned point in world space (where
 * the pin is drawn), `target` the camera's orbit target and `direction` the camera's unit viewing
 * direction (eye -> target) when the comment was made.
 */
export const CommentAnchor = z.object({
  _id: CommentId,
  position: vec3('anchor.position'),
  target: vec3('anchor.target'),
  direction: vec3('anchor.direction'),
});
export type CommentAnchor = z.infer<typeof CommentAnchor>;

/** The specification's session user, flattened: the token's subject and the name it carries. */
export const CommentAuthor = z.object({
  _id: z.string().min(1).max(256),
  firstName: z.string().max(100),
  lastName: z.string().max(100),
});
export type CommentAuthor = z.infer<typeof CommentAuthor>;

/** A section plane as the meeting's view state carries it: kept side where normal . p + constant >= 0. */
export const CommentSectionPlane = ViewState.shape.sections.element;
export type CommentSectionPlane = z.infer<typeof CommentSectionPlane>;

/** A measurement as the host API lists it, without the values derived from its points. */
export const CommentMeasurement = z.object({
  kind: MeasurementInfo.shape.kind,
  points: z.array(Vec3).min(2).max(MAX_MEASUREMENT_POINTS),
});
export type CommentMeasurement = z.infer<typeof CommentMeasurement>;

/**
 * The view a comment was made in; opening the comment restores it. The camera: eye `position`,
 * orbit `target`, `up`; `projection` with `fov` (vertical degrees, perspective) or `orthoHeight`
 * (world units seen from the bottom to the top of the view, orthographic); both are kept so a
 * view opens in either projection. The section planes and measurements present then.
 */
export const CommentView = z.object({
  projection: z.enum(PROJECTION_NAMES),
  position: vec3('view.position'),
  target: vec3('view.target'),
  up: vec3('view.up'),
  fov: z.number().finite().gt(0).lt(180),
  orthoHeight: z.number().finite().positive(),
  sections: z.array(CommentSectionPlane).max(MAX_VIEW_SECTIONS),
  measurements: z.array(CommentMeasurement).max(MAX_VIEW_MEASUREMENTS),
});
export type CommentView = z.infer<typeof CommentView>;

const Time = z.iso.datetime({ error: 'a time must be an ISO 8601 date-time (UTC)' });

export const CommentReply = z.object({
  _id: CommentId,
  author: CommentAuthor,
  text: z.string().min(1).max(MAX_COMMENT_TEXT),
  createdAt: Time,
  updatedAt: Time,
});
export type CommentReply = z.infer<typeof CommentReply>;

/** A thread as the service stores and returns it. */
export const CommentThread = z.object({
  _id: CommentId,
  sceneId: z.string().min(1).max(64),
  anchor: CommentAnchor,
  view: CommentView,
  author: CommentAuthor,
  /** A short title (BCF's topic title, the host API's annotation title); may be empty. */
  title: z.string().max(MAX_COMMENT_TITLE),
  text: z.string().min(1).max(MAX_COMMENT_TEXT),
  status: z.enum(COMMENT_STATUSES),
  createdAt: Time,
  updatedAt: Time,
  /** Set while resolved: who resolved it and when. */
  resolvedAt: Time.optional(),
  resolvedBy: CommentAuthor.optional(),
  replies: z.array(CommentReply).max(MAX_REPLIES),
});
export type CommentThread = z.infer<typeof CommentThread>;

// ---- the anchor rule ---------------------------------------------------------------------------

/** Whether a stored or received comment has an anchor with all of position, target and direction. */
export function hasCompleteAnchor(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const anchor = (value as { anchor?: unknown }).anchor;
  if (typeof anchor !== 'object' || anchor === null) return false;
  const a = anchor as Record<string, unknown>;
  return a.position != null && a.target != null && a.direction != null;
}

/**
 * The comments to show (specification: comments lacking any of position, target and direction are
 * ignored). Those with a complete anchor that still fail the schema are dropped too, but counted in
 * `invalid` with the first reason, so a caller can say so rather than lose them silently.
 */
export function usableComments(values: readonly unknown[]): { comments: CommentThread[]; ignored: number; invalid: number; firstError?: string } {
  const comments: CommentThread[] = [];
  let ignored = 0;
  let invalid = 0;
  let firstError: string | undefined;
  for (const value of values) {
    if (!hasCompleteAnchor(value)) {
      ignored++;
      continue;
    }
    const parsed = CommentThread.safeParse(value);
    if (parsed.success) comments.push(parsed.data);
    else {
      invalid++;
      firstError ??= describeCommentError(parsed.error);
    }
  }
  return { comments, ignored, invalid, ...(firstError ? { firstError } : {}) };
}

function describeCommentError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'comment'}: ${issue.message}` : 'invalid';
}

// ---- REST bodies -------------------------------------------------------------------------------

const bodyError = (shape: string) => (issue: { code: string; keys?: readonly string[] }) =>
  issue.code === 'unrecognized_keys' ? `unknown field ${(issue.keys ?? []).map((k) => `'${k}'`).join(', ')}` : `the body must be a JSON object ${shape}`;

const text = z
  .string({ error: (issue) => (issue.input === undefined ? 'text undefined.' : 'text must be a string') })
  .trim()
  .min(1, { error: 'text must not be empty' })
  .max(MAX_COMMENT_TEXT, { error: `text must be at most ${MAX_COMMENT_TEXT} characters` });
const title = z
  .string({ error: 'title must be a string' })
  .trim()
  .max(MAX_COMMENT_TITLE, { error: `title must be at most ${MAX_COMMENT_TITLE} characters` });

/** POST /v1/scenes/{id}/comments: the anchor's _id is made by the service when absent. */
export const CreateCommentRequest = z.strictObject(
  {
    anchor: CommentAnchor.extend({ _id: CommentId.optional() }),
    view: CommentView,
    text,
    title: title.optional(),
  },
  { error: bodyError('{ anchor, view, text, title? }') },
);
export type CreateCommentRequest = z.infer<typeof CreateCommentRequest>;

/**
 * PATCH /v1/scenes/{id}/comments/{commentId}: text, title, anchor and view by the author (the
 * anchor keeps its _id: a moved pin is the same anchor); status by the author, owner and editors.
 */
export const UpdateCommentRequest = z.strictObject(
  {
    text: text.optional(),
    title: title.optional(),
    status: z.enum(COMMENT_STATUSES, { error: "status must be 'open' or 'resolved'" }).optional(),
    anchor: CommentAnchor.omit({ _id: true }).optional(),
    view: CommentView.optional(),
  },
  { error: bodyError('{ text?, title?, status?, anchor?, view? }') },
);
export type UpdateCommentRequest = z.infer<typeof UpdateCommentRequest>;

/** POST .../replies and PATCH .../replies/{replyId}. */
export const CreateReplyRequest = z.strictObject({ text }, { error: bodyError('{ text }') });
export type CreateReplyRequest = z.infer<typeof CreateReplyRequest>;
export const UpdateReplyRequest = CreateReplyRequest;
export type UpdateReplyRequest = CreateReplyRequest;

/** GET /v1/scenes/{id}/comments: the threads (oldest first) and what the asking user may do. */
export const CommentList = z.object({
  comments: z.array(CommentThread),
  /** The owner's switch: false when comments are turned off for the scene. */
  commentsEnabled: z.boolean(),
  /** Whether the asking user may start threads and reply (signed in, may read, comments on). */
  mayComment: z.boolean(),
  /** Whether the asking user may delete any thread (the scene's owner). */
  mayModerate: z.boolean(),
  /** The asking user's id (an author's `_id`: whose threads and replies are one's own), null when not signed in. */
  userId: z.string().max(256).nullable().default(null),
});
export type CommentList = z.infer<typeof CommentList>;

// ---- meetings ----------------------------------------------------------------------------------

/**
 * The meeting's comments object: an RFC `{ object: 'comments', function: 'handleCommentChange',
 * args: [clientId, CommentChange] }` tells the others a thread changed; they refetch it.
 */
export const COMMENTS_OBJECT = 'comments';
export const COMMENT_CHANGE_FUNCTION = 'handleCommentChange';
export const COMMENT_CHANGE_ACTIONS = ['created', 'updated', 'replied', 'resolved', 'reopened', 'deleted'] as const;
export const CommentChange = z.object({
  commentId: CommentId,
  action: z.enum(COMMENT_CHANGE_ACTIONS),
});
export type CommentChange = z.infer<typeof CommentChange>;

// ---- the host API's view of a thread ------------------------------------------------------------

/** A thread as the host API's annotation functions return it. */
export function commentToAnnotation(comment: CommentThread): AnnotationInfo {
  return {
    id: comment._id,
    title: comment.title,
    text: comment.text,
    position: [...comment.anchor.position],
    eye: [...comment.view.position],
    target: [...comment.view.target],
  };
}

/** A thread's display name of its author: 'First Last', or 'Anonymous'. */
export function authorName(author: CommentAuthor): string {
  return `${author.firstName} ${author.lastName}`.trim() || 'Anonymous';
}
