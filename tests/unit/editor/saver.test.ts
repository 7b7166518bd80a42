import { describe, expect, it, vi } from 'vitest';
import { MutationQueues, nodeMutation } from '../../../src/editor/mutation-queue';
import { createSaver, type SaveState } from '../../../src/editor/saver';

type Answer = Response | Error | ((url: string, body: { mutations: { uuid: string; nodeId: string }[] }) => Response);

function setup(answers: Answer[], enabled = true) {
  const queues = new MutationQueues();
  const calls: { url: string; body: { mutations: { uuid: string }[] }; auth: string }[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const events: string[] = [];
  const written: number[] = [];
  let state: SaveState | null = null;
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, body: JSON.parse(init.body as string), auth: (init.headers as Record<string, string>).authorization });
    const head = answers[0];
    const next = typeof head === 'function' ? head : (answers.shift() ?? new Response('{}', { status: 200 }));
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(url, JSON.parse(init.body as string)) : next;
  });
  const saver = createSaver({
    queues,
    modelService: 'http://svc/',
    getToken: async () => 'tok',
    enabled: () => enabled,
    fetch: fetch as unknown as typeof globalThis.fetch,
    store: { write: async (s) => void written.push(Object.values(s).flat().length) },
    onState: (s) => (state = s),
    onEvent: (e) => events.push(e),
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => undefined,
  });
  const add = (nodeId: string, visible = false, modelId = 'model-1') => queues.add(modelId, nodeMutation(modelId, nodeId, { visible })!);
  return { queues, calls, timers, events, saver, add, written, state: () => state! };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('saver', () => {
  it('posts each model queue with the bearer token, emits started then finished, empties the queue', async () => {
    const t = setup([json(200, { saved: [] })]);
    t.add('1');
    t.add('2');
    expect(t.state().status).toBe('unsaved');
    await t.saver.save();
    expect(t.calls).toHaveLength(1);
    expect(t.calls[0].url).toBe('http://svc/v1/models/model-1/apply-mutations');
    expect(t.calls[0].auth).toBe('Bearer tok');
    expect(t.calls[0].body.mutations).toHaveLength(2);
    expect(t.events).toEqual(['saving-started', 'saving-finished']);
    expect(t.queues.size).toBe(0);
    expect(t.state().status).toBe('saved');
    await vi.waitFor(() => expect(t.written.at(-1)).toBe(0));
  });

  it('does nothing while disabled or while a save is in progress', async () => {
    const off = setup([], false);
    off.add('1');
    await off.saver.save();
    expect(off.calls).toHaveLength(0);
    const t = setup([]);
    t.add('1');
    const first = t.saver.save();
    const second = t.saver.save();
    await Promise.all([first, second]);
    expect(t.calls).toHaveLength(1);
  });

  it('keeps the queue and retries with backoff after a network failure or a 5xx', async () => {
    const t = setup([new TypeError('Failed to fetch'), json(503, { error: 'down' }), json(200, {})]);
    t.add('1');
    await t.saver.save();
    expect(t.state().status).toBe('failed');
    expect(t.state().reason).toMatch(/cannot be reached/);
    expect(t.queues.size).toBe(1);
    expect(t.timers.map((x) => x.ms)).toEqual([1000]);
    t.timers[0].fn();
    await vi.waitFor(() => expect(t.timers).toHaveLength(2));
    expect(t.timers[1].ms).toBe(2000);
    expect(t.state().reason).toMatch(/down/);
    t.timers[1].fn();
    await vi.waitFor(() => expect(t.state().status).toBe('saved'));
    // The same uuids each time: the server stores them once.
    expect(new Set(t.calls.map((c) => c.body.mutations[0].uuid)).size).toBe(1);
  });

  it('shows a 400 with its reason, keeps the refused edits to see and does not retry them', async () => {
    const t = setup([json(400, { error: 'mutations[0].properties.visible: visible must be true or false' })]);
    t.add('1');
    await t.saver.save();
    expect(t.state().status).toBe('failed');
    expect(t.state().reason).toMatch(/refused an edit: mutations\[0\]/);
    expect(t.state().rejected).toHaveLength(1);
    expect(t.timers).toHaveLength(0);
    expect(t.queues.size).toBe(0);
  });

  it('asks to sign in again on 401 and keeps the queue; 403 keeps it too', async () => {
    const t = setup([json(401, { error: 'Invalid token: the token has expired' }), json(403, { error: 'nope' })]);
    t.add('1');
    await t.saver.save();
    expect(t.state()).toMatchObject({ status: 'failed', signIn: true });
    expect(t.state().reason).toMatch(/expired/);
    expect(t.queues.size).toBe(1);
    await t.saver.save();
    expect(t.state()).toMatchObject({ status: 'failed', signIn: false });
    expect(t.state().reason).toMatch(/may not change/);
    expect(t.queues.size).toBe(1);
    expect(t.timers).toHaveLength(0);
  });
});

