import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeInstanceSet, INSTANCE_SET_MIME } from '../../../src/protocol/instance-set';
import { fetchInstanceSetInWorker, terminateContainerWorker } from '../../../src/scene/container-client';
import { answerInstanceSetRequest, installWorkerHandlers, type DecodeReply, type WorkerScope } from '../../../src/scene/container-worker';

/**
 * The loader worker's instance set downloads (container-worker.ts answers, container-client.ts
 * asks): the set decoded and its arrays transferred, the HTTP status and decode errors as messages,
 * an abort that stops the download. The container decodes are tested with the codec
 * (tests/unit/protocol/container-codec.test.ts).
 */

const SET = encodeInstanceSet({ ids: new Uint32Array([2, 5, 7]), matrices: new Float32Array(36).map((_, i) => i), nextId: 8, revision: 4 });

afterEach(() => {
  vi.unstubAllGlobals();
  terminateContainerWorker();
});

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
    // A worker whose scope runs the real handlers on this thread.
    const aborted: string[] = [];
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
    vi.stubGlobal('Worker', LoopbackWorker);
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
        if (url.endsWith('/gone')) return Promise.resolve(new Response('', { status: 404 }));
        return Promise.resolve(new Response(SET.slice(), { status: 200 }));
      }),
    );
    const set = await fetchInstanceSetInWorker('http://ms.test/ok');
    expect([...set.ids]).toEqual([2, 5, 7]);
    await expect(fetchInstanceSetInWorker('http://ms.test/gone')).rejects.toThrow('http://ms.test/gone answered 404.');
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

