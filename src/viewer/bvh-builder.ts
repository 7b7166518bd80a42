import type { BufferGeometry } from 'three';
import type { SerializedBVH } from 'three-mesh-bvh';
import { answerBuildRequest, UNREADABLE_BUILD_ID, type BuildReply, type BuildRequest } from './bvh-worker';

/**
 * Main-thread side of the picking-tree worker (src/viewer/bvh-worker.ts): one module worker,
 * started on first use, requests matched to replies by id. The geometry's own arrays are never
 * transferred (that would detach them while the geometry is drawn and picked): the positions and
 * the index are copied, only the copies travel, and the tree's buffers come back transferred.
 *
 * Requests wait in a queue and at most MAX_IN_FLIGHT are with the worker: each copy is made when
 * its request is sent, one per task, so a model of many large meshes neither blocks the page with
 * one long copying task nor holds a copy of every mesh at once. Where workers are unavailable, or
 * the worker fails, trees are built on the calling thread.
 */
export interface TreeBuilder {
  /**
   * The serialized indirect MeshBVH of a geometry (MeshBVH.deserialize(it, geometry, { setIndex:
   * false })) with the geometry's position and index versions when it was copied; null when
   * `wanted` said no by the time the request's turn came (the geometry was disposed meanwhile).
   */
  build(geometry: BufferGeometry, wanted?: () => boolean): Promise<BuiltTree | null>;
  dispose(): void;
}

export interface BuiltTree {
  serialized: SerializedBVH;
  positionVersion: number;
  indexVersion: number;
}

/** Requests with the worker at once: one building, one copied and waiting behind it. */
const MAX_IN_FLIGHT = 2;

interface Queued {
  geometry: BufferGeometry;
  wanted: () => boolean;
  resolve(tree: BuiltTree | null): void;
  reject(error: Error): void;
}

interface Sent {
  queued: Queued;
  positionVersion: number;
  indexVersion: number;
}

export function createTreeBuilder(): TreeBuilder {
  let worker: Worker | null = null;
  /** Set when the worker could not start or crashed: later builds run on the calling thread. */
  let broken = false;
  let disposed = false;
  let nextId = 1;
  const queue: Queued[] = [];
  const sent = new Map<number, Sent>();
  let pumping = false;

  const failWorker = (message: string): void => {
    const failed = [...sent.values()];
    sent.clear();
    worker?.terminate();
    worker = null;
    broken = true;
    // What the worker held is built here instead (reported once, not hidden).
    if (failed.length > 0 && !disposed) console.warn(`${message} Building the picking trees on the main thread instead.`);
    for (const { queued } of failed) queue.unshift(queued);
    schedule();
  };

  const settle = (reply: BuildReply): void => {
    if (reply.id === UNREADABLE_BUILD_ID) {
      failWorker(`The picking tree worker failed: ${'error' in reply ? reply.error : 'unreadable request'}.`);
      return;
    }
    const request = sent.get(reply.id);
    if (!request) return;
    sent.delete(reply.id);
    if ('error' in reply) request.queued.reject(new Error(reply.error));
    else request.queued.resolve({ serialized: reply.serialized, positionVersion: request.positionVersion, indexVersion: request.indexVersion });
    schedule();
  };

  const ensureWorker = (): Worker | null => {
    if (worker) return worker;
    if (broken || disposed || typeof Worker === 'undefined') return null;
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

  /** Sends (or, without a worker, builds) the next queued request; one per task. */
  const pumpOne = (): void => {
    pumping = false;
    if (disposed) return;
    const target = ensureWorker();
    if (target && sent.size >= MAX_IN_FLIGHT) return;
    const queued = queue.shift();
    if (!queued) return;
    if (!queued.wanted()) {
      queued.resolve(null);
      schedule();
      return;
    }
    const { geometry } = queued;
    const positionVersion = positionVersionOf(geometry);
    const indexVersion = geometry.index?.version ?? 0;
    try {
      const request = copyRequest(geometry, nextId++);
      if (!target) {
        const { reply } = answerBuildRequest(request);
        if ('error' in reply) queued.reject(new Error(reply.error));
        else queued.resolve({ serialized: reply.serialized, positionVersion, indexVersion });
      } else {
        const transfer: ArrayBuffer[] = [request.position.buffer as ArrayBuffer];
        if (request.index) transfer.push(request.index.buffer as ArrayBuffer);
        sent.set(request.id, { queued, positionVersion, indexVersion });
        target.postMessage(request, transfer);
      }
    } catch (error) {
      queued.reject(error instanceof Error ? error : new Error(String(error)));
    }
    schedule();
  };

  const schedule = (): void => {
    if (pumping || disposed || queue.length === 0) return;
    if (worker && sent.size >= MAX_IN_FLIGHT) return; // settle() schedules again
    pumping = true;
    setTimeout(pumpOne, 0);
  };

  return {
    build(geometry, wanted = () => true) {
      if (disposed) return Promise.reject(new Error('The picking tree builder was disposed.'));
      return new Promise<BuiltTree | null>((resolve, reject) => {
        queue.push({ geometry, wanted, resolve, reject });
        schedule();
      });
    },
    dispose() {
      disposed = true;
      worker?.terminate();
      worker = null;
      const dropped = [...queue, ...[...sent.values()].map((s) => s.queued)];
      queue.length = 0;
      sent.clear();
      for (const request of dropped) request.resolve(null);
    },
  };
}

/** The version of a geometry's positions (an interleaved attribute counts its buffer's). */
export function positionVersionOf(geometry: BufferGeometry): number {
  const attribute = geometry.getAttribute('position') as { version?: number; data?: { version: number } } | undefined;
  if (!attribute) return 0;
  return attribute.data ? attribute.data.version : (attribute.version ?? 0);
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
