import { ContainerError, decodeContainer, toExactArrayBuffer, type AssetFormat, type ContainerErrorCode, type ContainerHeader } from '../protocol/container-codec.ts';
import type { InstanceSet } from '../protocol/instance-set.ts';
import { fetchInstanceSet } from './instance-set-fetch.ts';

/**
 * Module Web Worker of the loader (index.html starts it in a built embed, else
 * container-client.ts): decodes model containers, and downloads and decodes instance sets, off the
 * main thread. One request, one reply, always: a
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

type ErrorReply = { id: number; error: { message: string; code: ContainerErrorCode | 'internal' | 'instance-set' } };
/** The reply to a container decode. */
export type ContainerReply = { id: number; asset: ArrayBuffer; header: ContainerHeader; format: AssetFormat } | ErrorReply;
/** The reply to an instance set download. */
export type InstanceSetReply = { id: number; set: InstanceSet } | ErrorReply;
export type DecodeReply = ContainerReply | InstanceSetReply;

export interface AnsweredRequest<Reply extends DecodeReply = DecodeReply> {
  reply: Reply;
  /** Buffers to transfer with the reply. */
  transfer: ArrayBuffer[];
}

export { UNREADABLE_REQUEST_ID } from './container-messages.ts';
import { UNREADABLE_REQUEST_ID } from './container-messages.ts';

/** Decodes one request into its reply; never throws. */
export async function answerDecodeRequest(data: unknown): Promise<AnsweredRequest<ContainerReply>> {
  const request = (typeof data === 'object' && data !== null ? data : {}) as Partial<DecodeRequest>;
  const id = typeof request.id === 'number' ? request.id : UNREADABLE_REQUEST_ID;
  try {
    if (!(request.buffer instanceof ArrayBuffer)) {
      throw new TypeError('The decode request has no ArrayBuffer to decode.');
    }
    const { asset, header, format } = await decodeContainer(new Uint8Array(request.buffer), {
      maxAssetBytes: request.maxAssetBytes,
    });
    // Transfer exactly the asset: a view into a larger buffer is copied out first.
    const exact = toExactArrayBuffer(asset);
    return { reply: { id, asset: exact, header, format }, transfer: [exact] };
  } catch (error) {
    const reply: ContainerReply =
      error instanceof ContainerError
        ? { id, error: { message: error.message, code: error.code } }
        : { id, error: { message: error instanceof Error ? error.message : String(error), code: 'internal' } };
    return { reply, transfer: [] };
  }
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
      const message = `The decoded model could not be sent back: ${error instanceof Error ? error.message : String(error)}`;
      scope.postMessage({ id: reply.id, error: { message, code: 'internal' } } satisfies DecodeReply, []);
    }
  };
  const downloads = new Map<number, AbortController>();
  scope.onmessage = (event) => {
    const data = event.data as Partial<InstanceSetRequest | AbortRequest> | null;
    if (data?.kind === 'abort') {
      downloads.get(data.id!)?.abort();
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