describe('saver: refused batches and other models', () => {
  /** A server that refuses a whole batch when it holds a mutation of a node in `bad`. */
  const refusing = (bad: string[], status = 400) => (_url: string, body: { mutations: { nodeId: string }[] }) => {
    const i = body.mutations.findIndex((m) => bad.includes(m.nodeId));
    return i < 0 ? json(200, {}) : json(status, { error: `mutations[${i}].properties: node ${body.mutations[i].nodeId} refused` });
  };

  it('a 400 for a batch is split until the refused mutations are found; the valid ones are saved', async () => {
    const t = setup([refusing(['3', '6'])]);
    for (let i = 1; i <= 8; i++) t.add(String(i));
    await t.saver.save();
    const saved = t.calls.filter((c) => !c.body.mutations.some((m) => ['3', '6'].includes((m as { nodeId?: string }).nodeId!)));
    expect(saved.flatMap((c) => c.body.mutations.map((m) => (m as { nodeId?: string }).nodeId)).sort()).toEqual(['1', '2', '4', '5', '7', '8']);
    expect(t.state().rejected.map((r) => (r.mutation as { nodeId?: string }).nodeId)).toEqual(['3', '6']);
    expect(t.state().rejected[0].reason).toMatch(/node 3 refused/);
    expect(t.state().status).toBe('failed');
    expect(t.queues.size).toBe(0);
    expect(t.timers).toHaveLength(0);
  });

  it('a 413 is split too; a single mutation still 413 is rejected with the reason, a 404 is final', async () => {
    const t = setup([refusing(['2'], 413)]);
    for (let i = 1; i <= 4; i++) t.add(String(i));
    await t.saver.save();
    expect(t.state().rejected.map((r) => (r.mutation as { nodeId?: string }).nodeId)).toEqual(['2']);
    expect(t.state().rejected[0].reason).toMatch(/too large/);
    expect(t.queues.size).toBe(0);
    expect(t.timers).toHaveLength(0);
    const n = setup([json(404, { error: 'no model' })]);
    n.add('1');
    await n.saver.save();
    expect(n.calls).toHaveLength(1);
    expect(n.state().rejected).toHaveLength(1);
    expect(n.state().reason).toMatch(/no model/);
    expect(n.timers).toHaveLength(0);
    expect(n.queues.size).toBe(0);
  });

  it('a failure on one model does not stop saving the others; only 401 stops all', async () => {
    const t = setup([(url) => (url.includes('/model-a/') ? json(503, { error: 'down' }) : json(200, {}))]);
    t.add('1', false, 'model-a');
    t.add('1', false, 'model-b');
    await t.saver.save();
    expect(t.calls.map((c) => c.url)).toEqual(['http://svc/v1/models/model-a/apply-mutations', 'http://svc/v1/models/model-b/apply-mutations']);
    expect(t.queues.pending('model-a')).toHaveLength(1);
    expect(t.queues.pending('model-b')).toHaveLength(0);
    expect(t.timers).toHaveLength(1);
    const f = setup([(url) => (url.includes('/model-a/') ? json(403, { error: 'nope' }) : json(200, {}))]);
    f.add('1', false, 'model-a');
    f.add('1', false, 'model-b');
    await f.saver.save();
    expect(f.queues.pending('model-b')).toHaveLength(0);
    expect(f.state().reason).toMatch(/may not change/);
    const s = setup([json(401, { error: 'expired' })]);
    s.add('1', false, 'model-a');
    s.add('1', false, 'model-b');
    await s.saver.save();
    expect(s.calls).toHaveLength(1);
    expect(s.queues.size).toBe(2);
    expect(s.state().signIn).toBe(true);
  });
});

