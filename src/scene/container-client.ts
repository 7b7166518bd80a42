import type { AssetFormat, ContainerHeader } from '../protocol/container-codec.ts';
import { CONTAINER_ERROR_CODES, ContainerError, type ContainerErrorCode } from '../protocol/container-errors.ts';
import { UNREADABLE_REQUEST_ID } from './container-messages.ts';
import { earlyDownloadsStarted, fetchBinary, HttpError, type ProgressListener } from './fetch.ts';
import type { AbortRequest, DecodeReply, DecodeRequest, InstanceSetRequest, ModelRequest, TextureLimitMessage } from './container-worker.ts';
import type { InstanceSet } from '../protocol/instance-set.ts';
import { INSTANCE_SET_MIME } from '../protocol/instances.ts';

/**
 * Main-thread side of the container decoder: one shared module worker (the one index.html started,
 * adopted on first use, else one started then), requests matched to replies by id. The input
 * buffer is transferred (the caller's ArrayBuffer is detached afterwards). Where workers are
 * unavailable (no Worker, or construction refused by the page's policy) decoding falls back to the
 * main thread with the same results and errors.
 */

export interface WorkerDecodeOptions {
  /** Hard cap on the inflated asset in bytes; default DEFAULT_MAX_ASSET_BYTES. */
  maxAssetBytes?: number;
}

export interface WorkerDecodeResult {
  asset: ArrayBuffer;
  header: ContainerHeader;
  format: AssetFormat;
}

/** A model downloaded and decoded, with its GLB's images decoded by glTF image index (null: left to GLTFLoader). */
export interface ModelFileResult extends WorkerDecodeResult {
  images: (ImageBitmap | null)[];
}

type Pending =
  | { kind: 'decode'; resolve(result: WorkerDecodeResult): void; reject(error: Error): void }
  | { kind: 'model'; url: string; progress?: ProgressListener; resolve(result: ModelFileResult): void; reject(error: Error): void }
  | { kind: 'instance-set'; resolve(result: InstanceSet): void; reject(error: Error): void };

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

/**
 * The loader worker index.html starts first thing in a built embed with autoPlay on (and stops
 * again once the scene document shows nothing to decode), with the model and instance-set
 * requests it sent (absolute URL -> request id, ids from EARLY_REQUEST_IDS up) and the final
 * replies it has received. The first request of the app adopts the worker: its models and sets are
 * then taken by URL, once. Its model requests carry no texture limit: their images wait for
 * setEarlyTextureLimit, which createViewer sends as soon as it knows its tier.
 */
export interface EarlyLoader {
  worker: Worker;
  ids: Record<string, number>;
  replies: Record<number, DecodeReply>;
  /** The worker failed before the app adopted it: the app starts its own. */
  failed: boolean;
  adopted?: boolean;
}

export { EARLY_REQUEST_IDS } from './load-requests.ts';
/** The early requests not taken yet, by absolute URL (null when there are none or the worker is gone). */
let earlyIds: Record<string, number> | null = null;
/** Replies to early requests that arrived before the app asked for them. */
const earlyReplies = new Map<number, DecodeReply>();

/** What pending requests are rejected with when the worker is stopped on purpose (not a failure to recover from). */
class WorkerStoppedError extends ContainerError {}

/** Rejects every pending request and drops the worker; the next request starts a new one. */
function failWorker(message: string, stopped = false): void {
  const failed = [...pending.values()];
  pending.clear();
  // The early requests lived in this worker: a new one knows none of them.
  earlyIds = null;
  for (const reply of earlyReplies.values()) closeImages(reply);
  earlyReplies.clear();
  worker?.terminate();
  worker = null;
  for (const request of failed) request.reject(stopped ? new WorkerStoppedError('worker-failed', message) : new ContainerError('worker-failed', message));
}

