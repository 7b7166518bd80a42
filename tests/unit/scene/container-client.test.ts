import { afterEach, describe, expect, it, vi } from 'vitest';
import { EARLY_REQUEST_IDS, fetchInstanceSetInWorker, loadModelFile, setEarlyTextureLimit, terminateContainerWorker, type EarlyLoader } from '../../../src/scene/container-client';

/** A stand-in for the loader worker: records what it is sent; the test answers as the worker would. */
class FakeWorker {
  static made = 0;
  static last: FakeWorker | null = null;
  sent: { id?: number; kind: string; url?: string; limit?: number | null }[] = [];
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  terminated = false;
  constructor() {
    FakeWorker.made++;
    FakeWorker.last = this;
  }
  postMessage(message: { id?: number; kind: string; url?: string }): void {
    this.sent.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(id: number, ids: number[]): void {
    this.onmessage?.({ data: { id, set: { ids: new Uint32Array(ids), matrices: new Float32Array(ids.length * 12), nextId: 100, revision: 1 } } } as MessageEvent);
  }
  send(data: unknown): void {
    this.onmessage?.({ data } as MessageEvent);
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
    loader.worker.reply(loader.worker.sent[0]!.id!, [9]);
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

describe('models index.html asked the loader worker for', () => {
  const MODEL = 'http://cdn.test/v1/model_file.binz';
  const modelLoader = () => {
    const worker = new FakeWorker();
    const loader = { worker, ids: { [MODEL]: EARLY_REQUEST_IDS + 2 }, replies: {}, failed: false } as unknown as EarlyLoader & { worker: FakeWorker };
    worker.onmessage = (event) => {
      if (!event.data.progress) loader.replies[event.data.id] = event.data;
    };
    (globalThis as { __earlyLoader?: unknown }).__earlyLoader = loader;
    return loader;
  };
  const reply = (id: number) => ({ id, asset: new ArrayBuffer(4), header: {}, format: 'glb', images: [{ width: 1, closed: false, close() { this.closed = true; } }, null], download: { loaded: 4, total: 4 } });

  it('are told the texture limit once the app knows its tier, without adopting the worker (the page stops it if it has nothing to decode)', () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = modelLoader();
    setEarlyTextureLimit(1024);
    expect(loader.adopted).toBeUndefined();
    expect(loader.worker.sent).toEqual([{ kind: 'texture-limit', limit: 1024 }]);
    expect(FakeWorker.made).toBe(1);
    // Adopted, it is still the one told; a failed one is not.
    void loadModelFile('http://cdn.test/other').catch(() => undefined);
    expect(loader.adopted).toBe(true);
    setEarlyTextureLimit(null);
    expect(loader.worker.sent.filter((m) => m.kind === 'texture-limit')).toEqual([{ kind: 'texture-limit', limit: 1024 }, { kind: 'texture-limit', limit: null }]);
    loader.failed = true;
    setEarlyTextureLimit(512);
    expect(loader.worker.sent.filter((m) => m.kind === 'texture-limit')).toHaveLength(2);
  });

  it('are taken by URL with their images, whether done before the app asked or after (then with progress)', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = modelLoader();
    loader.worker.send({ id: EARLY_REQUEST_IDS + 2, progress: { loaded: 1, total: 4 } });
    loader.worker.send(reply(EARLY_REQUEST_IDS + 2));
    // The progress before the app asked went to the page; the reply's count reaches the app.
    const before: [number, number][] = [];
    const done = await loadModelFile(MODEL, { onProgress: (loaded, total) => before.push([loaded, total]) });
    expect(done.images.map((image) => image?.width ?? null)).toEqual([1, null]);
    expect(before).toEqual([[4, 4]]);
    expect(loader.worker.sent).toEqual([]);

    // A second page load of the same kind: the reply comes after the app asked.
    terminateContainerWorker();
    const later = modelLoader();
    const seen: number[] = [];
    const waiting = loadModelFile(MODEL, { onProgress: (loaded) => seen.push(loaded) });
    await Promise.resolve();
    later.worker.send({ id: EARLY_REQUEST_IDS + 2, progress: { loaded: 3, total: 4 } });
    later.worker.send(reply(EARLY_REQUEST_IDS + 2));
    expect((await waiting).format).toBe('glb');
    expect(seen).toEqual([3, 4]);
    expect(later.worker.sent).toEqual([]);
  });

  it('a reply nobody waits for any more (its load was aborted) has its images closed at once', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = modelLoader();
    const abort = new AbortController();
    const waiting = loadModelFile(MODEL, { signal: abort.signal });
    await Promise.resolve();
    abort.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(loader.worker.sent).toEqual([{ kind: 'abort', id: EARLY_REQUEST_IDS + 2 }]);
    const late = reply(EARLY_REQUEST_IDS + 2);
    loader.worker.send(late);
    expect(late.images[0]!.closed).toBe(true);
  });

  it('a model the page did not ask for is asked of the worker by the app, with its limit', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const loader = modelLoader();
    const other = 'http://cdn.test/v2/model_file.binz';
    const waiting = loadModelFile(other, { textureLimit: 512 });
    await Promise.resolve();
    expect(loader.worker.sent).toEqual([{ id: expect.any(Number), kind: 'model', url: other, images: true, textureLimit: 512, maxAssetBytes: undefined }]);
    expect(loader.worker.sent[0]!.id).toBeLessThan(EARLY_REQUEST_IDS);
    loader.worker.send(reply(loader.worker.sent[0]!.id!));
    expect((await waiting).images).toHaveLength(2);
  });

  it('a model the page downloaded itself (it had no loader worker) is taken from that download, not fetched again', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    (globalThis as { __earlyFetches?: Record<string, Promise<Response>> }).__earlyFetches = { [MODEL]: Promise.resolve(new Response(bytes, { status: 200 })) };
    try {
      const waiting = loadModelFile(MODEL);
      // The page's download is decoded in the app's worker, asked as a decode of its bytes.
      await vi.waitFor(() => expect(FakeWorker.last?.sent).toHaveLength(1));
      const request = FakeWorker.last!.sent[0] as unknown as { id: number; buffer: ArrayBuffer; kind?: string };
      expect(request.kind).toBeUndefined();
      expect(new Uint8Array(request.buffer)).toEqual(bytes);
      FakeWorker.last!.send({ id: request.id, asset: new ArrayBuffer(2), header: {}, format: 'glb' });
      expect((await waiting).images).toEqual([]);
      expect(fetchMock).not.toHaveBeenCalled();
    } finally {
      delete (globalThis as { __earlyFetches?: unknown }).__earlyFetches;
    }
  });
});

