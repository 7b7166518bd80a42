import {
  type CommentAuthor,
  CommentList,
  CommentThread,
  commentToAnnotation,
  usableComments,
  type CommentAnchor,
  type CommentChange,
  type CommentStatus,
  type CommentView,
} from '../protocol/comments';
import type { SignedInPerson } from '../protocol/auth';
import type { AnnotationInfo } from '../protocol/host-api';
import { causeOf, createServiceClient, path, ServiceError, type Method, type ServiceClient } from '../service/client';
import type { AnnotationStore } from '../viewer/annotations';

/**
 * The scene's comment threads in the page (issue 16): the REST client of
 * /v1/scenes/{id}/comments (src/protocol/comments.ts) and one session that holds the threads,
 * hands them to the viewer's pins and to the UI, tells a meeting about each change and hears the
 * meeting's changes. The host API's annotation functions are an AnnotationStore over it.
 */

export interface CommentsClientOptions {
  /** The model service's base URL. */
  modelService: string;
  sceneId: string;
  /** The bearer token, or null when the visitor is not signed in (reading a public scene still works). */
  token: () => Promise<string | null>;
  fetch?: typeof fetch;
  /** The model service's client to use (else one made of the options above). */
  service?: ServiceClient;
}

export class CommentsError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'CommentsError';
    this.status = status;
  }
}

/** A PATCH of a thread: text, title, the pin (anchor) and the view by the author; status by the author, owner and editors. */
export interface CommentUpdate {
  text?: string;
  title?: string;
  status?: CommentStatus;
  anchor?: Omit<CommentAnchor, '_id'>;
  view?: CommentView;
}

export interface CommentsClient {
  list(): Promise<CommentList & { ignored: number }>;
  get(id: string): Promise<CommentThread | null>;
  create(body: { anchor: Omit<CommentAnchor, '_id'>; view: CommentView; text: string; title?: string }): Promise<CommentThread>;
  update(id: string, body: CommentUpdate): Promise<CommentThread>;
  remove(id: string): Promise<void>;
  reply(id: string, text: string): Promise<CommentThread>;
  updateReply(id: string, replyId: string, text: string): Promise<CommentThread>;
  removeReply(id: string, replyId: string): Promise<CommentThread>;
  /** The signed-in person (GET /v1/me), or null when not signed in. */
  me(): Promise<Pick<CommentAuthor, 'firstName' | 'lastName'> | null>;
}

/** The service client's failure in the comments' words (the status and the service's own reason kept). */
function commentsError(error: unknown): unknown {
  if (!(error instanceof ServiceError)) return error;
  if (error.kind === 'network') return new CommentsError(0, `The comments could not be reached (${causeOf(error)}): check the connection and try again.`);
  if (error.kind === 'invalid' && error.status < 300) return new CommentsError(error.status, `The comment service answered ${error.status} with something that is not JSON.`);
  if (error.kind === 'invalid') return new CommentsError(502, error.message);
  return new CommentsError(error.status, error.reason ?? `HTTP ${error.status}`);
}

