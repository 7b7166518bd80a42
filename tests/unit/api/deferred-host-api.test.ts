import { describe, expect, it, vi } from 'vitest';
import { createDeferredHostApi, MAX_HELD_MESSAGES } from '../../../src/api/deferred-host-api';
import type { HostApi, HostApiOptions } from '../../../src/api/host-api';

/** A window stand-in: listeners added and removed, messages dispatched as the browser would. */
function fakeWindow() {
  const listeners = new Set<(event: MessageEvent) => void>();
  return {
    addEventListener: (_: 'message', l: (event: MessageEvent) => void) => listeners.add(l),
    removeEventListener: (_: 'message', l: (event: MessageEvent) => void) => listeners.delete(l),
    post(data: unknown, origin = 'https://host.example') {
      for (const l of [...listeners]) l({ data, origin, source: null } as unknown as MessageEvent);
    },
    get count() {
      return listeners.size;
    },
  };
}

/** A real-API stand-in recording every call in order. */
function recordingApi(log: unknown[][]): HostApi {
  return {
    instanceId: 'real-id',
    listening: true,
    setOrigins: (o) => log.push(['setOrigins', o]),
    ready: () => log.push(['ready']),
    fail: (r) => log.push(['fail', r]),
    lifecycle: (t) => log.push(['lifecycle', t]),
    emit: (e, d) => log.push(['emit', e, d]),
    handle: (data, origin) => log.push(['handle', data, origin]),
    dispose: () => log.push(['dispose']),
  };
}

function setup() {
  const self = fakeWindow();
  const options: HostApiOptions = { self, parent: null, selfOrigin: 'https://viewer.example', sceneId: 's1', instanceId: 'given' };
  let resolve!: (create: (o: HostApiOptions) => HostApi) => void;
  let reject!: (error: unknown) => void;
  const load = new Promise<(o: HostApiOptions) => HostApi>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const report = vi.fn();
  const api = createDeferredHostApi(options, load, report);
  return { self, options, api, report, resolve, reject };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the deferred host API', () => {
  it('holds messages and calls while its chunk loads and replays them in order', async () => {
    const { self, api, resolve } = setup();
    const log: unknown[][] = [];
    api.lifecycle('viewerinit');
    self.post({ type: 'api.init' });
    api.setOrigins(['https://host.example']);
    self.post({ type: 'api.request', func: 'getCamera', requestId: 'r1' }, 'https://other.example');
    // Events before anyone could have listened are dropped, as the real API drops them.
    api.emit('camerastart', {});
    expect(api.listening).toBe(false);
    expect(api.instanceId).toBe('given');
    resolve((options) => {
      expect(options.sceneId).toBe('s1');
      return recordingApi(log);
    });
    await settle();
    expect(log).toEqual([
      ['lifecycle', 'viewerinit'],
      ['handle', { type: 'api.init' }, 'https://host.example'],
      ['setOrigins', ['https://host.example']],
      ['handle', { type: 'api.request', func: 'getCamera', requestId: 'r1' }, 'https://other.example'],
    ]);
    // The holding listener is gone (the real API listens for itself); later calls go straight through.
    expect(self.count).toBe(0);
    api.ready(async () => null);
    api.emit('camerastop', { a: 1 });
    expect(log.slice(4)).toEqual([['ready'], ['emit', 'camerastop', { a: 1 }]]);
    expect(api.listening).toBe(true);
    expect(api.instanceId).toBe('real-id');
    api.dispose();
    expect(log.at(-1)).toEqual(['dispose']);
  });

  it('says so when the chunk cannot be loaded, and the viewer goes on without it', async () => {
    const { self, api, report, reject } = setup();
    self.post({ type: 'api.init' });
    reject(new Error('network down'));
    await settle();
    expect(report).toHaveBeenCalledWith('The host-page API could not be loaded: host pages cannot drive this viewer.', expect.objectContaining({ message: 'network down' }));
    expect(self.count).toBe(0);
    expect(() => {
      api.lifecycle('viewerready');
      api.ready(async () => null);
      self.post({ type: 'api.init' });
      api.dispose();
    }).not.toThrow();
  });

  it('holds at most MAX_HELD_MESSAGES and reports the overflow once', async () => {
    const { self, api, report, resolve } = setup();
    // Other window traffic is neither held nor counted.
    for (let i = 0; i < 50; i++) self.post({ source: 'react-devtools', i });
    for (let i = 0; i < MAX_HELD_MESSAGES + 5; i++) self.post({ type: 'api.request', i });
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0][0]).toMatch(`messages beyond ${MAX_HELD_MESSAGES} are dropped`);
    const log: unknown[][] = [];
    resolve(() => recordingApi(log));
    await settle();
    expect(log).toHaveLength(MAX_HELD_MESSAGES);
    expect(log.at(-1)).toEqual(['handle', { type: 'api.request', i: MAX_HELD_MESSAGES - 1 }, 'https://host.example']);
    expect(log.every((entry) => (entry[1] as { type: string }).type === 'api.request')).toBe(true);
    api.dispose();
  });

  it('disposed before the chunk arrives: the real API is never made', async () => {
    const { self, api, resolve } = setup();
    const create = vi.fn();
    api.dispose();
    expect(self.count).toBe(0);
    resolve(create);
    await settle();
    expect(create).not.toHaveBeenCalled();
  });
});
