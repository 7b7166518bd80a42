import { describe, expect, it, vi } from 'vitest';
import { commentAnnotationStore, createCommentsClient, createCommentsSession, type CommentsClient } from '../../../src/api/comments';
import { shareComments } from '../../../src/meeting/comments';
import type { CommentThread, CommentView } from '../../../src/protocol/comments';

const view: CommentView = { projection: 'Perspective', position: [5, 5, 5], target: [0, 0, 0], up: [0, 1, 0], fov: 45, orthoHeight: 4, sections: [], measurements: [] };
const thread = (id: string, extra: Partial<CommentThread> = {}): CommentThread => ({
  _id: id,
  sceneId: 's1',
  anchor: { _id: `a${id}`, position: [1, 0, 0], target: [0, 0, 0], direction: [0, 0, -1] },
  view,
  author: { _id: 'u1', firstName: 'Ada', lastName: 'L' },
  title: '',
  text: 'hello',
  status: 'open',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  replies: [],
  ...extra,
});

describe('comments client', () => {
  it('ignores listed threads lacking an anchor field and passes the service\'s error text on', async () => {
    const broken = { ...thread('b'), anchor: { _id: 'x', position: [0, 0, 0], target: [0, 0, 0] } };
    const responses = [
      new Response(JSON.stringify({ comments: [thread('a'), broken], commentsEnabled: true, mayComment: true, mayModerate: false }), { status: 200 }),
      new Response(JSON.stringify({ error: "Comments are turned off for scene 's1' by its owner" }), { status: 403 }),
    ];
    const fetchMock = vi.fn(async () => responses.shift()!);
    const client = createCommentsClient({ modelService: 'http://svc/', sceneId: 's1', token: async () => 't', fetch: fetchMock as unknown as typeof fetch });
    const list = await client.list();
    expect(list.comments.map((c) => c._id)).toEqual(['a']);
    expect(list.ignored).toBe(1);
    await expect(client.create({ anchor: thread('a').anchor, view, text: 'x' })).rejects.toThrow("Comments are turned off for scene 's1' by its owner");
    expect((fetchMock.mock.calls[0] as unknown[])[0]).toBe('http://svc/v1/scenes/s1/comments');
  });

  it('goes through the service client: the token when there is one, GET /v1/me, and its failures in its own words', async () => {
    const calls: { url: string; auth?: string }[] = [];
    const answers: (Response | Error)[] = [
      new Response(JSON.stringify({ id: 'u1', firstName: 'Ada', lastName: 'L' }), { status: 200 }),
      new Response(JSON.stringify({ error: 'Invalid token' }), { status: 401 }),
      new TypeError('Failed to fetch'),
    ];
    const fetchMock = vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, auth: (init.headers as Record<string, string>).authorization });
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    let token: string | null = 'tok';
    const client = createCommentsClient({ modelService: 'http://svc//', sceneId: 'a b', token: async () => token, fetch: fetchMock as unknown as typeof fetch });
    expect(await client.me()).toEqual({ firstName: 'Ada', lastName: 'L' });
    expect(await client.me()).toBeNull();
    expect(calls.map((c) => [c.url, c.auth])).toEqual([
      ['http://svc/v1/me', 'Bearer tok'],
      ['http://svc/v1/me', 'Bearer tok'],
    ]);
    token = null;
    expect(await client.me()).toBeNull();
    // A POST is not retried: the failure is told at once.
    await expect(client.reply('t1', 'hi')).rejects.toThrow('The comments could not be reached (Failed to fetch): check the connection and try again.');
    expect(calls[2]).toEqual({ url: 'http://svc/v1/scenes/a%20b/comments/t1/replies', auth: undefined });
    expect(calls).toHaveLength(3);
  });
});

function fakeClient(): CommentsClient & { store: Map<string, CommentThread> } {
  const store = new Map<string, CommentThread>();
  let n = 0;
  return {
    store,
    list: async () => ({ comments: [...store.values()], commentsEnabled: true, mayComment: true, mayModerate: false, userId: 'u1', ignored: 0 }),
    get: async (id) => store.get(id) ?? null,
    create: async (body) => {
      const t = thread(`c${++n}`, { text: body.text, title: body.title ?? '', view: body.view, anchor: { ...body.anchor, _id: `a${n}` } });
      store.set(t._id, t);
      return t;
    },
    update: async (id, body) => {
      const old = store.get(id)!;
      // As the service: the anchor keeps its _id.
      const t = { ...old, ...body, anchor: body.anchor ? { ...body.anchor, _id: old.anchor._id } : old.anchor } as CommentThread;
      store.set(id, t);
      return t;
    },
    remove: async (id) => void store.delete(id),
    reply: async (id, text) => {
      const t = store.get(id)!;
      const next = { ...t, replies: [...t.replies, { _id: 'r', author: t.author, text, createdAt: t.createdAt, updatedAt: t.updatedAt }] };
      store.set(id, next);
      return next;
    },
    updateReply: async (id, replyId, text) => {
      const t = store.get(id)!;
      const next = { ...t, replies: t.replies.map((r) => (r._id === replyId ? { ...r, text } : r)) };
      store.set(id, next);
      return next;
    },
    removeReply: async () => {
      throw new Error('unused');
    },
    me: async () => ({ firstName: 'Ada', lastName: 'L' }),
  };
}

