import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeContainer } from '../../../src/protocol/container-codec';
import { encodeInstanceSet, INSTANCE_SET_MIME } from '../../../src/protocol/instance-set';
import { fetchInstanceSetInWorker, loadModelFile, terminateContainerWorker } from '../../../src/scene/container-client';
import { answerModelRequest, installWorkerHandlers, answerInstanceSetRequest, PROGRESS_INTERVAL_MS, type DecodeReply, type ProgressReply, type WorkerScope } from '../../../src/scene/container-worker';
import { HttpError } from '../../../src/scene/fetch';
import { LOW_TEXTURE_LIMIT } from '../../../src/protocol/constants';

/**
 * The loader worker's instance set downloads (container-worker.ts answers, container-client.ts
 * asks): the set decoded and its arrays transferred, the HTTP status and decode errors as messages,
 * an abort that stops the download; and its model downloads, decoded with their images. The
 * container decodes are tested with the codec (tests/unit/protocol/container-codec.test.ts).
 */

const SET = encodeInstanceSet({ ids: new Uint32Array([2, 5, 7]), matrices: new Float32Array(36).map((_, i) => i), nextId: 8, revision: 4 });

afterEach(() => {
  vi.unstubAllGlobals();
  terminateContainerWorker();
});

/** A worker whose scope runs the real handlers on this thread. */
class LoopbackWorker {
  onmessage: ((event: { data: DecodeReply }) => void) | null = null;
  onerror = null;
  onmessageerror = null;
  scope: WorkerScope = {
    onmessage: null,
    onmessageerror: null,
    postMessage: (message) => setTimeout(() => this.onmessage?.({ data: message as DecodeReply }), 0),
  };
  constructor() {
    installWorkerHandlers(this.scope);
  }
  postMessage(message: unknown): void {
    setTimeout(() => this.scope.onmessage?.({ data: message } as MessageEvent), 0);
  }
  terminate(): void {}
}

/**
 * A server behind fetch: '/slow' never answers until aborted (the aborted URLs are returned),
 * '/gone' answers 404 Not Found, anything else `ok()`.
 */
function stubServer(ok: () => Response): string[] {
  const aborted: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      if (url.endsWith('/slow')) {
        return new Promise<Response>((_resolve, reject) =>
          init!.signal!.addEventListener('abort', () => {
            aborted.push(url);
            reject(new DOMException('aborted', 'AbortError'));
          }),
        );
      }
      if (url.endsWith('/gone')) return Promise.resolve(new Response('', { status: 404, statusText: 'Not Found' }));
      return Promise.resolve(ok());
    }),
  );
  return aborted;
}

