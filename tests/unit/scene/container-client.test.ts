import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INSTANCE_SET_MIME } from '../../../src/protocol/instances';
import { FIRST_PICTURE_INSTANCES, instanceSetUrl } from '../../../src/scene/instance-assets';
import { EARLY_REQUEST_IDS, fetchInstanceSetInWorker, terminateContainerWorker, type EarlyLoader } from '../../../src/scene/container-client';

/** A stand-in for the loader worker: records what it is sent; the test answers as the worker would. */
class FakeWorker {
  static made = 0;
  static last: FakeWorker | null = null;
  sent: { id: number; kind: string; url?: string }[] = [];
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  terminated = false;
  constructor() {
    FakeWorker.made++;
    FakeWorker.last = this;
  }
  postMessage(message: { id: number; kind: string; url?: string }): void {
    this.sent.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(id: number, ids: number[]): void {
    this.onmessage?.({ data: { id, set: { ids: new Uint32Array(ids), matrices: new Float32Array(ids.length * 12), nextId: 100, revision: 1 } } } as MessageEvent);
  }
}

const URL_A = 'http://ms.test/v1/scenes/s/groups/a/instances';
const URL_B = 'http://ms.test/v1/scenes/s/groups/b/instances';

function earlyLoader(): EarlyLoader & { worker: FakeWorker } {
  const worker = new FakeWorker();
  const loader = { worker, ids: { [URL_A]: EARLY_REQUEST_IDS, [URL_B]: EARLY_REQUEST_IDS + 1 }, replies: {}, failed: false } as unknown as EarlyLoader & { worker: FakeWorker };
  // As index.html does until the app adopts the worker.
  worker.onmessage = (event) => {
    loader.replies[event.data.id] = event.data;
  };
  return loader;
}

afterEach(() => {
  terminateContainerWorker();
  delete (globalThis as { __earlyLoader?: unknown }).__earlyLoader;
  vi.unstubAllGlobals();
  FakeWorker.made = 0;
  FakeWorker.last = null;
});

describe('the loader worker index.html started', () => {
  it('is asked by index.html with the app\'s ids, media type, priority rule and set URLs (its inline script cannot import them)', () => {
    const page = readFileSync(join(__dirname, '../../../index.html'), 'utf8');
    expect(page).toContain(`var id = ${EARLY_REQUEST_IDS} + i;`);
    expect(page).toContain(`accept: '${INSTANCE_SET_MIME}'`);
    expect(page).toContain(`object.instanceCount <= ${FIRST_PICTURE_INSTANCES}`);
    const config = { endpoints: { modelService: 'SERVICE' } } as Parameters<typeof instanceSetUrl>[0];
    expect(instanceSetUrl(config, 'SCENE', 'GROUP')).toBe('SERVICE/v1/scenes/SCENE/groups/GROUP/instances');
    expect(page).toContain("service + '/v1/scenes/' + encodeURIComponent(doc._id) + '/groups/' + encodeURIComponent(object.uuid) + '/instances'");
  });

  it('is adopted: its sets are taken by URL once, whether they arrived before or after the app asked', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = earlyLoader();
    (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
    // A arrives before the app asks for it.
    loader.worker.reply(EARLY_REQUEST_IDS, [1, 2]);
    const a = await fetchInstanceSetInWorker(URL_A);
    expect([...a.ids]).toEqual([1, 2]);
    expect(loader.adopted).toBe(true);
    // B after: the app waits for the early request, sends none of its own.
    const b = fetchInstanceSetInWorker(URL_B);
    await Promise.resolve();
    loader.worker.reply(EARLY_REQUEST_IDS + 1, [7]);
    expect([...(await b).ids]).toEqual([7]);
    expect(loader.worker.sent).toEqual([]);
    expect(loader.ids).toEqual({});
    expect(FakeWorker.made).toBe(1);
    // Taken: asked again, the set is a new request in the same worker.
    const again = fetchInstanceSetInWorker(URL_A);
    expect(loader.worker.sent).toEqual([expect.objectContaining({ kind: 'instance-set', url: URL_A })]);
    loader.worker.reply(loader.worker.sent[0]!.id, [9]);
    expect([...(await again).ids]).toEqual([9]);
    expect(loader.worker.sent[0]!.id).toBeLessThan(EARLY_REQUEST_IDS);
  });

  it('an abort while waiting for an early set stops its download in the worker', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = earlyLoader();
    (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
    const abort = new AbortController();
    const waiting = fetchInstanceSetInWorker(URL_A, abort.signal);
    abort.abort(new DOMException('The load was cancelled.', 'AbortError'));
    await expect(waiting).rejects.toThrow('The load was cancelled.');
    expect(loader.worker.sent).toEqual([{ kind: 'abort', id: EARLY_REQUEST_IDS }]);
  });

  it('one that failed before the app came is not adopted: the app starts its own and asks itself', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = earlyLoader();
    loader.failed = true;
    (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
    const pending = fetchInstanceSetInWorker(URL_A);
    expect(FakeWorker.made).toBe(2);
    expect(loader.adopted).toBeUndefined();
    expect(loader.worker.sent).toEqual([]);
    expect(loader.worker.terminated).toBe(true);
    // The app's own worker got the request.
    expect(FakeWorker.last).not.toBe(loader.worker);
    expect(FakeWorker.last!.sent).toEqual([expect.objectContaining({ kind: 'instance-set', url: URL_A })]);
    terminateContainerWorker();
    await expect(pending).rejects.toThrow('stopped');
  });

  it('a worker that fails after adoption forgets the early requests: the next one asks a new worker', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = earlyLoader();
    (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
    const first = fetchInstanceSetInWorker(URL_A).catch((error: Error) => error);
    vi.stubGlobal('fetch', vi.fn(async () => new Response('gone', { status: 503 })));
    loader.worker.onerror?.({ message: 'crashed', preventDefault: () => undefined } as ErrorEvent);
    // The failed worker's set is fetched on the main thread instead (here: answered 503).
    expect(String(await first)).toContain('503');
    const next = fetchInstanceSetInWorker(URL_B);
    expect(FakeWorker.made).toBe(2);
    terminateContainerWorker();
    await expect(next).rejects.toThrow('stopped');
  });

  it('asked before the page has made its loader (the app read the scene document first), the app waits for it instead of downloading twice', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    let started!: () => void;
    (globalThis as { __earlyFetchesStarted?: Promise<void> }).__earlyFetchesStarted = new Promise<void>((resolve) => (started = resolve));
    try {
      const waiting = fetchInstanceSetInWorker(URL_A);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(FakeWorker.made).toBe(0);
      // The page's chain makes its loader, asks for the sets, then settles.
      const loader = earlyLoader();
      (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
      started();
      await new Promise((resolve) => setTimeout(resolve, 0));
      loader.worker.reply(EARLY_REQUEST_IDS, [3]);
      expect([...(await waiting).ids]).toEqual([3]);
      expect(FakeWorker.made).toBe(1);
      expect(loader.adopted).toBe(true);
      expect(loader.worker.sent).toEqual([]);
      expect(loader.replies).toEqual({});
    } finally {
      delete (globalThis as { __earlyFetchesStarted?: unknown }).__earlyFetchesStarted;
    }
  });
});
