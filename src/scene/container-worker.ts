import { ContainerError, decodeContainer, type ContainerErrorCode } from '../protocol/container-codec.ts';
import { toExactArrayBuffer, type AssetFormat, type ContainerHeader } from '../protocol/container-header.ts';
import type { InstanceSet } from '../protocol/instance-set.ts';
import { fetchBinary, HttpError } from './fetch.ts';
import { fetchInstanceSet } from './instance-set-fetch.ts';
import { decodeGlbImages, likelyTextureLimit } from './model-images.ts';

/**
 * Module Web Worker of the loader (index.html starts it in a built embed, else
 * container-client.ts): downloads and decodes model containers and their GLBs' images, and
 * downloads and decodes instance sets, off the main thread. One request, one reply, always: a
 * failure of any kind is answered with an error reply. A download here is read by this thread,
 * so it goes on at full speed while the main thread is busy (a response read by the main thread
 * waits for each of its tasks: tens of megabytes of sets would take as long as the main thread's
 * longest work).
 */

export interface DecodeRequest {
  id: number;
  /** The container file, transferred by the caller. */
  buffer: ArrayBuffer;
  maxAssetBytes?: number;
  /**
   * Decode a GLB's images too (model-images.ts), scaled to this texture limit (null or not a
   * positive number: none); undefined: the page's TextureLimitMessage, its value if it has come,
   * else awaited (the images are decoded meanwhile at likelyTextureLimit, and again if the limit
   * comes out larger). Absent: no images.
   */
  textureLimit?: number | null;
  images?: boolean;
}

/** Downloads a model container (url absolute) with progress replies, then decodes it as a DecodeRequest. */
export interface ModelRequest extends Omit<DecodeRequest, 'buffer'> {
  kind: 'model';
  url: string;
}

/**
 * The viewer's texture limit, once its tier is known: the requests index.html sent before the app
 * ran (textureLimit undefined) reply with their images at it.
 */
export interface TextureLimitMessage {
  kind: 'texture-limit';
  limit: number | null;
}

/** Downloads a group's instance set (url absolute) and decodes it. */
export interface InstanceSetRequest {
  id: number;
  kind: 'instance-set';
  url: string;
  accept: string;
  priority?: RequestPriority;
}

/** Stops the download of request `id` (its reply is then an error nobody waits for). */
export interface AbortRequest {
  kind: 'abort';
  id: number;
}

/** `status`: the HTTP status of a model download that was answered with an error ('http'). */
type ErrorReply = { id: number; error: { message: string; code: ContainerErrorCode | 'internal' | 'instance-set' | 'http'; status?: number } };
/** The reply to a container decode or a model download; `images` by glTF image index, when asked for. */
export type ContainerReply =
  | {
      id: number;
      asset: ArrayBuffer;
      header: ContainerHeader;
      format: AssetFormat;
      images?: (ImageBitmap | null)[];
      /** A model download's bytes, as its last progress would say (a reply may be the only message the app reads). */
      download?: { loaded: number; total: number };
    }
  | ErrorReply;
/** The reply to an instance set download. */
export type InstanceSetReply = { id: number; set: InstanceSet } | ErrorReply;
/** Bytes of a model download so far (any number of these come before its ContainerReply). */
export type ProgressReply = { id: number; progress: { loaded: number; total: number } };
export type DecodeReply = ContainerReply | InstanceSetReply | ProgressReply;

export interface AnsweredRequest<Reply extends DecodeReply = DecodeReply> {
  reply: Reply;
  /** Buffers and bitmaps to transfer with the reply. */
  transfer: Transferable[];
}

export { UNREADABLE_REQUEST_ID } from './container-messages.ts';
import { UNREADABLE_REQUEST_ID } from './container-messages.ts';

/**
 * The page's texture limit (TextureLimitMessage), for the requests that did not carry one: the
 * value once it has come (their images are then decoded at the limited size in one step), else a
 * promise of it.
 */
let setPageLimit: (limit: number | null) => void = () => undefined;
let pageLimit: number | null | Promise<number | null> = new Promise((resolve) => {
  // The first message sets it, as the tier is detected once.
  setPageLimit = (limit) => {
    setPageLimit = () => undefined;
    pageLimit = limit;
    resolve(limit);
  };
});

/** Decodes one request into its reply; never throws. */
export async function answerDecodeRequest(data: unknown): Promise<AnsweredRequest<ContainerReply>> {
  const request = (typeof data === 'object' && data !== null ? data : {}) as Partial<DecodeRequest>;
  const id = typeof request.id === 'number' ? request.id : UNREADABLE_REQUEST_ID;
  try {
    if (!(request.buffer instanceof ArrayBuffer)) {
      throw new TypeError('The decode request has no ArrayBuffer to decode.');
    }
    return await decoded(id, request.buffer, request);
  } catch (error) {
    return { reply: errorReply(id, error), transfer: [] };
  }
}

/**
 * Downloads a model container (posting ProgressReplies through `progress`), then decodes it as
 * answerDecodeRequest does; never throws. An HTTP error is answered with its status.
 */