describe('comments session and meeting relay', () => {
  it('shows every change on the pins and tells the meeting; a remote change is refetched', async () => {
    const client = fakeClient();
    const shown: number[] = [];
    const session = createCommentsSession(client, (threads) => shown.push(threads.length));
    const sent: unknown[][] = [];
    let handler: ((sender: string, args: unknown[]) => void) | undefined;
    const meeting = {
      call: (object: string, fn: string, args: unknown[]) => (sent.push([object, fn, ...args]), true),
      register: (_object: string, handlers: Record<string, (sender: string, args: unknown[]) => void>) => ((handler = handlers.handleCommentChange), () => undefined),
    };
    shareComments(meeting, session, () => undefined);
    const made = await session.create({ anchor: thread('x').anchor, view, text: 'crack' });
    await session.reply(made._id, 'seen');
    await session.update(made._id, { status: 'resolved' });
    expect(sent.map((s) => (s[3] as { action: string }).action)).toEqual(['created', 'replied', 'resolved']);
    expect(sent[0].slice(0, 2)).toEqual(['comments', 'handleCommentChange']);
    expect(shown.at(-1)).toBe(1);

    // Another participant's new thread: the receiver fetches it.
    client.store.set('other', thread('other'));
    handler!('peer', ['peer', { commentId: 'other', action: 'created' }]);
    await vi.waitFor(() => expect(session.find('other')).toBeDefined());
    handler!('peer', ['peer', { commentId: 'other', action: 'deleted' }]);
    await vi.waitFor(() => expect(session.find('other')).toBeUndefined());
    expect(() => handler!('peer', ['peer', { commentId: 'bad id!', action: 'created' }])).toThrow(/bad change/);
  });

  it('keeps a thread made while the list was on its way (the list was read before it)', async () => {
    const client = fakeClient();
    client.store.set('gone', thread('gone'));
    const read = client.list;
    let release: () => void = () => undefined;
    client.list = async () => {
      const list = await read();
      await new Promise<void>((resolve) => (release = resolve));
      return list;
    };
    const session = createCommentsSession(client, () => undefined);
    const refreshed = session.refresh();
    await vi.waitFor(() => expect(release).not.toBe(undefined));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const made = await session.create({ anchor: thread('x').anchor, view, text: 'made meanwhile' });
    await session.remove('gone');
    release();
    await refreshed;
    expect(session.snapshot.threads.map((t) => t._id)).toEqual([made._id]);
    expect(session.snapshot.loaded).toBe(true);
  });

  it('knows whose threads are its user\'s own, and edits a reply', async () => {
    const client = fakeClient();
    const session = createCommentsSession(client, () => undefined);
    const changes: string[] = [];
    session.onLocalChange((c) => changes.push(c.action));
    await session.refresh();
    expect(session.snapshot.userId).toBe('u1');
    const made = await session.create({ anchor: thread('x').anchor, view, text: 'crack' });
    const replied = await session.reply(made._id, 'seen');
    const edited = await session.updateReply(made._id, replied.replies[0]._id, 'seen twice');
    expect(edited.replies[0].text).toBe('seen twice');
    expect(session.find(made._id)!.replies[0].text).toBe('seen twice');
    expect(changes).toEqual(['created', 'replied', 'updated']);
  });

  it('host API annotations are threads: create, update text, move the pin and the view, remove', async () => {
    const client = fakeClient();
    const session = createCommentsSession(client, () => undefined);
    const store = commentAnnotationStore(session, { captureView: () => structuredClone(view), anchorFor: (p) => ({ position: p, target: [0, 0, 0], direction: [0, 0, -1] }) });
    const a = await store.create({ position: [1, 2, 3], title: 'Door', text: '', eye: [9, 9, 9], target: [0, 1, 0] });
    expect(a).toMatchObject({ title: 'Door', text: 'Door', position: [1, 2, 3], eye: [9, 9, 9], target: [0, 1, 0] });
    expect((await store.update(a.id, { text: 'Fire door' })).text).toBe('Fire door');
    // An empty text keeps the title as the text (a thread needs text); both empty is refused.
    expect((await store.update(a.id, { text: ' ' })).text).toBe('Door');
    await expect(store.update(a.id, { text: '', title: '' })).rejects.toThrow('An annotation needs a title or a text');
    // The pin moves alone: the view stays.
    const moved = await store.update(a.id, { position: [0, 0, 0] });
    expect(moved).toMatchObject({ position: [0, 0, 0], eye: [9, 9, 9], target: [0, 1, 0] });
    // A new eye: the view's camera and the anchor's target and direction follow; the rest of the view stays.
    const turned = await store.update(a.id, { eye: [0, 1, 5] });
    expect(turned).toMatchObject({ position: [0, 0, 0], eye: [0, 1, 5], target: [0, 1, 0] });
    const saved = client.store.get(a.id)!;
    expect(saved.anchor).toMatchObject({ _id: 'a1', target: [0, 1, 0], direction: [0, 0, -1] });
    expect(saved.view).toMatchObject({ position: [0, 1, 5], target: [0, 1, 0], fov: 45, projection: 'Perspective' });
    expect(saved.view.orthoHeight).toBeCloseTo(2 * 5 * Math.tan((45 * Math.PI) / 360), 9);
    await expect(store.update(a.id, { target: [0, 1, 5] })).rejects.toThrow('eye and target must differ');
    expect(client.store.get(a.id)!.view.target).toEqual([0, 1, 0]);
    await store.remove(a.id);
    expect(await store.list()).toEqual([]);
    await expect(store.remove(a.id)).rejects.toThrow("There is no annotation");
  });
});