describe('loader worker: instance sets', () => {
  it('downloads with the set MIME type, decodes, and transfers the arrays', async () => {
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => new Response(SET.slice(), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const { reply, transfer } = await answerInstanceSetRequest({ id: 3, kind: 'instance-set', url: 'http://ms.test/set', accept: INSTANCE_SET_MIME });
    if (!('set' in reply)) throw new Error(JSON.stringify(reply));
    expect([...reply.set.ids]).toEqual([2, 5, 7]);
    expect(reply.set.matrices[35]).toBe(35);
    expect(reply.set.nextId).toBe(8);
    expect(transfer).toEqual([reply.set.ids.buffer, reply.set.matrices.buffer]);
    expect(new Headers(fetchMock.mock.calls[0]![1]!.headers).get('Accept')).toBe(INSTANCE_SET_MIME);
  });

  it('answers an HTTP failure and a set that does not decode with their reasons', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('no', { status: 403, statusText: 'Forbidden' })));
    expect((await answerInstanceSetRequest({ id: 4, kind: 'instance-set', url: 'http://ms.test/set', accept: INSTANCE_SET_MIME })).reply).toEqual({
      id: 4,
      error: { message: 'http://ms.test/set answered 403 Forbidden.', code: 'instance-set' },
    });
    vi.stubGlobal('fetch', vi.fn(async () => new Response(SET.slice(0, 30), { status: 200 })));
    const { reply } = await answerInstanceSetRequest({ id: 5, kind: 'instance-set', url: 'http://ms.test/set', accept: INSTANCE_SET_MIME });
    expect(reply).toMatchObject({ id: 5, error: { code: 'instance-set', message: expect.stringMatching(/truncated|body/) } });
  });

  it('round trip through the client: a set in the worker, an error as an Error, an abort stops the download', async () => {
    vi.stubGlobal('Worker', LoopbackWorker);
    const aborted = stubServer(() => new Response(SET.slice(), { status: 200 }));
    const set = await fetchInstanceSetInWorker('http://ms.test/ok');
    expect([...set.ids]).toEqual([2, 5, 7]);
    await expect(fetchInstanceSetInWorker('http://ms.test/gone')).rejects.toThrow('http://ms.test/gone answered 404 Not Found.');
    const abort = new AbortController();
    const slow = fetchInstanceSetInWorker('http://ms.test/slow', abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort(new Error('closed'));
    await expect(slow).rejects.toThrow('closed');
    await vi.waitFor(() => expect(aborted).toEqual(['http://ms.test/slow']));
  });

  it('a worker that fails hands the set to the main thread; a stopped one does not; a reply of the wrong kind is refused', async () => {
    const posted: unknown[] = [];
    class FailingWorker {
      static last: FailingWorker;
      onmessage: ((event: { data: DecodeReply }) => void) | null = null;
      onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null;
      onmessageerror = null;
      constructor() {
        FailingWorker.last = this;
      }
      postMessage(message: unknown): void {
        posted.push(message);
      }
      terminate(): void {}
    }
    vi.stubGlobal('Worker', FailingWorker);
    const fetchMock = vi.fn(async () => new Response(SET.slice(), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      // The worker crashes with the request out: the set comes from this thread instead.
      const rescued = fetchInstanceSetInWorker('http://ms.test/ok');
      FailingWorker.last.onerror!({ message: 'boom', preventDefault: () => undefined });
      expect([...(await rescued).ids]).toEqual([2, 5, 7]);
      expect(fetchMock).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalled();

      // Stopped on purpose: the request fails, nothing is fetched here.
      const stopped = fetchInstanceSetInWorker('http://ms.test/ok');
      terminateContainerWorker();
      await expect(stopped).rejects.toThrow('stopped');
      expect(fetchMock).toHaveBeenCalledTimes(1);

      // A decode's reply to a set request is the worker's fault.
      const wrong = fetchInstanceSetInWorker('http://ms.test/ok');
      const { id } = posted.at(-1) as { id: number };
      FailingWorker.last.onmessage!({ data: { id, asset: new ArrayBuffer(1), header: {} as never, format: 'glb' } });
      await expect(wrong).rejects.toThrow('wrong kind of reply');
    } finally {
      warn.mockRestore();
    }
  });
});

const HELMET = new Uint8Array(readFileSync(new URL('../../../../shared/models/DamagedHelmet.glb', import.meta.url)));
let helmetContainer: Promise<Uint8Array> | null = null;
/** DamagedHelmet in a model container, encoded once for the file. */
const encodedHelmet = () => (helmetContainer ??= encodeContainer(HELMET));

/** A response that streams `bytes` in `parts` chunks, a task apart. */
function streamed(bytes: Uint8Array, parts: number, delayMs = 0): Response {
  const size = Math.ceil(bytes.length / parts);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= bytes.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      controller.enqueue(bytes.slice(sent, sent + size));
      sent += size;
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Length': String(bytes.length) } });
}