export async function answerModelRequest(request: ModelRequest, progress: (reply: ProgressReply) => void, signal?: AbortSignal): Promise<AnsweredRequest<ContainerReply>> {
  try {
    let posted = 0;
    const download = { loaded: 0, total: 0 };
    const buffer = await fetchBinary(
      request.url,
      (loaded, total) => {
        download.loaded = loaded;
        download.total = total;
        // At most one message per PROGRESS_INTERVAL_MS: each is a task of the page's main thread.
        // The last count goes with the reply.
        const now = performance.now();
        if (now - posted < PROGRESS_INTERVAL_MS) return;
        posted = now;
        progress({ id: request.id, progress: { loaded, total } });
      },
      signal,
    );
    if (download.loaded === 0) download.loaded = download.total = buffer.byteLength;
    // Images are not decoded for a download nobody waits for any more.
    signal?.throwIfAborted();
    const answer = await decoded(request.id, buffer, request);
    if ('asset' in answer.reply) answer.reply.download = download;
    return answer;
  } catch (error) {
    return { reply: errorReply(request.id, error), transfer: [] };
  }
}

/** The shortest time between two progress replies of one download. */
export const PROGRESS_INTERVAL_MS = 100;

/** A texture limit as a message gives it: a positive number, else none. */
const positiveOrNull = (limit: unknown): number | null => (typeof limit === 'number' && limit > 0 ? limit : null);

async function decoded(id: number, buffer: ArrayBuffer, request: Partial<DecodeRequest>): Promise<AnsweredRequest<ContainerReply>> {
  const { asset, header, format } = await decodeContainer(new Uint8Array(buffer), { maxAssetBytes: request.maxAssetBytes });
  // Transfer exactly the asset: a view into a larger buffer is copied out first.
  const exact = toExactArrayBuffer(asset);
  if (!request.images || format !== 'glb') return { reply: { id, asset: exact, header, format }, transfer: [exact] };
  const limit = request.textureLimit === undefined ? pageLimit : positiveOrNull(request.textureLimit);
  const images = await decodeGlbImages(new Uint8Array(exact), limit, likelyTextureLimit(globalThis.navigator ?? {}));
  const bitmaps = images.filter((image): image is ImageBitmap => image !== null);
  return { reply: { id, asset: exact, header, format, images }, transfer: [exact, ...bitmaps] };
}

function errorReply(id: number, error: unknown): ContainerReply {
  if (error instanceof ContainerError) return { id, error: { message: error.message, code: error.code } };
  if (error instanceof HttpError) return { id, error: { message: error.message, code: 'http', status: error.status } };
  return { id, error: { message: error instanceof Error ? error.message : String(error), code: 'internal' } };
}

/** Downloads and decodes one instance set into its reply (the set's arrays transferred); never throws. */
export async function answerInstanceSetRequest(request: InstanceSetRequest, signal?: AbortSignal): Promise<AnsweredRequest<InstanceSetReply>> {
  try {
    const set = await fetchInstanceSet(request.url, request.accept, signal, request.priority);
    return { reply: { id: request.id, set }, transfer: [set.ids.buffer as ArrayBuffer, set.matrices.buffer as ArrayBuffer] };
  } catch (error) {
    return { reply: { id: request.id, error: { message: error instanceof Error ? error.message : String(error), code: 'instance-set' } }, transfer: [] };
  }
}

export interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  onmessageerror: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

/** Answers the requests posted to `scope` (the worker's global scope; a test passes its own). */
export function installWorkerHandlers(scope: WorkerScope): void {
  const post = ({ reply, transfer }: AnsweredRequest): void => {
    try {
      scope.postMessage(reply, transfer);
    } catch (error) {
      for (const item of transfer) if (typeof ImageBitmap !== 'undefined' && item instanceof ImageBitmap) item.close();
      const message = `The decoded model could not be sent back: ${error instanceof Error ? error.message : String(error)}`;
      scope.postMessage({ id: reply.id, error: { message, code: 'internal' } } satisfies DecodeReply, []);
    }
  };
  const downloads = new Map<number, AbortController>();
  scope.onmessage = (event) => {
    const data = event.data as Partial<InstanceSetRequest | ModelRequest | AbortRequest | TextureLimitMessage> | null;
    if (data?.kind === 'abort') {
      downloads.get(data.id!)?.abort();
      return;
    }
    if (data?.kind === 'texture-limit') {
      setPageLimit(positiveOrNull(data.limit));
      return;
    }
    if (data?.kind === 'model' && typeof data.id === 'number' && typeof data.url === 'string') {
      const abort = new AbortController();
      downloads.set(data.id, abort);
      void answerModelRequest(data as ModelRequest, (reply) => scope.postMessage(reply, []), abort.signal).then((answer) => {
        downloads.delete(data.id!);
        post(answer);
      });
      return;
    }
    if (data?.kind === 'instance-set' && typeof data.id === 'number' && typeof data.url === 'string') {
      const abort = new AbortController();
      downloads.set(data.id, abort);
      void answerInstanceSetRequest(data as InstanceSetRequest, abort.signal).then((answer) => {
        downloads.delete(data.id!);
        post(answer);
      });
      return;
    }
    void answerDecodeRequest(event.data).then(post);
  };
  scope.onmessageerror = () => {
    const message = 'The model decoder could not read a request.';
    post({ reply: { id: UNREADABLE_REQUEST_ID, error: { message, code: 'internal' } }, transfer: [] });
  };
}

// Only inside a worker: tests import answerDecodeRequest from Node.
if ('WorkerGlobalScope' in globalThis) installWorkerHandlers(globalThis as unknown as WorkerScope);
