import { describe, expect, it, vi } from 'vitest';
import { CLOSED, createHostApi, MAX_IN_FLIGHT, MAX_PENDING_REQUESTS, NOT_READY, type Execute, type HostApiOptions, type MessageTarget } from '../../../src/api/host-api';
import { HOST_FUNCTION_NAMES, HOST_FUNCTIONS } from '../../../src/protocol/host-api';
import { drainMessages, enqueueMessage, onMessage } from '../../../src/engine/messages';
import { createViewerWorld } from '../../../src/engine/world';

const SELF = 'https://viewer.example';
const HOST = 'https://host.example';
const OTHER = 'https://evil.example';

/** A window that records what is posted to it, with the target origin. */
function fakeWindow() {
  const posted: { message: any; origin: string }[] = [];
  const target: MessageTarget = { postMessage: (message, origin) => void posted.push({ message: structuredClone(message), origin }) };
  return { target, posted };
}

function setup(origins: string[] | null, execute?: Execute, onListen?: HostApiOptions['onListen']) {
  const listeners = new Set<(event: MessageEvent) => void>();
  const self = { addEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.add(l), removeEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.delete(l) };
  const parent = fakeWindow();
  const report = vi.fn();
  const api = createHostApi({ self, parent: parent.target, selfOrigin: SELF, sceneId: 'scene-1', instanceId: 'viewer-1', report, onListen });
  api.setOrigins(origins ?? undefined);
  if (execute) api.ready(execute);
  const send = (data: unknown, origin = HOST) => {
    const source = fakeWindow();
    for (const l of listeners) l({ data, origin, source: source.target } as unknown as MessageEvent);
    return source.posted;
  };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { api, send, parent, report, listeners, flush };
}

