import { BufferAttribute, BufferGeometry } from 'three';
import { MeshBVH, type SerializedBVH } from 'three-mesh-bvh';

/**
 * Module Web Worker that builds picking trees (three-mesh-bvh MeshBVH, indirect: the geometry's
 * index is never reordered) off the main thread; src/viewer/bvh-builder.ts starts it. It receives
 * copies of the positions and the index, builds, and transfers the tree's buffers back. One
 * request, one reply, always: a failure of any kind is answered with an error reply.
 */

export interface BuildRequest {
  id: number;
  /** xyz per vertex, a copy owned by the worker (transferred). */
  position: Float32Array;
  index: Uint16Array | Uint32Array | null;
  groups: { start: number; count: number; materialIndex?: number }[];
  drawRange: { start: number; count: number };
}

export type BuildReply = { id: number; serialized: SerializedBVH } | { id: number; error: string };

export interface AnsweredBuild {
  reply: BuildReply;
  /** Buffers to transfer with the reply. */
  transfer: ArrayBuffer[];
}

/** Reply id for a request that could not be read at all: the client fails every pending build. */
export const UNREADABLE_BUILD_ID = -1;

/** Builds the tree of one request into its reply; never throws. Also the main-thread fallback. */
export function answerBuildRequest(data: unknown): AnsweredBuild {
  const request = (typeof data === 'object' && data !== null ? data : {}) as Partial<BuildRequest>;
  const id = typeof request.id === 'number' ? request.id : UNREADABLE_BUILD_ID;
  try {
    const { position, index, groups, drawRange } = request;
    if (!(position instanceof Float32Array) || position.length % 3 !== 0) throw new Error('the request has no xyz positions');
    if (index !== null && !(index instanceof Uint16Array) && !(index instanceof Uint32Array)) throw new Error('the index is not a Uint16Array or Uint32Array');
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(position, 3));
    if (index) geometry.setIndex(new BufferAttribute(index, 1));
    for (const group of groups ?? []) geometry.addGroup(group.start, group.count, group.materialIndex);
    if (drawRange) geometry.setDrawRange(drawRange.start, drawRange.count);
    const bvh = new MeshBVH(geometry, { indirect: true, setBoundingBox: false });
    // The worker's buffers go back as they are (no clone); the index stays the caller's own.
    const serialized = MeshBVH.serialize(bvh, { cloneBuffers: false });
    serialized.index = null;
    const transfer: ArrayBuffer[] = serialized.roots.filter((root): root is ArrayBuffer => root instanceof ArrayBuffer);
    const indirect = serialized.indirectBuffer;
    if (indirect && indirect.buffer instanceof ArrayBuffer) transfer.push(indirect.buffer);
    return { reply: { id, serialized }, transfer };
  } catch (error) {
    return { reply: { id, error: error instanceof Error ? error.message : String(error) }, transfer: [] };
  }
}

interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  onmessageerror: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

function installWorkerHandlers(scope: WorkerScope): void {
  const post = ({ reply, transfer }: AnsweredBuild): void => {
    try {
      scope.postMessage(reply, transfer);
    } catch (error) {
      const message = `The picking tree could not be sent back: ${error instanceof Error ? error.message : String(error)}`;
      scope.postMessage({ id: reply.id, error: message } satisfies BuildReply, []);
    }
  };
  scope.onmessage = (event) => post(answerBuildRequest(event.data));
  scope.onmessageerror = () => post({ reply: { id: UNREADABLE_BUILD_ID, error: 'The picking tree worker could not read a request.' }, transfer: [] });
}

// Only inside a worker: tests and benchmarks import answerBuildRequest from Node.
if ('WorkerGlobalScope' in globalThis) installWorkerHandlers(globalThis as unknown as WorkerScope);
