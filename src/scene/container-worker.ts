import { ContainerError, decodeContainer, toExactArrayBuffer, type AssetFormat, type ContainerErrorCode, type ContainerHeader } from '../protocol/container-codec.ts';

/**
 * Module Web Worker that decodes model containers off the main thread (container-client.ts starts
 * it). One request, one reply, always: a failure of any kind is answered with an error reply.
 */

export interface DecodeRequest {
  id: number;
  /** The container file, transferred by the caller. */
  buffer: ArrayBuffer;
  maxAssetBytes?: number;
}

export type DecodeReply =
  | { id: number; asset: ArrayBuffer; header: ContainerHeader; format: AssetFormat }
  | { id: number; error: { message: string; code: ContainerErrorCode | 'internal' } };

export interface AnsweredRequest {
  reply: DecodeReply;
  /** Buffers to transfer with the reply. */
  transfer: ArrayBuffer[];
}

export { UNREADABLE_REQUEST_ID } from './container-messages.ts';
import { UNREADABLE_REQUEST_ID } from './container-messages.ts';

/** Decodes one request into its reply; never throws. */
export async function answerDecodeRequest(data: unknown): Promise<AnsweredRequest> {
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
    const reply: DecodeReply =
      error instanceof ContainerError
        ? { id, error: { message: error.message, code: error.code } }
        : { id, error: { message: error instanceof Error ? error.message : String(error), code: 'internal' } };
    return { reply, transfer: [] };
  }
}

interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  onmessageerror: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

function installWorkerHandlers(scope: WorkerScope): void {
  const post = ({ reply, transfer }: AnsweredRequest): void => {
    try {
      scope.postMessage(reply, transfer);
    } catch (error) {
      const message = `The decoded model could not be sent back: ${error instanceof Error ? error.message : String(error)}`;
      scope.postMessage({ id: reply.id, error: { message, code: 'internal' } } satisfies DecodeReply, []);
    }
  };
  scope.onmessage = (event) => {
    void answerDecodeRequest(event.data).then(post);
  };
  scope.onmessageerror = () => {
    const message = 'The model decoder could not read a request.';
    post({ reply: { id: UNREADABLE_REQUEST_ID, error: { message, code: 'internal' } }, transfer: [] });
  };
}

// Only inside a worker: tests import answerDecodeRequest from Node.
if ('WorkerGlobalScope' in globalThis) installWorkerHandlers(globalThis as unknown as WorkerScope);
