import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/server/upload/prepare.ts';
import { createUploadPool, UploadBusyError, type UploadPool, type UploadPoolOptions, type UploadStage } from '../../../src/server/upload/pool.ts';
import { tempDir } from '../helpers.ts';
import type { PoolTestTask } from './pool-task.ts';

const TASK = pathToFileURL(join(import.meta.dirname, 'pool-task.ts')).href;

let dir: string;
let pools: UploadPool[] = [];
beforeAll(async () => {
  dir = await tempDir('pool-');
});
afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  pools = [];
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function pool(options: Partial<UploadPoolOptions> = {}): UploadPool {
  const created = createUploadPool({ workers: 1, maxQueued: 4, timeoutMs: 60_000, heapMb: 64, task: TASK, ...options });
  pools.push(created);
  return created;
}

const gate = (name: string) => join(dir, name);
const open = (name: string) => writeFile(gate(name), '');

/** Runs a task and records the stages it went through. */
function start(p: UploadPool, id: string, options: { gate?: string; allocateMb?: number; signal?: AbortSignal } = {}) {
  const stages: UploadStage[] = [];
  const task: PoolTestTask = { id, ...(options.gate ? { gate: gate(options.gate) } : {}), ...(options.allocateMb ? { allocateMb: options.allocateMb } : {}) };
  const result = p.run<PoolTestTask, { id: string; threadId: number; held: number }>(`${id}.glb`, task, { onStage: (stage) => stages.push(stage), signal: options.signal });
  result.catch(() => {});
  return { stages, result };
}

/** Waits until `check` holds (the pool's state changes as threads start and answer). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('createUploadPool', () => {
  it('runs tasks in a worker thread, never on the event loop', async () => {
    const p = pool();
    const { result, stages } = start(p, 'a');
    const answer = await result;
    expect(answer.id).toBe('a');
    expect(answer.threadId).toBeGreaterThan(0); // the main thread is 0
    expect(stages).toEqual([{ state: 'processing' }]);
  });

  it('queues tasks past its threads with their positions, runs them in order, and refuses past the queue', async () => {
    const p = pool({ workers: 1, maxQueued: 2 });
    const a = start(p, 'a', { gate: 'queue-a' });
    await until(() => p.running === 1);
    const b = start(p, 'b', { gate: 'queue-b' });
    const c = start(p, 'c');
    expect(b.stages).toEqual([{ state: 'queued', position: 1 }]);
    expect(c.stages).toEqual([{ state: 'queued', position: 2 }]);
    expect({ running: p.running, queued: p.queued }).toEqual({ running: 1, queued: 2 });

    const refused = start(p, 'd');
    await expect(refused.result).rejects.toThrow(UploadBusyError);
    await expect(refused.result).rejects.toThrow(/The server is busy: 1 uploads are being processed and 2 are waiting/);

    await open('queue-a');
    expect((await a.result).id).toBe('a');
    await until(() => b.stages.length === 2);
    expect(b.stages[1]).toEqual({ state: 'processing' });
    expect(c.stages).toEqual([{ state: 'queued', position: 2 }, { state: 'queued', position: 1 }]);
    await open('queue-b');
    expect((await b.result).id).toBe('b');
    expect((await c.result).id).toBe('c');
    expect(c.stages.at(-1)).toEqual({ state: 'processing' });
    expect({ running: p.running, queued: p.queued }).toEqual({ running: 0, queued: 0 });
  });

  it('drops a waiting task that is aborted, and the others move up', async () => {
    const p = pool({ workers: 1 });
    const a = start(p, 'a', { gate: 'abort-a' });
    await until(() => p.running === 1);
    const cancel = new AbortController();
    const b = start(p, 'b', { signal: cancel.signal });
    const c = start(p, 'c');
    cancel.abort(new Error('The client closed the connection.'));
    await expect(b.result).rejects.toThrow('The client closed the connection.');
    expect(c.stages).toEqual([{ state: 'queued', position: 2 }, { state: 'queued', position: 1 }]);
    await open('abort-a');
    expect((await a.result).id).toBe('a');
    expect((await c.result).id).toBe('c');
    expect(b.stages).toEqual([{ state: 'queued', position: 1 }]);
  });

  it('ends a task that runs past its time limit with a 413-kind error, and keeps working', async () => {
    // The limit counts from the task's start, thread start-up included (seconds on a loaded machine).
    const p = pool({ timeoutMs: 8000 });
    const slow = start(p, 'slow', { gate: 'never' });
    const error = await slow.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(error).toMatchObject({ code: 'TOO_COMPLEX', message: expect.stringMatching(/^slow\.glb: processing the model took longer than 8 s \(UPLOAD_TIMEOUT_S\)/) });
    expect((await start(p, 'next').result).id).toBe('next');
  });

  it('ends a task that passes the heap limit (UPLOAD_HEAP_MB) with a 413-kind error, and keeps working', async () => {
    const p = pool({ heapMb: 32 });
    const error = await start(p, 'big', { allocateMb: 400 }).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(error).toMatchObject({ code: 'TOO_COMPLEX', message: expect.stringMatching(/^big\.glb: processing the model needs more than the 32 MiB .* \(UPLOAD_HEAP_MB\)/) });
    expect((await start(p, 'next').result).id).toBe('next');
  });

  it('refuses waiting tasks when it closes', async () => {
    const p = pool();
    start(p, 'a', { gate: 'close-a' });
    await until(() => p.running === 1);
    const b = start(p, 'b');
    const closing = p.close();
    await expect(b.result).rejects.toThrow(/shutting down/);
    await closing;
  });
});