function settle(reply: DecodeReply): void {
  if (reply.id === UNREADABLE_REQUEST_ID) {
    failWorker(`The model decoder worker failed: ${'error' in reply ? reply.error.message : 'unreadable request'}`);
    return;
  }
  const request = pending.get(reply.id);
  if ('progress' in reply) {
    if (request?.kind === 'model') request.progress?.(reply.progress.loaded, reply.progress.total);
    return;
  }
  if (!request) {
    // An early request's reply, before the app asks for it. A reply to one taken and aborted is
    // dropped, and its images' memory freed at once.
    if (earlyIds && Object.values(earlyIds).includes(reply.id)) earlyReplies.set(reply.id, reply);
    else closeImages(reply);
    return;
  }
  pending.delete(reply.id);
  if (!('error' in reply)) {
    // A reply of the other kind is the worker's fault, not a result.
    if ('set' in reply && request.kind === 'instance-set') request.resolve(reply.set);
    else if ('asset' in reply && request.kind === 'decode') request.resolve({ asset: reply.asset, header: reply.header, format: reply.format });
    else if ('asset' in reply && request.kind === 'model') {
      // The download's last count: progress messages may have been thinned out, or have gone to the
      // page before the app asked.
      if (reply.download) request.progress?.(reply.download.loaded, reply.download.total);
      request.resolve({ asset: reply.asset, header: reply.header, format: reply.format, images: reply.images ?? [] });
    }
    else request.reject(new Error(`The loader worker answered a ${request.kind} request with the wrong kind of reply.`));
    return;
  }
  const { message, code, status } = reply.error;
  if (code === 'http' && request.kind === 'model') {
    request.reject(new HttpError(status ?? 0, request.url, message));
    return;
  }
  request.reject(
    (CONTAINER_ERROR_CODES as readonly string[]).includes(code)
      ? new ContainerError(code as ContainerErrorCode, message)
      : new Error(message),
  );
}

/** Frees the memory of a reply's decoded images now (they are not taken by anyone). */
function closeImages(reply: DecodeReply): void {
  if ('images' in reply) for (const image of reply.images ?? []) image?.close();
}

function sharedWorker(): Worker | null {
  if (worker) return worker;
  if (typeof Worker === 'undefined') return null;
  let created: Worker;
  const early = (globalThis as { __earlyLoader?: EarlyLoader }).__earlyLoader;
  if (early && !early.failed && !early.adopted) {
    early.adopted = true;
    created = early.worker;
    earlyIds = early.ids;
    for (const [id, reply] of Object.entries(early.replies)) earlyReplies.set(Number(id), reply);
    // Held here from now on (the page's object keeps no set alive).
    early.replies = {};
  } else {
    // A loader the page started that cannot be adopted (failed, or this is a new worker after a
    // failure) downloads nothing more.
    if (early && !early.adopted) early.worker.terminate();
    try {
      created = new Worker(new URL('./container-worker.ts', import.meta.url), { type: 'module' });
    } catch {
      return null;
    }
  }
  created.onmessage = (event: MessageEvent<DecodeReply>) => settle(event.data);
  created.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    failWorker(`The model decoder worker failed: ${event.message || 'it could not be started or crashed'}.`);
  };
  created.onmessageerror = () => failWorker('The model decoder worker sent a reply that could not be read.');
  worker = created;
  return worker;
}

/**
 * Decodes a model container in the shared worker. Rejects with a ContainerError carrying the
 * decoder's message and code, or code 'worker-failed' when the worker itself fails.
 */
