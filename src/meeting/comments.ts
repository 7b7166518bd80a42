import { COMMENT_CHANGE_FUNCTION, COMMENTS_OBJECT, CommentChange } from '../protocol/comments';
import type { Meeting } from './meeting';

/**
 * What a meeting needs of the page's comment session (src/api/comments.ts's CommentsSession is
 * one): declared here, as the meeting and the host-page API sit side by side and neither imports
 * the other.
 */
export interface SharedCommentsSession {
  /** A change another participant made: refetch that thread (or drop it). */
  applyRemoteChange(change: CommentChange): Promise<void>;
  /** Each change of ours; returns the unsubscribe. */
  onLocalChange(listener: (change: CommentChange) => void): () => void;
}

/**
 * Comments in a meeting (issue 16): each change of ours (a new thread, a reply, a resolution, an
 * edit, a deletion) goes to the others as one small RFC `comments.handleCommentChange(clientId,
 * { commentId, action })`; a receiver refetches that thread from the model service (or drops it),
 * so everyone sees it at once and the service stays the one truth (permissions included).
 */
export function shareComments(meeting: Pick<Meeting, 'call' | 'register'>, session: SharedCommentsSession, onError: (message: string) => void): () => void {
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