/** The browser's decoder stand-in: a 'bitmap' of a given size per image; returns the sizes asked for. */
function stubDecoder(width: number): number[] {
  const made: number[] = [];
  vi.stubGlobal('createImageBitmap', async (source: Blob | { width: number; height: number }, options?: ImageBitmapOptions) => {
    // A decode at a size (the limit known before it) or a scaling of a bitmap.
    const w = options?.resizeWidth ?? width;
    made.push(w);
    return { width: w, height: w, close: () => undefined };
  });
  return made;
}

describe('loader worker: models', () => {
  it('downloads with progress (at most one reply per interval, and the last), decodes the container and its GLB images, and transfers them all', async () => {
    const container = await encodedHelmet();
    vi.stubGlobal('fetch', vi.fn(async () => streamed(container, 40)));
    stubDecoder(2048);
    const progress: ProgressReply[] = [];
    const start = performance.now();
    const { reply, transfer } = await answerModelRequest({ id: 9, kind: 'model', url: 'http://cdn.test/m/model_file.binz', images: true, textureLimit: 1024 }, (p) => progress.push(p));
    const took = performance.now() - start;
    if (!('asset' in reply)) throw new Error(JSON.stringify(reply));
    expect(new Uint8Array(reply.asset)).toEqual(HELMET);
    expect(reply.format).toBe('glb');
    expect(reply.images!.map((b) => b && b.width)).toEqual([1024, 1024, 1024, 1024, 1024]);
    expect(transfer).toEqual([reply.asset, ...reply.images!]);
    // Thinned out to one per interval; the last count goes with the reply.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(took / PROGRESS_INTERVAL_MS) + 1);
    for (const p of progress) expect(p.progress.total).toBe(container.length);
    expect(reply.download).toEqual({ loaded: container.length, total: container.length });
  });

  it('asked without images, or for a container of glTF JSON, it answers the asset alone', async () => {
    const container = await encodedHelmet();
    vi.stubGlobal('fetch', vi.fn(async () => new Response(container.slice(), { status: 200 })));
    stubDecoder(64);
    const { reply } = await answerModelRequest({ id: 1, kind: 'model', url: 'http://cdn.test/m' }, () => undefined);
    expect('asset' in reply && reply.images).toBeUndefined();
    const gltf = await encodeContainer(new TextEncoder().encode(JSON.stringify({ asset: { version: '2.0' } })));
    vi.stubGlobal('fetch', vi.fn(async () => new Response(gltf.slice(), { status: 200 })));
    const json = await answerModelRequest({ id: 2, kind: 'model', url: 'http://cdn.test/m', images: true, textureLimit: null }, () => undefined);
    expect(json.reply).toMatchObject({ id: 2, format: 'gltf' });
    expect('asset' in json.reply && json.reply.images).toBeUndefined();
  });

  it('a limit that is not a positive number is none: the images keep their size', async () => {
    const container = await encodedHelmet();
    vi.stubGlobal('fetch', vi.fn(async () => new Response(container.slice(), { status: 200 })));
    const made = stubDecoder(2048);
    const { reply } = await answerModelRequest({ id: 3, kind: 'model', url: 'http://cdn.test/m', images: true, textureLimit: -1 }, () => undefined);
    expect('asset' in reply && reply.images!.map((b) => b && b.width)).toEqual([2048, 2048, 2048, 2048, 2048]);
    expect(made).toEqual([2048, 2048, 2048, 2048, 2048]);
  });

  it('answers an HTTP failure with its status and the main thread’s message, and a file that does not decode with its code', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('no', { status: 404, statusText: 'Not Found' })));
    expect((await answerModelRequest({ id: 3, kind: 'model', url: 'http://cdn.test/m' }, () => undefined)).reply).toEqual({
      id: 3,
      error: { message: 'The model file request failed: 404 Not Found.', code: 'http', status: 404 },
    });
    vi.stubGlobal('fetch', vi.fn(async () => new Response(new Uint8Array(40), { status: 200 })));
    expect((await answerModelRequest({ id: 4, kind: 'model', url: 'http://cdn.test/m' }, () => undefined)).reply).toMatchObject({ id: 4, error: { code: 'unknown-format' } });
  });

  it('round trip through the client: progress, the images at the limit, an HttpError, an abort that stops the download', async () => {
    const container = await encodedHelmet();
    vi.stubGlobal('Worker', LoopbackWorker);
    stubDecoder(2048);
    const aborted = stubServer(() => streamed(container, 4, PROGRESS_INTERVAL_MS / 2));
    const seen: number[] = [];
    const model = await loadModelFile('http://cdn.test/ok', { textureLimit: 512, onProgress: (loaded) => seen.push(loaded) });
    expect(new Uint8Array(model.asset)).toEqual(HELMET);
    expect(model.images.map((b) => b && b.width)).toEqual([512, 512, 512, 512, 512]);
    expect(seen.at(-1)).toBe(container.length);
    const gone = await loadModelFile('http://cdn.test/gone').catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(HttpError);
    expect(gone).toMatchObject({ status: 404, url: 'http://cdn.test/gone', message: 'The model file request failed: 404 Not Found.' });
    const abort = new AbortController();
    const slow = loadModelFile('http://cdn.test/slow', { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort(new Error('closed'));
    await expect(slow).rejects.toThrow('closed');
    await vi.waitFor(() => expect(aborted).toEqual(['http://cdn.test/slow']));
  });

  it("a request sent before the page knew its tier decodes its images at the low tier's limit at once, and replies once the page says its texture limit", async () => {
    // The page's limit is one per worker (module-level state here): this is the only test that sends it.
    const container = await encodedHelmet();
    vi.stubGlobal('fetch', vi.fn(async () => new Response(container.slice(), { status: 200 })));
    const made = stubDecoder(2048);
    const worker = new LoopbackWorker();
    const replies: DecodeReply[] = [];
    worker.onmessage = ({ data }) => replies.push(data);
    // As index.html asks when no tier is forced: textureLimit undefined. The images are decoded at
    // once, at the low tier's limit (the likely one on the weak devices whose loads wait for it) ...
    worker.postMessage({ id: 1_000_000_000, kind: 'model', url: 'http://cdn.test/early', images: true, textureLimit: undefined });
    await vi.waitFor(() => expect(made).toEqual([LOW_TEXTURE_LIMIT, LOW_TEXTURE_LIMIT, LOW_TEXTURE_LIMIT, LOW_TEXTURE_LIMIT, LOW_TEXTURE_LIMIT]), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // ... and the reply waits for the limit.
    expect(replies.filter((r) => !('progress' in r))).toEqual([]);
    worker.postMessage({ kind: 'texture-limit', limit: 1024 });
    await vi.waitFor(() => expect(replies.some((r) => 'asset' in r)).toBe(true));
    const reply = replies.find((r) => 'asset' in r) as Extract<DecodeReply, { images?: unknown }>;
    // It was the low tier's: nothing decoded or scaled again (tests/unit/scene/model-images.test.ts
    // has the other limits).
    expect(reply.images!.map((b) => b && b.width)).toEqual([1024, 1024, 1024, 1024, 1024]);
    expect(made).toEqual([1024, 1024, 1024, 1024, 1024]);
    // The first limit stays: the tier is detected once.
    worker.postMessage({ kind: 'texture-limit', limit: 256 });
    // A request that comes once the limit is known decodes its images at the limit, in one step.
    worker.postMessage({ id: 1_000_000_001, kind: 'model', url: 'http://cdn.test/late', images: true });
    await vi.waitFor(() => expect(replies.filter((r) => 'asset' in r)).toHaveLength(2));
    const late = replies.filter((r) => 'asset' in r)[1] as Extract<DecodeReply, { images?: unknown }>;
    expect(late.images!.map((b) => b && b.width)).toEqual([1024, 1024, 1024, 1024, 1024]);
    expect(made.slice(5)).toEqual([1024, 1024, 1024, 1024, 1024]);
  });
});
