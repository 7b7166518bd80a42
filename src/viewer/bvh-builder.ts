import type { BufferGeometry } from 'three';
import type { SerializedBVH } from 'three-mesh-bvh';
import { answerBuildRequest, UNREADABLE_BUILD_ID, type BuildReply, type BuildRequest } from './bvh-worker';

/**
 * Main-thread side of the picking-tree worker (src/viewer/bvh-worker.ts): one module worker,
 * started on first use, requests matched to replies by id. The geometry's own arrays are never
 * transferred (that would detach them while the geometry is drawn and picked): the positions and
 * the index are copied, only the copies travel, and the tree's buffers come back transferred.
 * Where workers are unavailable, or the worker fails, a tree is built on the calling thread.
 */
export interface TreeBuilder {
  /** The serialized indirect MeshBVH of a geometry (MeshBVH.deserialize(it, geometry, { setIndex: false })). */
  build(geometry: BufferGeometry): Promise<SerializedBVH>;
  dispose(): void;
}

interface Pending {
  resolve(serialized: SerializedBVH): void;
  reject(error: Error): void;
}

export function createTreeBuilder(): TreeBuilder {
  let worker: Worker | null = null;
  /** Set when the worker could not start or crashed: later builds run on the calling thread. */
  let broken = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failWorker = (message: string): void => {
    const failed = [...pending.values()];
    pending.clear();
    worker?.terminate();
    worker = null;
    broken = true;
    for (const request of failed) request.reject(new Error(message));
  };

  const settle = (reply: BuildReply): void => {
    if (reply.id === UNREADABLE_BUILD_ID) {
      failWorker(`The picking tree worker failed: ${'error' in reply ? reply.error : 'unreadable request'}`);
      return;
    }
    const request = pending.get(reply.id);
    if (!request) return;
    pending.delete(reply.id);
    if ('error' in reply) request.reject(new Error(reply.error));
    else request.resolve(reply.serialized);
  };

  const ensureWorker = (): Worker | null => {
    if (worker) return worker;
    if (broken || typeof Worker === 'undefined') return null;
    try {
      worker = new Worker(new URL('./bvh-worker.ts', import.meta.url), { type: 'module' });
    } catch {
      broken = true;
      return null;
    }
    worker.onmessage = (event: MessageEvent<BuildReply>) => settle(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      failWorker(`The picking tree worker failed: ${event.message || 'it could not be started or crashed'}.`);
    };
    worker.onmessageerror = () => failWorker('The picking tree worker sent a reply that could not be read.');
    return worker;
  };

  return {
    build(geometry) {
      const request: BuildRequest = copyRequest(geometry, nextId++);
      const target = ensureWorker();
      if (!target) return Promise.resolve().then(() => buildHere(request));
      return new Promise<SerializedBVH>((resolve, reject) => {
        pending.set(request.id, { resolve, reject });
        const transfer: ArrayBuffer[] = [request.position.buffer as ArrayBuffer];
        if (request.index) transfer.push(request.index.buffer as ArrayBuffer);
        try {
          target.postMessage(request, transfer);
        } catch (error) {
          pending.delete(request.id);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }).catch((error: unknown) => {
        // A worker that died mid-way: build this one here rather than leave the mesh without a tree.
        if (!broken) throw error;
        console.warn('The picking tree worker is unavailable; building on the main thread:', error);
        return buildHere(copyRequest(geometry, request.id));
      });
    },
    dispose() {
      failWorker('The picking tree worker was stopped.');
    },
  };
}

function buildHere(request: BuildRequest): SerializedBVH {
  const { reply } = answerBuildRequest(request);
  if ('error' in reply) throw new Error(reply.error);
  return reply.serialized;
}

/**
 * A build request with copies of the geometry's positions (as plain xyz floats: quantized,
 * normalized or interleaved attributes are read through the attribute) and index.
 */
export function copyRequest(geometry: BufferGeometry, id: number): BuildRequest {
  const attribute = geometry.getAttribute('position');
  if (!attribute) throw new Error('The geometry has no positions to build a picking tree from.');
  const count = attribute.count;
  let position: Float32Array;
  const plain = attribute as { isInterleavedBufferAttribute?: boolean; normalized?: boolean; array?: ArrayLike<number> };
  if (!plain.isInterleavedBufferAttribute && attribute.itemSize === 3 && !plain.normalized && plain.array instanceof Float32Array) {
    position = plain.array.slice(0, count * 3);
  } else {
    position = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) {
      position[i * 3] = attribute.getX(i);
      position[i * 3 + 1] = attribute.getY(i);
      position[i * 3 + 2] = attribute.getZ(i);
    }
  }
  const source = geometry.index?.array;
  let index: Uint16Array | Uint32Array | null = null;
  if (source instanceof Uint16Array || source instanceof Uint32Array) index = source.slice();
  else if (source) index = Uint32Array.from(source as ArrayLike<number>);
  return {
    id,
    position,
    index,
    groups: geometry.groups.map((g) => ({ start: g.start, count: g.count, materialIndex: g.materialIndex })),
    drawRange: { start: geometry.drawRange.start, count: geometry.drawRange.count },
  };
}