export function createCommentsClient(options: CommentsClientOptions): CommentsClient {
  const service = options.service ?? createServiceClient({ baseUrl: options.modelService, token: options.token, fetch: options.fetch });
  const base = path`/v1/scenes/${options.sceneId}/comments`;
  const call = async (method: Method, sub: string, body?: unknown): Promise<unknown> => {
    try {
      return await service.request(method, `${base}${sub}`, body !== undefined ? { json: body } : {});
    } catch (error) {
      throw commentsError(error);
    }
  };
  const thread = (value: unknown): CommentThread => {
    const parsed = CommentThread.safeParse(value);
    if (!parsed.success) throw new CommentsError(502, `The comment service sent a comment this page cannot read: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  };
  return {
    async list() {
      const json = (await call('GET', '')) as { comments?: unknown[] } & Record<string, unknown>;
      // The anchor rule applies on this side too: threads lacking position, target or direction are ignored.
      const { comments, ignored, invalid } = usableComments(Array.isArray(json?.comments) ? json.comments : []);
      const rest = CommentList.omit({ comments: true }).parse(json);
      return { ...rest, comments, ignored: ignored + invalid };
    },
    async get(id) {
      try {
        return thread(await call('GET', path`/${id}`));
      } catch (error) {
        if (error instanceof CommentsError && error.status === 404) return null;
        throw error;
      }
    },
    async create(body) {
      return thread(await call('POST', '', body));
    },
    async update(id, body) {
      return thread(await call('PATCH', path`/${id}`, body));
    },
    async remove(id) {
      await call('DELETE', path`/${id}`);
    },
    async reply(id, text) {
      return thread(await call('POST', path`/${id}/replies`, { text }));
    },
    async updateReply(id, replyId, text) {
      return thread(await call('PATCH', path`/${id}/replies/${replyId}`, { text }));
    },
    async removeReply(id, replyId) {
      return thread(await call('DELETE', path`/${id}/replies/${replyId}`));
    },
    async me() {
      let person: SignedInPerson | null;
      try {
        person = await service.me();
      } catch (error) {
        if (error instanceof ServiceError && error.kind === 'invalid') throw new CommentsError(502, 'The service described the signed-in person in a form this page cannot read.');
        if (error instanceof ServiceError) throw new CommentsError(error.status, `Who is signed in could not be read (HTTP ${error.status}).`);
        throw error;
      }
      return person && { firstName: person.firstName, lastName: person.lastName };
    },
  };
}

export interface CommentsSnapshot {
  threads: CommentThread[];
  loaded: boolean;
  commentsEnabled: boolean;
  mayComment: boolean;
  mayModerate: boolean;
  /** The signed-in person's id (a thread's or reply's `author._id` when it is theirs), null when not signed in. */
  userId: string | null;
  /** The last failure, in words (null after a success). */
  error: string | null;
}

export interface CommentsSession {
  readonly snapshot: CommentsSnapshot;
  subscribe(listener: (snapshot: CommentsSnapshot) => void): () => void;
  refresh(): Promise<void>;
  create(body: { anchor: Omit<CommentAnchor, '_id'>; view: CommentView; text: string; title?: string }): Promise<CommentThread>;
  update(id: string, body: CommentUpdate): Promise<CommentThread>;
  remove(id: string): Promise<void>;
  reply(id: string, text: string): Promise<CommentThread>;
  updateReply(id: string, replyId: string, text: string): Promise<CommentThread>;
  removeReply(id: string, replyId: string): Promise<CommentThread>;
  find(id: string): CommentThread | undefined;
  /** The signed-in person's name, or null (BCF import: whose BCF comments are one's own). */
  me(): Promise<Pick<CommentAuthor, 'firstName' | 'lastName'> | null>;
  /** A change another meeting participant made: refetch that thread. */
  applyRemoteChange(change: CommentChange): Promise<void>;
  /** Where each of our own changes is told (the meeting). */
  onLocalChange(listener: (change: CommentChange) => void): () => void;
}

/** The session: `show` receives every new list (the viewer's pins). */
export function createCommentsSession(client: CommentsClient, show: (threads: readonly CommentThread[]) => void): CommentsSession {
  let snapshot: CommentsSnapshot = { threads: [], loaded: false, commentsEnabled: true, mayComment: false, mayModerate: false, userId: null, error: null };
  const listeners = new Set<(s: CommentsSnapshot) => void>();
  const changeListeners = new Set<(c: CommentChange) => void>();
  const publish = (patch: Partial<CommentsSnapshot>) => {
    snapshot = { ...snapshot, ...patch };
    if (patch.threads) show(snapshot.threads);
    for (const l of [...listeners]) l(snapshot);
  };
  // Changes made while a list is on its way (id -> the thread, or null when dropped): the list was
  // read before them, so they are laid over it rather than lost under it.
  const changedSinceList = new Set<Map<string, CommentThread | null>>();
  const put = (thread: CommentThread) => {
    for (const changes of changedSinceList) changes.set(thread._id, thread);
    const i = snapshot.threads.findIndex((t) => t._id === thread._id);
    const threads = snapshot.threads.slice();
    if (i >= 0) threads[i] = thread;
    else threads.push(thread);
    publish({ threads, error: null });
  };
  const drop = (id: string) => {
    for (const changes of changedSinceList) changes.set(id, null);
    publish({ threads: snapshot.threads.filter((t) => t._id !== id), error: null });
  };
  const tell = (change: CommentChange) => {
    for (const l of [...changeListeners]) l(change);
  };
  /** Runs a change; a failure is kept in the snapshot (the UI says it) and thrown to the caller. */
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      publish({ error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  };
  return {
    get snapshot() {
      return snapshot;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh: () =>
      run(async () => {
        const changes = new Map<string, CommentThread | null>();
        changedSinceList.add(changes);
        let list: Awaited<ReturnType<CommentsClient['list']>>;
        try {
          list = await client.list();
        } finally {
          changedSinceList.delete(changes);
        }
        const threads = list.comments.filter((t) => !changes.has(t._id));
        for (const thread of changes.values()) if (thread) threads.push(thread);
        publish({
          threads,
          loaded: true,
          commentsEnabled: list.commentsEnabled,
          mayComment: list.mayComment,
          mayModerate: list.mayModerate,
          userId: list.userId,
          error: null,
        });
      }),
    create: (body) =>
      run(async () => {
        const thread = await client.create(body);
        put(thread);
        tell({ commentId: thread._id, action: 'created' });
        return thread;
      }),
    update: (id, body) =>
      run(async () => {
        const before = snapshot.threads.find((t) => t._id === id);
        const thread = await client.update(id, body);
        put(thread);
        const action = body.status && body.status !== before?.status ? (body.status === 'resolved' ? 'resolved' : 'reopened') : 'updated';
        tell({ commentId: id, action });
        return thread;
      }),
    remove: (id) =>
      run(async () => {
        await client.remove(id);
        drop(id);
        tell({ commentId: id, action: 'deleted' });
      }),
    reply: (id, text) =>
      run(async () => {
        const thread = await client.reply(id, text);
        put(thread);
        tell({ commentId: id, action: 'replied' });
        return thread;
      }),
    updateReply: (id, replyId, text) =>
      run(async () => {
        const thread = await client.updateReply(id, replyId, text);
        put(thread);
        tell({ commentId: id, action: 'updated' });
        return thread;
      }),
    removeReply: (id, replyId) =>
      run(async () => {
        const thread = await client.removeReply(id, replyId);
        put(thread);
        tell({ commentId: id, action: 'updated' });
        return thread;
      }),
    find: (id) => snapshot.threads.find((t) => t._id === id),
    me: () => client.me(),
    async applyRemoteChange(change) {
      if (change.action === 'deleted') {
        drop(change.commentId);
        return;
      }
      const thread = await client.get(change.commentId);
      if (thread) put(thread);
      else drop(change.commentId);
    },
    onLocalChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
  };
}

/**
 * The host API's annotations as comments of the scene: createAnnotation starts a thread (the
 * annotation's title and text; its view is the current one, with `eye`/`target` when given),
 * updateAnnotation edits text and title and moves the pin (`position`) and the view's camera
 * (`eye`/`target`), removeAnnotation deletes. Saved on the model service, so the page's user must
 * be signed in (the viewer's own sign-in, or a token the host handed over with setAuthToken) and
 * allowed to comment; the service's error says why not.
 */
export function commentAnnotationStore(session: CommentsSession, views: { captureView(): CommentView; anchorFor(point: [number, number, number]): Omit<CommentAnchor, '_id'> }): AnnotationStore {
  const find = (id: string) => {
    const found = session.find(id);
    if (!found) throw new Error(`There is no annotation '${id}'.`);
    return found;
  };
  return {
    async list(): Promise<AnnotationInfo[]> {
      if (!session.snapshot.loaded) await session.refresh();
      return session.snapshot.threads.map(commentToAnnotation);
    },
    async create(fields) {
      const view = views.captureView();
      if (fields.eye) view.position = [...fields.eye];
      if (fields.target) view.target = [...fields.target];
      const anchor = views.anchorFor(fields.position);
      anchor.target = [...view.target];
      const direction = viewDirection(view.position, view.target);
      if (direction) anchor.direction = direction;
      // A thread needs text: an annotation with a title only keeps the title as its text.
      const text = fields.text.trim() || fields.title.trim();
      if (!text) throw new Error('An annotation needs a title or a text.');
      return commentToAnnotation(await session.create({ anchor, view, text, title: fields.title }));
    },
    async update(id, fields) {
      const current = find(id);
      const body: CommentUpdate = {};
      const title = fields.title ?? current.title;
      if (fields.title !== undefined && fields.title !== current.title) body.title = fields.title;
      if (fields.text !== undefined) {
        // As when made: a thread needs text, and an annotation without one keeps its title as text.
        const text = fields.text.trim() || title.trim();
        if (!text) throw new Error('An annotation needs a title or a text: both would be empty.');
        if (text !== current.text) body.text = text;
      }
      if (fields.eye || fields.target) {
        const position: [number, number, number] = fields.eye ? [...fields.eye] : [...current.view.position];
        const target: [number, number, number] = fields.target ? [...fields.target] : [...current.view.target];
        const direction = viewDirection(position, target);
        if (!direction) throw new Error('eye and target must differ: the camera needs a direction to look in.');
        const view: CommentView = { ...current.view, position, target };
        // A perspective view keeps the height it shows at its target, as a new comment does.
        if (view.projection === 'Perspective') {
          const distance = Math.hypot(target[0] - position[0], target[1] - position[1], target[2] - position[2]);
          view.orthoHeight = 2 * distance * Math.tan((view.fov * Math.PI) / 360);
        }
        body.view = view;
        body.anchor = { position: fields.position ? [...fields.position] : [...current.anchor.position], target: [...target], direction };
      } else if (fields.position) {
        body.anchor = { position: [...fields.position], target: [...current.anchor.target], direction: [...current.anchor.direction] };
      }
      if (Object.keys(body).length === 0) return commentToAnnotation(current);
      return commentToAnnotation(await session.update(id, body));
    },
    async remove(id) {
      find(id);
      await session.remove(id);
    },
  };
}

/** The unit direction from `eye` to `target`, or null when they (almost) coincide. */
function viewDirection(eye: readonly number[], target: readonly number[]): [number, number, number] | null {
  const dx = target[0] - eye[0];
  const dy = target[1] - eye[1];
  const dz = target[2] - eye[2];
  const length = Math.hypot(dx, dy, dz);
  return length > 1e-9 ? [dx / length, dy / length, dz / length] : null;
}
