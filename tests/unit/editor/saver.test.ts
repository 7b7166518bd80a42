import { describe, expect, it, vi } from 'vitest';
import { MutationQueues, nodeMutation } from '../../../src/editor/mutation-queue';
import { createSaver, type SaveState } from '../../../src/editor/saver';

function setup(answers: (Response | Error)[], enabled = true) {
  const queues = new MutationQueues();
  const calls: { url: string; body: { mutations: { uuid: string }[] }; auth: string }[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const events: string[] = [];
  const written: number[] = [];
  let state: SaveState | null = null;
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, body: JSON.parse(init.body as string), auth: (init.headers as Record<string, string>).authorization });
    const next = answers.shift() ?? new Response('{}', { status: 200 });
    if (next instanceof Error) throw next;
    return next;
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
  const add = (nodeId: string, visible = false) => queues.add('model-1', nodeMutation('model-1', nodeId, { visible })!);
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
});
