import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  CreateCommentRequest,
  CreateReplyRequest,
  MAX_REPLIES,
  UpdateCommentRequest,
  UpdateReplyRequest,
  type CommentAuthor,
  type CommentList,
  type CommentThread,
} from '../../protocol/comments.ts';
import type { SceneDoc } from '../../protocol/scene.ts';
import { AuthError, assertCanReadScene, canReadScene, canWriteScene, isOwner, requireUser } from '../auth/permissions.ts';
import type { AuthUser } from '../auth/tokens.ts';
import type { ServerConfig } from '../config.ts';
import { newId, type Store } from '../store.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * Comment threads of a scene (issue 16; the shapes and the endpoint list in
 * src/protocol/comments.ts). The permission rules are the scene's:
 *
 * - whoever may read the scene reads its comments (private scene: 401/403 as for the scene);
 * - signed-in readers start threads and reply, unless the owner turned comments off
 *   (`commentsEnabled: false`, PATCH /v1/scenes/{id});
 * - one edits one's own thread or reply; the thread's author, the owner and the editors resolve
 *   and reopen it; one deletes one's own, and the scene's owner deletes any.
 *
 * Every check runs again inside the store's transaction on the thread as stored, so two people
 * acting at once cannot lose each other's replies.
 */

export function commentsOpen(scene: SceneDoc): boolean {
  return scene.commentsEnabled !== false;
}

export function mayComment(user: AuthUser | null, scene: SceneDoc): boolean {
  return user !== null && canReadScene(user, scene) && commentsOpen(scene);
}

function authorOf(user: AuthUser): CommentAuthor {
  return { _id: user.id, firstName: user.firstName.slice(0, 100), lastName: user.lastName.slice(0, 100) };
}

