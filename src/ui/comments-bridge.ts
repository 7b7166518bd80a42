import { commentAnnotationStore, createCommentsClient, createCommentsSession, type CommentsSession } from '../api/comments';
import type { AnnotationStore } from '../viewer/annotations';
import type { ViewerComments } from '../viewer/comments';
import type { Viewer } from '../viewer/viewer';
import { CommentsPanel } from './CommentsPanel';

/**
 * The comments of a page (the embed and the editor), a chunk of its own fetched once the scene is
 * shown (issue 16): the viewer's comment pins and tool (`viewer.loadComments()`), the REST client
 * and session of the scene's threads, the host API's annotations on them, and the panel.
 */
export interface PageComments {
  viewer: ViewerComments;
  session: CommentsSession;
  /** The host API's annotation functions on the threads. */
  annotations: AnnotationStore;
  /** Flies to a thread's view (false when there is no such thread). */
  open(id: string, transition: boolean): Promise<boolean>;
  /** The panel (the comment tool's button, the list, the threads, BCF export and import). */
  Panel: typeof CommentsPanel;
}

export async function startComments(
  viewer: Viewer,
  scene: { modelService: string; sceneId: string; token: () => Promise<string | null> },
): Promise<PageComments> {
  const comments = await viewer.loadComments();
  const client = createCommentsClient({ modelService: scene.modelService, sceneId: scene.sceneId, token: scene.token });
  const session = createCommentsSession(client, (threads) => comments.setThreads(threads));
  // A failed first load is kept in the session (the panel says it, with the service's words).
  session.refresh().catch((error: unknown) => console.error('The comments could not be loaded:', error));
  return {
    viewer: comments,
    session,
    annotations: commentAnnotationStore(session, {
      captureView: () => comments.captureView(),
      anchorFor: (p) => comments.anchorFor(p),
    }),
    async open(id, transition) {
      const thread = session.find(id);
      if (!thread) return false;
      comments.select(id);
      await comments.openView(thread.view, transition);
      return true;
    },
    Panel: CommentsPanel,
  };
}