describe('host API transport', () => {
  it("a page that may not use the API can neither name the viewer nor learn its name", () => {
    const listeners = new Set<(event: MessageEvent) => void>();
    const self = { addEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.add(l), removeEventListener: () => undefined };
    const api = createHostApi({ self, parent: fakeWindow().target, selfOrigin: SELF, sceneId: 'scene-1', report: vi.fn() });
    api.setOrigins([HOST]);
    const send = (data: unknown, origin: string) => {
      const source = fakeWindow();
      for (const l of listeners) l({ data, origin, source: source.target } as unknown as MessageEvent);
      return source.posted;
    };
    const [refused] = send({ type: 'api.init', instanceId: 'evil' }, OTHER);
    expect(refused.message.error).toMatch(/may not use this viewer's API/);
    expect(refused.message.instanceId).toBe('');
    const [accepted] = send({ type: 'api.init', instanceId: 'shop-viewer' }, HOST);
    expect(accepted.message.error).toBeUndefined();
    expect(accepted.message.instanceId).toBe('shop-viewer');
  });

  it(`answers at most ${MAX_IN_FLIGHT} requests of one page at once; the next waits for an answer first`, async () => {
    const waiting: (() => void)[] = [];
    const execute: Execute = () => new Promise((resolve) => waiting.push(() => resolve('done')));
    const { send, flush } = setup([HOST, OTHER], execute);
    for (let i = 0; i < MAX_IN_FLIGHT; i++) expect(send({ type: 'api.request', requestId: i, func: 'getCamera' })).toEqual([]);
    const [refused] = send({ type: 'api.request', requestId: 'one-too-many', func: 'getCamera' });
    expect(refused.message.error).toMatch(new RegExp(`has ${MAX_IN_FLIGHT} requests waiting`));
    // Another page is not held up by the first one's requests.
    expect(send({ type: 'api.request', requestId: 'other', func: 'getCamera' }, OTHER)).toEqual([]);
    waiting.shift()!();
    await flush();
    expect(send({ type: 'api.request', requestId: 'after', func: 'getCamera' })).toEqual([]);
    expect(waiting.length).toBe(MAX_IN_FLIGHT + 1);
  });

  it('answers api.init with every function name, the instance id and the page rights', () => {
    const { send } = setup([HOST]);
    const [reply] = send({ type: 'api.init' });
    expect(reply.origin).toBe(HOST);
    expect(reply.message).toMatchObject({ type: 'api.init.result', instanceId: 'viewer-1', mayChange: true, ready: false });
    expect(reply.message.functions).toEqual(HOST_FUNCTION_NAMES);
    expect(reply.message.readOnly).toContain('getCamera');
    expect(reply.message.readOnly).not.toContain('setCamera');
  });

  it('runs a valid request with the parsed arguments and replies to the sender origin', async () => {
    const execute = vi.fn<Execute>(async (func, args) => ({ func, args }));
    const { send, flush } = setup([HOST], execute);
    const posted = send({ type: 'api.request', requestId: 7, func: 'setObjectTranslation', arguments: { modelId: 'm', nodeId: '3', translation: [1, 2, 3] } });
    await flush();
    expect(execute).toHaveBeenCalledWith('setObjectTranslation', { modelId: 'm', nodeId: '3', translation: [1, 2, 3] });
    expect(posted).toEqual([{ origin: HOST, message: { type: 'api.response', instanceId: 'viewer-1', requestId: 7, response: { func: 'setObjectTranslation', args: { modelId: 'm', nodeId: '3', translation: [1, 2, 3] } } } }]);
  });

  it('names the bad argument, and never runs the function', async () => {
    const execute = vi.fn<Execute>(async () => null);
    const { send, flush } = setup([HOST], execute);
    const cases: [unknown, RegExp][] = [
      [{ modelId: 'm', nodeId: '3', translation: [1, 'x', 3] }, /arguments\.translation\[1\]: translation\[1\] must be a number/],
      [{ modelId: 'm', translation: [1, 2, 3] }, /arguments\.nodeId: nodeId undefined\./],
      [{ modelId: 'm', nodeId: '3', translation: [1, 2, 3], extra: 1 }, /unknown argument 'extra'/],
      ['not an object', /the arguments must be an object/],
    ];
    for (const [args, error] of cases) {
      const [reply] = send({ type: 'api.request', requestId: 'a', func: 'setObjectTranslation', arguments: args });
      await flush();
      expect(reply.message.error).toMatch(/^setObjectTranslation: /);
      expect(reply.message.error).toMatch(error);
    }
    expect(execute).not.toHaveBeenCalled();
  });

  it('refuses unknown functions, prototype keys and malformed envelopes with an error', async () => {
    const { send, flush } = setup([HOST], async () => 'ran');
    for (const func of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const [reply] = send({ type: 'api.request', requestId: 1, func });
      expect(reply.message.error).toBe(`Unknown function '${func}'. api.init lists the functions.`);
    }
    const [bad] = send({ type: 'api.request', requestId: 2, func: 42 });
    expect(bad.message).toMatchObject({ requestId: 2 });
    expect(bad.message.error).toMatch(/Malformed api.request \(func: /);
    const [noId] = send({ type: 'api.request', func: 'getCamera' });
    expect(noId.message).toMatchObject({ requestId: null });
    await flush();
  });

  it('ignores messages that are not its own', () => {
    const { send } = setup([HOST]);
    for (const data of [null, 1, 'api.init', [], { type: 'webpackOk' }, { type: 'api.response' }, { hello: 1 }]) expect(send(data)).toEqual([]);
  });

  it('answers before the viewer is ready, and after a failure, with the reason', async () => {
    const { api, send, flush } = setup([HOST]);
    expect(send({ type: 'api.request', requestId: 1, func: 'getCamera' })[0].message.error).toBe(NOT_READY);
    api.fail('The scene could not be loaded: 404');
    expect(send({ type: 'api.request', requestId: 2, func: 'getCamera' })[0].message.error).toBe('The scene could not be loaded: 404');
    await flush();
  });

  it('answers a function that throws or rejects with its message', async () => {
    const { send, flush } = setup([HOST], async () => {
      throw new Error(`There is no loaded model 'x'.`);
    });
    const posted = send({ type: 'api.request', requestId: 1, func: 'listModels' });
    await flush();
    expect(posted[0].message.error).toBe("listModels failed: There is no loaded model 'x'.");
  });
});

describe('host API origins', () => {
  it('gives a page outside the list nothing but an error, and no events', async () => {
    const execute = vi.fn<Execute>(async () => 'ran');
    const { api, send, flush } = setup([HOST], execute);
    const init = send({ type: 'api.init' }, OTHER);
    expect(init[0].message.functions).toEqual([]);
    expect(init[0].message.error).toMatch(/The page at https:\/\/evil\.example may not use this viewer's API/);
    const read = send({ type: 'api.request', requestId: 1, func: 'getCamera' }, OTHER);
    const change = send({ type: 'api.request', requestId: 2, func: 'setModelVisibility', arguments: { modelId: 'm', visible: false } }, OTHER);
    await flush();
    expect(read[0].message.error).toMatch(/may not use this viewer's API/);
    expect(change[0].message.error).toMatch(/may not use this viewer's API/);
    expect(execute).not.toHaveBeenCalled();
    expect(api.listening).toBe(false);
  });

  it('with no list: any page reads and hears events, only the own origin changes', async () => {
    const execute = vi.fn<Execute>(async () => 'ran');
    const { api, send, flush } = setup(null, execute);
    const init = send({ type: 'api.init' }, OTHER);
    expect(init[0].message.mayChange).toBe(false);
    const read = send({ type: 'api.request', requestId: 1, func: 'getCamera' }, OTHER);
    const change = send({ type: 'api.request', requestId: 2, func: 'setProjection', arguments: { projection: 'Orthographic' } }, OTHER);
    const own = send({ type: 'api.request', requestId: 3, func: 'setProjection', arguments: { projection: 'Orthographic' } }, SELF);
    await flush();
    expect(read[0].message.response).toBe('ran');
    expect(change[0].message.error).toMatch(/'setProjection' changes the scene, and the page at https:\/\/evil\.example may only read/);
    expect(own[0].message.response).toBe('ran');
    expect(execute).toHaveBeenCalledTimes(2);
    api.emit('raycast', { nodeName: 'a' });
    expect(init.at(-1)).toEqual({ origin: OTHER, message: { type: 'api.event', instanceId: 'viewer-1', event: 'raycast', data: { nodeName: 'a' } } });
  });

  it('an empty list is the open default, as no list: other pages read and hear events, only the own origin changes', async () => {
    const execute = vi.fn<Execute>(async () => 'ran');
    const { api, send, parent, flush } = setup([], execute);
    const init = send({ type: 'api.init' }, OTHER);
    expect(init[0].message).toMatchObject({ mayChange: false, instanceId: 'viewer-1' });
    expect(init[0].message).not.toHaveProperty('error');
    const read = send({ type: 'api.request', requestId: 1, func: 'getCamera' }, OTHER);
    const change = send({ type: 'api.request', requestId: 2, func: 'setProjection', arguments: { projection: 'Orthographic' } }, OTHER);
    const own = send({ type: 'api.request', requestId: 3, func: 'setProjection', arguments: { projection: 'Orthographic' } }, SELF);
    await flush();
    expect(read[0].message.response).toBe('ran');
    expect(change[0].message.error).toMatch(/'setProjection' changes the scene, and the page at https:\/\/evil\.example may only read/);
    expect(own[0].message.response).toBe('ran');
    api.emit('raycast', { nodeName: 'a' });
    expect(init.at(-1)).toMatchObject({ origin: OTHER, message: { type: 'api.event', event: 'raycast' } });
    api.lifecycle('viewerready');
    expect(parent.posted).toEqual([{ origin: '*', message: { type: 'viewerready', instanceId: 'viewer-1', sceneId: 'scene-1' } }]);
  });

  it("'*' opens everything", async () => {
    const { send, flush } = setup(['*'], async () => 'ran');
    const change = send({ type: 'api.request', requestId: 2, func: 'setProjection', arguments: { projection: 'Orthographic' } }, OTHER);
    await flush();
    expect(change[0].message.response).toBe('ran');
  });

  it('sends events only to pages that called api.init, each at its own origin', () => {
    const { api, send } = setup([HOST]);
    const host = send({ type: 'api.init' }, HOST);
    const other = send({ type: 'api.init' }, OTHER);
    api.emit('camerastart', { x: 1 });
    expect(host.at(-1)).toMatchObject({ origin: HOST, message: { type: 'api.event', event: 'camerastart' } });
    expect(other).toHaveLength(1); // only its refused init
    // Taken off the list: it hears nothing more.
    api.setOrigins([OTHER]);
    api.emit('camerastop', {});
    expect(host.at(-1)!.message.event).toBe('camerastart');
  });

  it('says when a page begins to listen, after its api.init is answered, with a way to tell that page alone the state so far', () => {
    const heard: string[] = [];
    const onListen = (origin: string, tell: (event: 'loadprogress', data: unknown) => void) => {
      heard.push(origin);
      tell('loadprogress', { loaded: 4, total: 4, modelsDone: 1, modelsTotal: 1 });
    };
    const made = setup(null, undefined, onListen);
    const first = made.send({ type: 'api.init' }, HOST);
    expect(heard).toEqual([HOST]);
    expect(first.map((p) => p.message.type)).toEqual(['api.init.result', 'api.event']);
    expect(first[1]).toMatchObject({ origin: HOST, message: { event: 'loadprogress', data: { modelsDone: 1 } } });
    // Another page: told alone; the first hears nothing again.
    const second = made.send({ type: 'api.init' }, OTHER);
    expect(heard).toEqual([HOST, OTHER]);
    expect(second.map((p) => p.message.type)).toEqual(['api.init.result', 'api.event']);
    expect(first).toHaveLength(2);
    // Refused pages do not listen.
    made.send({ type: 'api.init', instanceId: 'someone-else' }, HOST);
    expect(heard).toEqual([HOST, OTHER]);
  });

  it('a page that calls api.init again from the same window is not new; a new window of the same origin is', () => {
    const heard: string[] = [];
    const { listeners } = setup(null, undefined, (origin) => heard.push(origin));
    const page = fakeWindow();
    const send = (source: ReturnType<typeof fakeWindow>) => {
      for (const l of listeners) l({ data: { type: 'api.init' }, origin: HOST, source: source.target } as unknown as MessageEvent);
    };
    send(page);
    send(page);
    expect(heard).toEqual([HOST]);
    send(fakeWindow());
    expect(heard).toEqual([HOST, HOST]);
  });

  it('posts viewerinit/viewerready to the listed origins only (to "*" when open)', () => {
    const { api, parent } = setup([HOST]);
    api.lifecycle('viewerready');
    expect(parent.posted.map((p) => p.origin).sort()).toEqual([HOST, SELF].sort());
    expect(parent.posted[0].message).toEqual({ type: 'viewerready', instanceId: 'viewer-1', sceneId: 'scene-1' });
    const open = setup(null);
    open.api.lifecycle('viewerinit');
    expect(open.parent.posted).toEqual([{ origin: '*', message: { type: 'viewerinit', instanceId: 'viewer-1', sceneId: 'scene-1' } }]);
  });

  it('holds requests until the allowlist is known, then answers them in order', async () => {
    const listeners = new Set<(event: MessageEvent) => void>();
    const self = { addEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.add(l), removeEventListener: () => {} };
    const api = createHostApi({ self, parent: null, selfOrigin: SELF, sceneId: 's' });
    const source = fakeWindow();
    for (let i = 0; i < MAX_PENDING_REQUESTS + 2; i++) for (const l of listeners) l({ data: { type: 'api.request', requestId: i, func: 'getCamera' }, origin: OTHER, source: source.target } as unknown as MessageEvent);
    // The two oldest were dropped with a clear error; nothing else was answered yet.
    expect(source.posted.map((p) => p.message.requestId)).toEqual([0, 1]);
    expect(source.posted[0].message.error).toMatch(/still loading and more than 1000 requests were waiting/);
    api.setOrigins([HOST]);
    expect(source.posted).toHaveLength(MAX_PENDING_REQUESTS + 2);
    expect(source.posted[2].message.error).toMatch(/may not use this viewer's API/);
  });
});

describe('host API order of one page', () => {
  const TOKEN = { token: 'e30.e30.bm90LWEtc2lnbmF0dXJl' };
  const NOTE = { position: [0, 1, 0], title: 'Valve' };

  /** An execute whose calls wait until the test settles them, in any order. */
  function deferredExecute() {
    const calls: { func: string; resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
    const execute: Execute = (func) => new Promise((resolve, reject) => calls.push({ func, resolve, reject }));
    const started = () => calls.map((c) => c.func);
    const call = (func: string) => calls.find((c) => c.func === func)!;
    return { execute, calls, started, call };
  }

  /** One page: every message from the same window (the real source of a host page). */
  function page(made: ReturnType<typeof setup>, origin = HOST) {
    const window = fakeWindow();
    const send = (requestId: number | string, func: string, args?: unknown) => {
      for (const l of made.listeners) l({ data: { type: 'api.request', requestId, func, arguments: args }, origin, source: window.target } as unknown as MessageEvent);
    };
    const answers = () => window.posted.map((p) => p.message).filter((m) => m.type === 'api.response');
    const answer = (requestId: number | string) => answers().find((m) => m.requestId === requestId);
    return { send, answers, answer };
  }

  it("runs a page's changes in the order sent: createAnnotation only after setAuthToken is answered; reads wait only behind that page's changes", async () => {
    const run = deferredExecute();
    const made = setup([HOST, OTHER], run.execute);
    const host = page(made);
    const other = page(made, OTHER);
    host.send(1, 'setAuthToken', TOKEN);
    host.send(2, 'createAnnotation', NOTE);
    // The README's rule: a read of the host's is answered at once unless a change of its is still queued.
    host.send(3, 'getCamera');
    // Another page's read is not held up by this page's changes.
    other.send('o', 'getCamera');
    await made.flush();
    expect(run.started()).toEqual(['setAuthToken', 'getCamera']);
    expect(host.answers()).toEqual([]);

    run.call('setAuthToken').resolve({ signedIn: true });
    await made.flush();
    expect(host.answer(1)).toMatchObject({ response: { signedIn: true } });
    expect(run.started()).toEqual(['setAuthToken', 'getCamera', 'createAnnotation']);
    expect(host.answer(2)).toBeUndefined();

    run.call('createAnnotation').resolve({ id: 'note-1' });
    await made.flush();
    expect(host.answer(2)).toMatchObject({ response: { id: 'note-1' } });
    // The read sent behind the changes runs after them (it sees them).
    expect(run.started()).toEqual(['setAuthToken', 'getCamera', 'createAnnotation', 'getCamera']);
    run.calls[3].resolve('camera');
    await made.flush();
    expect(host.answers().map((m) => m.requestId)).toEqual([1, 2, 3]);
  });

  it('answers a read at once when none of its changes waits, and a running read does not hold the changes sent after it', async () => {
    const run = deferredExecute();
    const made = setup([HOST], run.execute);
    const host = page(made);
    host.send(1, 'getCamera');
    expect(run.started()).toEqual(['getCamera']);
    host.send(2, 'setProjection', { projection: 'Orthographic' });
    host.send(3, 'setProjection', { projection: 'Perspective' });
    expect(run.started()).toEqual(['getCamera', 'setProjection']);
    run.calls[1].resolve(null);
    await made.flush();
    expect(run.started()).toEqual(['getCamera', 'setProjection', 'setProjection']);
    expect(host.answer(1)).toBeUndefined();
    run.calls[0].resolve('camera');
    run.calls[2].resolve(null);
    await made.flush();
    expect(host.answers().map((m) => m.requestId).sort()).toEqual([1, 2, 3]);
  });

  it('a change that fails (rejects or throws) does not hold the next: each gets its own answer', async () => {
    const run = deferredExecute();
    let throwNext = false;
    const execute: Execute = (func, args) => {
      if (throwNext && func === 'setProjection') {
        throwNext = false;
        throw new Error('no camera');
      }
      return run.execute(func, args);
    };
    const made = setup([HOST], execute);
    const host = page(made);
    host.send(1, 'setAuthToken', TOKEN);
    host.send(2, 'setProjection', { projection: 'Orthographic' });
    host.send(3, 'createAnnotation', NOTE);
    run.call('setAuthToken').reject(new Error('The model service refused the token: Invalid token'));
    throwNext = true;
    await made.flush();
    expect(host.answer(1)).toMatchObject({ error: 'setAuthToken failed: The model service refused the token: Invalid token' });
    expect(host.answer(2)).toMatchObject({ error: 'setProjection failed: no camera' });
    expect(run.started()).toEqual(['setAuthToken', 'createAnnotation']);
    run.call('createAnnotation').resolve({ id: 'note-1' });
    await made.flush();
    expect(host.answer(3)).toMatchObject({ response: { id: 'note-1' } });
    // Nothing is left waiting: the next change runs at once.
    host.send(4, 'setProjection', { projection: 'Perspective' });
    expect(run.started()).toEqual(['setAuthToken', 'createAnnotation', 'setProjection']);
  });

  it('keeps the pages apart: another window of the same origin is another page', async () => {
    const run = deferredExecute();
    const made = setup([HOST], run.execute);
    const first = page(made);
    const second = page(made);
    first.send(1, 'setAuthToken', TOKEN);
    second.send(1, 'setProjection', { projection: 'Orthographic' });
    expect(run.started()).toEqual(['setAuthToken', 'setProjection']);
  });

  it(`counts the changes waiting in order as requests in flight (at most ${MAX_IN_FLIGHT} a page)`, async () => {
    const run = deferredExecute();
    const made = setup([HOST], run.execute);
    const host = page(made);
    for (let i = 0; i < MAX_IN_FLIGHT; i++) host.send(i, 'setProjection', { projection: 'Orthographic' });
    expect(run.started()).toEqual(['setProjection']);
    host.send('one-too-many', 'setProjection', { projection: 'Orthographic' });
    expect(host.answer('one-too-many')).toMatchObject({ error: expect.stringMatching(new RegExp(`has ${MAX_IN_FLIGHT} requests waiting`)) });
    for (let i = 0; i < MAX_IN_FLIGHT; i++) {
      run.calls[i].resolve(i);
      await made.flush();
    }
    expect(host.answers().filter((m) => 'response' in m).map((m) => m.response)).toEqual(Array.from({ length: MAX_IN_FLIGHT }, (_, i) => i));
  });

  it('dispose runs nothing that waited: each is answered that the viewer stopped', async () => {
    const run = deferredExecute();
    const made = setup([HOST], run.execute);
    const host = page(made);
    host.send(1, 'setAuthToken', TOKEN);
    host.send(2, 'createAnnotation', NOTE);
    host.send(3, 'getCamera');
    made.api.dispose();
    expect(host.answers()).toEqual([
      expect.objectContaining({ requestId: 2, error: CLOSED }),
      expect.objectContaining({ requestId: 3, error: CLOSED }),
    ]);
    run.call('setAuthToken').resolve({ signedIn: true });
    await made.flush();
    expect(run.started()).toEqual(['setAuthToken']);
  });
});

describe('host API instance ids', () => {
  it('adopts the first api.init instanceId when the URL gave none, and refuses another', () => {
    const listeners = new Set<(event: MessageEvent) => void>();
    const self = { addEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.add(l), removeEventListener: () => {} };
    const api = createHostApi({ self, parent: null, selfOrigin: SELF, sceneId: 's' });
    api.setOrigins(['*']);
    const source = fakeWindow();
    const send = (data: unknown) => listeners.forEach((l) => l({ data, origin: HOST, source: source.target } as unknown as MessageEvent));
    send({ type: 'api.init', instanceId: 'left' });
    expect(api.instanceId).toBe('left');
    send({ type: 'api.init', instanceId: 'right' });
    expect(source.posted[1].message.error).toBe("This viewer's instanceId is 'left', not 'right'.");
    send({ type: 'api.request', requestId: 1, func: 'getCamera', instanceId: 'right' });
    expect(source.posted[2].message.error).toBe("This viewer's instanceId is 'left', not 'right'.");
  });

  it('generates one when nobody gives it', () => {
    const api = createHostApi({ self: { addEventListener() {}, removeEventListener() {} }, parent: null, selfOrigin: SELF, sceneId: 's', instanceId: 'bad id!' });
    expect(api.instanceId).toMatch(/^[0-9a-f]{18}$/);
  });
});

describe('host API through the message system', () => {
  it('runs functions only when the frame drains the queue', async () => {
    const world = createViewerWorld();
    const calls: string[] = [];
    onMessage(world, 'host-api', (_w, payload) => {
      calls.push((payload as { func: string }).func);
      return 'done';
    });
    const execute: Execute = (func, args) =>
      new Promise((resolve, reject) => enqueueMessage(world, { source: 'host', type: 'host-api', payload: { func, args }, reply: (r, e) => (e ? reject(e) : resolve(r)) }));
    const { send, flush } = setup([HOST], execute);
    const posted = send({ type: 'api.request', requestId: 1, func: 'getCamera' });
    await flush();
    expect(calls).toEqual([]);
    expect(posted).toEqual([]);
    drainMessages(world);
    await flush();
    expect(calls).toEqual(['getCamera']);
    expect(posted[0].message.response).toBe('done');
  });
});

describe('host API fuzzing', () => {
  it('10,000 random messages: no exception, every request answered, still answering after', async () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
    const junk = (): unknown =>
      pick<() => unknown>([
        () => null,
        () => random() * 1e308,
        () => NaN,
        () => 'x'.repeat(Math.floor(random() * 200_000)),
        () => [junk(), junk()],
        () => ({ __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }),
        () => JSON.parse('{"__proto__": {"polluted": true}, "modelId": "m"}'),
        () => ({ modelId: 'm', nodeId: '1', translation: [random(), random(), random()] }),
        () => undefined,
        () => -1,
      ])();
    const execute = vi.fn<Execute>(async () => ({ ok: true }));
    const { send, report, flush } = setup(['*'], execute);
    let requests = 0;
    const inboxes: any[][] = [];
    for (let i = 0; i < 10_000; i++) {
      const kind = random();
      let data: unknown;
      if (kind < 0.7) {
        requests++;
        data = { type: 'api.request', requestId: i, func: pick([...HOST_FUNCTION_NAMES, '__proto__', 'constructor', 'x'.repeat(5000), 'valueOf']), arguments: junk() };
      } else if (kind < 0.8) {
        requests++;
        data = { type: 'api.request', requestId: junk(), func: junk(), arguments: junk() };
      } else if (kind < 0.9) data = { type: 'api.init', instanceId: junk() };
      else data = junk();
      expect(() => inboxes.push(send(data, pick([HOST, OTHER, 'null', ''])))).not.toThrow();
    }
    await flush();
    await flush();
    const responses = inboxes.flat().filter((a) => a.message.type === 'api.response');
    expect(responses).toHaveLength(requests);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(report).not.toHaveBeenCalled();
    // Only arguments the function's schema accepts reach the viewer (tests/e2e/host-api.spec.ts
    // sends change functions' wrong arguments through the real viewer too, fewer of them).
    expect(execute).toHaveBeenCalled();
    for (const [func, args] of execute.mock.calls) expect(HOST_FUNCTIONS[func].args.safeParse(args).success, func).toBe(true);
    const after = send({ type: 'api.request', requestId: 'last', func: 'getCamera' });
    await flush();
    expect(after[0].message).toMatchObject({ requestId: 'last', response: { ok: true } });
  });
});