export default async function commentRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { store } = opts;
  app.removeContentTypeParser('text/plain');

  type SceneRequest = FastifyRequest<{ Params: { id: string } }>;
  type CommentRequest = FastifyRequest<{ Params: { id: string; commentId: string } }>;
  type ReplyRequest = FastifyRequest<{ Params: { id: string; commentId: string; replyId: string } }>;

  /** The scene, readable by the request's user (404, 401, 403 otherwise). */
  async function readableScene(request: SceneRequest): Promise<SceneDoc> {
    const { id } = request.params;
    checkId('scene', id);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    assertCanReadScene(request, scene);
    return scene;
  }

  /** The signed-in user, allowed to write comments on the scene. */
  function commenter(request: FastifyRequest, scene: SceneDoc): AuthUser {
    const user = requireUser(request);
    if (!commentsOpen(scene)) throw new AuthError(403, `Comments are turned off for scene '${scene._id}' by its owner`);
    return user;
  }

  function notFound(scene: SceneDoc, commentId: string): HttpError {
    return new HttpError(404, `Comment '${commentId}' not found in scene '${scene._id}'`);
  }

  app.get<{ Params: { id: string } }>('/v1/scenes/:id/comments', async (request, reply) => {
    const scene = await readableScene(request);
    const comments = await store.listComments(scene._id);
    reply.header('cache-control', scene.public === false ? 'private, no-cache' : 'no-cache');
    const list: CommentList = {
      comments,
      commentsEnabled: commentsOpen(scene),
      mayComment: mayComment(request.user, scene),
      mayModerate: isOwner(request.user, scene),
      userId: request.user?.id ?? null,
    };
    return list;
  });

  app.post<{ Params: { id: string } }>('/v1/scenes/:id/comments', async (request, reply) => {
    const scene = await readableScene(request);
    const user = commenter(request, scene);
    const body = parseBody(CreateCommentRequest, request.body);
    const at = new Date().toISOString();
    const thread: CommentThread = {
      _id: newId(),
      sceneId: scene._id,
      anchor: { ...body.anchor, _id: body.anchor._id ?? newId() },
      view: body.view,
      author: authorOf(user),
      title: body.title ?? '',
      text: body.text,
      status: 'open',
      createdAt: at,
      updatedAt: at,
      replies: [],
    };
    const stored = await store.createComment(thread);
    reply.code(201).header('location', `/v1/scenes/${scene._id}/comments/${stored._id}`).header('cache-control', 'no-store');
    return stored;
  });

  app.get<{ Params: { id: string; commentId: string } }>('/v1/scenes/:id/comments/:commentId', async (request: CommentRequest, reply) => {
    const scene = await readableScene(request);
    checkId('comment', request.params.commentId);
    const thread = await store.getComment(scene._id, request.params.commentId);
    if (!thread) throw notFound(scene, request.params.commentId);
    reply.header('cache-control', scene.public === false ? 'private, no-cache' : 'no-cache');
    return thread;
  });

  app.patch<{ Params: { id: string; commentId: string } }>('/v1/scenes/:id/comments/:commentId', async (request: CommentRequest, reply) => {
    const scene = await readableScene(request);
    const user = requireUser(request);
    checkId('comment', request.params.commentId);
    const body = parseBody(UpdateCommentRequest, request.body);
    // The anchor and the view are the author's like the text: a moved pin or a changed view.
    const editsText = body.text !== undefined || body.title !== undefined || body.anchor !== undefined || body.view !== undefined;
    if (editsText) commenter(request, scene);
    const updated = await store.updateComment(scene._id, request.params.commentId, (thread) => {
      const own = thread.author._id === user.id;
      if (editsText && !own) throw new AuthError(403, `Only its author may edit comment '${thread._id}'`);
      if (body.status !== undefined && !own && !canWriteScene(user, scene)) {
        throw new AuthError(403, `Only the comment's author and the scene's owner and editors may resolve or reopen comment '${thread._id}'`);
      }
      const at = new Date().toISOString();
      const next: CommentThread = { ...thread, updatedAt: at };
      if (body.text !== undefined) next.text = body.text;
      if (body.title !== undefined) next.title = body.title;
      if (body.anchor !== undefined) next.anchor = { ...body.anchor, _id: thread.anchor._id };
      if (body.view !== undefined) next.view = body.view;
      if (body.status !== undefined && body.status !== thread.status) {
        next.status = body.status;
        if (body.status === 'resolved') {
          next.resolvedAt = at;
          next.resolvedBy = authorOf(user);
        } else {
          delete next.resolvedAt;
          delete next.resolvedBy;
        }
      }
      return next;
    });
    if (!updated) throw notFound(scene, request.params.commentId);
    reply.header('cache-control', 'no-store');
    return updated;
  });

  app.delete<{ Params: { id: string; commentId: string } }>('/v1/scenes/:id/comments/:commentId', async (request: CommentRequest, reply) => {
    const scene = await readableScene(request);
    const user = requireUser(request);
    checkId('comment', request.params.commentId);
    const deleted = await store.deleteComment(scene._id, request.params.commentId, (thread) => {
      if (thread.author._id !== user.id && !isOwner(user, scene)) {
        throw new AuthError(403, `Only its author and the scene's owner may delete comment '${thread._id}'`);
      }
    });
    if (!deleted) throw notFound(scene, request.params.commentId);
    reply.code(204).header('cache-control', 'no-store');
  });

  app.post<{ Params: { id: string; commentId: string } }>('/v1/scenes/:id/comments/:commentId/replies', async (request: CommentRequest, reply) => {
    const scene = await readableScene(request);
    const user = commenter(request, scene);
    checkId('comment', request.params.commentId);
    const body = parseBody(CreateReplyRequest, request.body);
    const updated = await store.updateComment(scene._id, request.params.commentId, (thread) => {
      if (thread.replies.length >= MAX_REPLIES) throw new HttpError(409, `Comment '${thread._id}' has ${MAX_REPLIES} replies, the most one thread keeps: start a new comment`);
      const at = new Date().toISOString();
      return { ...thread, updatedAt: at, replies: [...thread.replies, { _id: newId(), author: authorOf(user), text: body.text, createdAt: at, updatedAt: at }] };
    });
    if (!updated) throw notFound(scene, request.params.commentId);
    reply.code(201).header('cache-control', 'no-store');
    return updated;
  });

  function changeReply(request: ReplyRequest, scene: SceneDoc, edit: (thread: CommentThread, index: number) => CommentThread) {
    const { commentId, replyId } = request.params;
    checkId('comment', commentId);
    checkId('reply', replyId);
    return store.updateComment(scene._id, commentId, (thread) => {
      const index = thread.replies.findIndex((r) => r._id === replyId);
      if (index < 0) throw new HttpError(404, `Reply '${replyId}' not found in comment '${commentId}'`);
      return edit(thread, index);
    });
  }

  app.patch<{ Params: { id: string; commentId: string; replyId: string } }>('/v1/scenes/:id/comments/:commentId/replies/:replyId', async (request: ReplyRequest, reply) => {
    const scene = await readableScene(request);
    const user = commenter(request, scene);
    const body = parseBody(UpdateReplyRequest, request.body);
    const updated = await changeReply(request, scene, (thread, index) => {
      const current = thread.replies[index];
      if (current.author._id !== user.id) throw new AuthError(403, `Only its author may edit reply '${current._id}'`);
      const at = new Date().toISOString();
      const replies = thread.replies.slice();
      replies[index] = { ...current, text: body.text, updatedAt: at };
      return { ...thread, replies, updatedAt: at };
    });
    if (!updated) throw notFound(scene, request.params.commentId);
    reply.header('cache-control', 'no-store');
    return updated;
  });

  app.delete<{ Params: { id: string; commentId: string; replyId: string } }>('/v1/scenes/:id/comments/:commentId/replies/:replyId', async (request: ReplyRequest, reply) => {
    const scene = await readableScene(request);
    const user = requireUser(request);
    const updated = await changeReply(request, scene, (thread, index) => {
      const current = thread.replies[index];
      if (current.author._id !== user.id && !isOwner(user, scene)) throw new AuthError(403, `Only its author and the scene's owner may delete reply '${current._id}'`);
      return { ...thread, replies: thread.replies.filter((_, i) => i !== index), updatedAt: new Date().toISOString() };
    });
    if (!updated) throw notFound(scene, request.params.commentId);
    reply.header('cache-control', 'no-store');
    return updated;
  });
}