export function decodeContainerInWorker(buffer: ArrayBuffer, options: WorkerDecodeOptions = {}): Promise<WorkerDecodeResult> {
  const target = sharedWorker();
  if (!target) return decodeContainerOnMainThread(buffer, options);
  const id = nextId++;
  return new Promise<WorkerDecodeResult>((resolve, reject) => {
    pending.set(id, { kind: 'decode', resolve, reject });
    const request: DecodeRequest = { id, buffer, maxAssetBytes: options.maxAssetBytes };
    try {
      target.postMessage(request, [buffer]);
    } catch (error) {
      pending.delete(id);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

export interface ModelFileOptions {
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  maxAssetBytes?: number;
  /** The tier's texture limit: the GLB's images are decoded ahead, scaled to it (null: full size). */
  textureLimit?: number | null;
}

/**
 * Downloads a model container and decodes it with its GLB's images (model-images.ts), all in the
 * shared worker: index.html's request for the URL when it made one (taken once; it may be done
 * before the app asks), else a new one. With byte progress. Errors as the main thread's own download
 * and decode give them (HttpError, ContainerError). Where workers are unavailable, or the page
 * already downloaded the file on this thread, it is downloaded here and its images are left to
 * GLTFLoader.
 */
export function loadModelFile(url: string, options: ModelFileOptions = {}): Promise<ModelFileResult> {
  options.signal?.throwIfAborted();
  // As for the sets: index.html's chain may not have sent its requests yet.
  const started = earlyDownloadsStarted(options.signal);
  return started ? started.then(() => loadModelNow(url, options)) : loadModelNow(url, options);
}

function loadModelNow(url: string, options: ModelFileOptions): Promise<ModelFileResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  const absolute = new URL(url, globalThis.location?.href).href;
  // The page fetched it on this thread (it had no loader worker): no second download.
  const fetchedByPage = earlyIds?.[absolute] === undefined && (globalThis as { __earlyFetches?: Record<string, unknown> }).__earlyFetches?.[url] !== undefined;
  const target = fetchedByPage ? null : sharedWorker();
  if (!target) return loadModelHere(url, options);
  return downloadInWorker<ModelFileResult>(target, url, absolute, signal, {
    entry: (resolve, reject) => ({ kind: 'model', url, progress: options.onProgress, resolve, reject }),
    request: (id) => ({ id, kind: 'model', url: absolute, maxAssetBytes: options.maxAssetBytes, images: true, textureLimit: options.textureLimit ?? null }),
    here: () => loadModelHere(url, options),
    what: 'downloaded and decoded',
  });
}

/** The model downloaded on this thread (the page's early download when it made one) and decoded in the worker if there is one. */
async function loadModelHere(url: string, options: ModelFileOptions): Promise<ModelFileResult> {
  const file = await fetchBinary(url, options.onProgress, options.signal);
  const decoded = await decodeContainerInWorker(file, { maxAssetBytes: options.maxAssetBytes });
  return { ...decoded, images: [] };
}

/**
 * Tells the loader worker index.html started the viewer's texture limit once its tier is known:
 * the models it was asked for before the app ran reply with their images at it (decoded meanwhile
 * at the likely limit, and again if it is larger: src/scene/model-images.ts). Nothing to do on a page
 * without that worker (the app's own requests carry the limit).
 */
export function setEarlyTextureLimit(limit: number | null): void {
  const early = (globalThis as { __earlyLoader?: EarlyLoader }).__earlyLoader;
  if (!early || early.failed) return;
  // Not adopted for this: index.html stops a worker it finds nothing to decode for, unless adopted.
  // Once adopted, it is told while it is still the app's worker.
  if (!early.adopted || worker === early.worker) early.worker.postMessage({ kind: 'texture-limit', limit } satisfies TextureLimitMessage);
}

/**
 * Downloads and decodes a group's instance set in the shared worker (read there, the download does
 * not wait for the main thread's tasks), or on the main thread where workers are unavailable.
 * Rejects with the HTTP status or the decoder's reason; an abort stops the download.
 */
export function fetchInstanceSetInWorker(url: string, signal?: AbortSignal, priority?: RequestPriority): Promise<InstanceSet> {
  signal?.throwIfAborted();
  // The app can read the scene document before index.html's own copy is parsed: until that chain
  // has sent (or not) its loader worker the sets' requests, a request made here would download a
  // set twice. Waited for even once the worker is adopted: index.html starts the worker before it
  // has the scene document. Settled, the wait costs nothing.
  const started = earlyDownloadsStarted(signal);
  return started ? started.then(() => fetchSetNow(url, signal, priority)) : fetchSetNow(url, signal, priority);
}

function fetchSetNow(url: string, signal?: AbortSignal, priority?: RequestPriority): Promise<InstanceSet> {
  signal?.throwIfAborted();
  const target = sharedWorker();
  if (!target) return fetchInstanceSetHere(url, signal, priority);
  // Relative to the page, not to the worker's script.
  const absolute = new URL(url, globalThis.location?.href).href;
  return downloadInWorker<InstanceSet>(target, url, absolute, signal, {
    entry: (resolve, reject) => ({ kind: 'instance-set', resolve, reject }),
    request: (id) => ({ id, kind: 'instance-set', url: absolute, accept: INSTANCE_SET_MIME, priority }),
    here: () => fetchInstanceSetHere(url, signal, priority),
    what: 'downloaded',
  });
}

/**
 * A download by the shared worker, of `absolute`: index.html's request for it when it made one
 * (taken once, with the reply it may already have), else `request` sent now. An abort stops it in
 * the worker. A worker that fails (its script, a crash; not one stopped on purpose) does not lose
 * it: `here` does the work on this thread instead.
 */
function downloadInWorker<T>(
  target: Worker,
  url: string,
  absolute: string,
  signal: AbortSignal | undefined,
  how: {
    entry: (resolve: (value: T) => void, reject: (error: Error) => void) => Pending;
    request: (id: number) => ModelRequest | InstanceSetRequest;
    here: () => Promise<T>;
    what: string;
  },
): Promise<T> {
  const early = earlyIds?.[absolute];
  if (early !== undefined) delete earlyIds![absolute];
  const id = early ?? nextId++;
  const inWorker = new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      pending.delete(id);
      target.postMessage({ kind: 'abort', id } satisfies AbortRequest);
      reject(signal!.reason instanceof Error ? signal!.reason : new DOMException('The download was aborted.', 'AbortError'));
    };
    const done = () => signal?.removeEventListener('abort', onAbort);
    pending.set(
      id,
      how.entry(
        (value) => {
          done();
          resolve(value);
        },
        (error) => {
          done();
          reject(error);
        },
      ),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    if (early === undefined) {
      target.postMessage(how.request(id));
      return;
    }
    const arrived = earlyReplies.get(id);
    if (arrived) {
      earlyReplies.delete(id);
      settle(arrived);
    }
  });
  return inWorker.catch((error: unknown) => {
    if (error instanceof ContainerError && error.code === 'worker-failed' && !(error instanceof WorkerStoppedError) && !signal?.aborted) {
      console.warn(`The loader worker failed, so ${url} is ${how.what} on the main thread:`, error.message);
      return how.here();
    }
    throw error;
  });
}

/** The set downloaded and decoded on this thread; its codec is fetched only then. */
function fetchInstanceSetHere(url: string, signal?: AbortSignal, priority?: RequestPriority): Promise<InstanceSet> {
  return import('./instance-set-fetch.ts').then(({ fetchInstanceSet }) => fetchInstanceSet(url, INSTANCE_SET_MIME, signal, priority));
}

/** The same decode on the calling thread; the fallback where workers are unavailable. */
export async function decodeContainerOnMainThread(
  buffer: ArrayBuffer,
  options: WorkerDecodeOptions = {},
): Promise<WorkerDecodeResult> {
  // The codec (and its inflater) is fetched only here: where workers run, the main thread never needs it.
  const { decodeContainer, toExactArrayBuffer } = await import('../protocol/container-codec.ts');
  const { asset, header, format } = await decodeContainer(new Uint8Array(buffer), options);
  const exact = toExactArrayBuffer(asset);
  return { asset: exact, header, format };
}

/** Stops the shared worker (pending requests are rejected); the next decode starts a new one. */
export function terminateContainerWorker(): void {
  failWorker('The model decoder worker was stopped.', true);
}