describe('saver: the scene queues', () => {
  it('sends scene object changes to object-changes and the settings by PATCH viewer-config', async () => {
    const { OBJECTS_QUEUE, SETTINGS_QUEUE } = await import('../../../src/editor/saver');
    const queues = new MutationQueues();
    const calls: { url: string; method: string; body: unknown }[] = [];
    const fetch = vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, method: init.method as string, body: JSON.parse(init.body as string) });
      return new Response('{}', { status: 200 });
    });
    const saver = createSaver({ queues, modelService: 'http://svc', sceneId: 'scene-1', getToken: async () => 't', enabled: () => true, fetch: fetch as unknown as typeof globalThis.fetch });
    const change = { key: 'object/a', uuid: 'c1', createdAt: 1, type: 'removeObject', objectId: 'a' };
    queues.add(OBJECTS_QUEUE, change as never);
    queues.add(SETTINGS_QUEUE, { key: 'settings', uuid: 's1', createdAt: 1, type: 'setSettings', properties: { fogEnabled: true } } as never);
    queues.add(SETTINGS_QUEUE, { key: 'settings', uuid: 's2', createdAt: 2, type: 'setSettings', properties: { fogEnabled: false } } as never);
    await saver.save();
    expect(calls).toEqual([
      { url: 'http://svc/v1/scenes/scene-1/object-changes', method: 'POST', body: { changes: [change] } },
      { url: 'http://svc/v1/scenes/scene-1/viewer-config', method: 'PATCH', body: { scene: { fogEnabled: false } } },
    ]);
    expect(queues.size).toBe(0);
    expect(saver.state.status).toBe('saved');
  });

  it('sends instance changes to instance-changes after the scene objects (a new group exists first); a 409 is final', async () => {
    const { OBJECTS_QUEUE, INSTANCES_QUEUE } = await import('../../../src/editor/saver');
    const queues = new MutationQueues();
    const calls: string[] = [];
    let answer = 200;
    const fetch = vi.fn(async (url: string) => {
      calls.push(url.replace('http://svc/v1/scenes/scene-1/', ''));
      return new Response(answer === 200 ? '{}' : JSON.stringify({ error: 'changes[0]: Instance id 4 already exists in group g' }), { status: url.endsWith('instance-changes') ? answer : 200 });
    });
    const saver = createSaver({ queues, modelService: 'http://svc', sceneId: 'scene-1', getToken: async () => 't', enabled: () => true, fetch: fetch as unknown as typeof globalThis.fetch });
    // Queued instances first, then the group's object: the object still goes first.
    queues.add(INSTANCES_QUEUE, { key: 'instances/g/add/x', uuid: 'i1', createdAt: 1, groupId: 'g', type: 'addInstances', ids: [4], matrices: new Array(12).fill(0) } as never);
    queues.add(OBJECTS_QUEUE, { key: 'object/g', uuid: 'o1', createdAt: 1, type: 'removeObject', objectId: 'x' } as never);
    await saver.save();
    expect(calls).toEqual(['object-changes', 'instance-changes']);
    answer = 409;
    queues.add(INSTANCES_QUEUE, { key: 'instances/g/add/y', uuid: 'i2', createdAt: 2, groupId: 'g', type: 'addInstances', ids: [4], matrices: new Array(12).fill(0) } as never);
    await saver.save();
    expect(queues.size).toBe(0);
    expect(saver.state.rejected.map((r) => r.reason)).toEqual(['The server refused an edit: changes[0]: Instance id 4 already exists in group g']);
    expect(saver.state.retryAt).toBeNull();
  });

  it('instance changes wait while the scene objects could not be saved (a new group does not exist yet)', async () => {
    const { OBJECTS_QUEUE, INSTANCES_QUEUE } = await import('../../../src/editor/saver');
    const queues = new MutationQueues();
    const calls: string[] = [];
    let objectsUp = false;
    const fetch = vi.fn(async (url: string) => {
      calls.push(url.replace('http://svc/v1/scenes/scene-1/', ''));
      return new Response('{}', { status: url.endsWith('object-changes') && !objectsUp ? 503 : 200 });
    });
    const timers: (() => void)[] = [];
    const saver = createSaver({ queues, modelService: 'http://svc', sceneId: 'scene-1', getToken: async () => 't', enabled: () => true, fetch: fetch as unknown as typeof globalThis.fetch, setTimer: (fn) => timers.push(fn), clearTimer: () => {} });
    queues.add(OBJECTS_QUEUE, { key: 'object/g', uuid: 'o1', createdAt: 1, type: 'putObject', objectId: 'g' } as never);
    queues.add(INSTANCES_QUEUE, { key: 'instances/g/add/x', uuid: 'i1', createdAt: 1, groupId: 'g', type: 'addInstances', ids: [0], matrices: new Array(12).fill(0) } as never);
    await saver.save();
    expect(calls).toEqual(['object-changes']);
    expect(queues.size).toBe(2);
    expect(saver.state.rejected).toEqual([]);
    expect(timers).toHaveLength(1);
    objectsUp = true;
    await saver.save();
    expect(calls).toEqual(['object-changes', 'object-changes', 'instance-changes']);
    expect(queues.size).toBe(0);
  });
});
