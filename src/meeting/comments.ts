import type { CommentsSession } from '../api/comments';
import { COMMENT_CHANGE_FUNCTION, COMMENTS_OBJECT, CommentChange } from '../protocol/comments';
import type { Meeting } from './meeting';

/**
 * Comments in a meeting (issue 16): each change of ours (a new thread, a reply, a resolution, an
 * edit, a deletion) goes to the others as one small RFC `comments.handleCommentChange(clientId,
 * { commentId, action })`; a receiver refetches that thread from the model service (or drops it),
 * so everyone sees it at once and the service stays the one truth (permissions included).
 */
export function shareComments(meeting: Pick<Meeting, 'call' | 'register'>, session: CommentsSession, onError: (message: string) => void): () => void {
  const unregister = meeting.register(COMMENTS_OBJECT, {
    [COMMENT_CHANGE_FUNCTION](sender, args) {
      const parsed = CommentChange.safeParse(args[1]);
      if (!parsed.success) throw new Error(`${COMMENT_CHANGE_FUNCTION} from ${sender}: bad change (${parsed.error.issues[0]?.message}).`);
      session.applyRemoteChange(parsed.data).catch((error: unknown) => onError(`A comment changed by another participant could not be loaded: ${error instanceof Error ? error.message : String(error)}`));
    },
  });
  const off = session.onLocalChange((change) => {
    meeting.call(COMMENTS_OBJECT, COMMENT_CHANGE_FUNCTION, [null, change]);
  });
  return () => {
    unregister();
    off();
  };
}
