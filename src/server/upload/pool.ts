import { Piscina } from 'piscina';
import { ImportError } from './errors.ts';

/**
 * The worker threads that process uploads (./worker.ts), so that validation, optimisation and
 * container encoding never run on the event loop: a Piscina pool of `workers` threads, at a lower
 * CPU priority than the event loop (nice +NICE_INCREMENT on Linux), each with a heap limit, each
 * task with a time limit. At most `workers` tasks run; up to `maxQueued` more wait in a FIFO queue
 * (their callers learn their place: 'queued', position n); past that, `run` refuses with
 * UploadBusyError at once. A task that runs out of memory or time ends its thread (Piscina starts
 * another) and fails with ImportError 'TOO_COMPLEX'.
 */

export interface UploadPoolOptions {
  /** Threads, so tasks running at once. */
  workers: number;
  /** Tasks that may wait for a thread; more are refused (503). */
  maxQueued: number;
  /** A task's time limit, from its start in a thread. */
  timeoutMs: number;
  /** A thread's JavaScript heap limit (V8's old generation), in MiB. */
  heapMb: number;
  /** The task module the threads run (default ./worker.ts); tests run their own. */
  task?: string;
}

/** Where a task stands, reported to its caller as it changes. */
export type UploadStage = { state: 'queued'; position: number } | { state: 'processing' };

export interface RunOptions {
  /** Called with 'queued' (and each new position) while waiting, then 'processing'. */
  onStage?: (stage: UploadStage) => void;
  /** Aborts the task: waiting, it leaves the queue; running, its thread is ended. */
  signal?: AbortSignal;
}

/** All threads are busy and the queue is full: try again later (503 with Retry-After). */
export class UploadBusyError extends Error {
  readonly statusCode = 503;
  readonly retryAfterS: number;
  constructor(message: string, retryAfterS: number) {
    super(message);
    this.name = 'UploadBusyError';
    this.retryAfterS = retryAfterS;
  }
}

export interface UploadPool {
  /** Runs `task` in a thread; `label` (the file name) starts error messages. */
  run<T, R>(label: string, task: T, options?: RunOptions): Promise<R>;
  /** Tasks running in a thread now. */
  readonly running: number;
  /** Tasks waiting for a thread now. */
  readonly queued: number;
  close(): Promise<void>;
}

/** Worker threads run at this much lower priority than the event loop (Linux nice value). */
export const NICE_INCREMENT = 10;
/** Threads without work end after this long (the memory goes back; the next upload starts one). */
const IDLE_TIMEOUT_MS = 60_000;

const TASK_ENTRY = new URL('./worker-entry.mjs', import.meta.url);

export function createUploadPool(options: UploadPoolOptions): UploadPool {
  const piscina = new Piscina({
    filename: TASK_ENTRY.href,
    workerData: options.task ? { task: options.task } : undefined,
    minThreads: 0,
    maxThreads: options.workers,
    idleTimeout: IDLE_TIMEOUT_MS,
    niceIncrement: NICE_INCREMENT,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
    // The entry registers tsx itself: the parent's flags (a test runner's) are not for the threads.
    execArgv: [],
  });
  let running = 0;
  let closed = false;
  const waiting: { start: () => void; fail: (error: Error) => void; onStage?: (stage: UploadStage) => void }[] = [];
  const renumber = () => waiting.forEach((entry, i) => entry.onStage?.({ state: 'queued', position: i + 1 }));

  /** Waits for a thread; the slot is handed over by the task that frees it (see `release`). */
  function acquire(run: RunOptions): Promise<void> {
    if (closed) return Promise.reject(new UploadBusyError('The server is shutting down: try again in a moment.', 5));
    if (running < options.workers) {
      running++;
      return Promise.resolve();
    }
    if (waiting.length >= options.maxQueued) {
      const retry = Math.max(5, Math.ceil((options.maxQueued / options.workers) * 10));
      return Promise.reject(
        new UploadBusyError(`The server is busy: ${running} uploads are being processed and ${waiting.length} are waiting (UPLOAD_QUEUE). Try again in a minute.`, retry),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const entry = { start: resolve, fail: reject, onStage: run.onStage };
      waiting.push(entry);
      run.onStage?.({ state: 'queued', position: waiting.length });
      run.signal?.addEventListener(
        'abort',
        () => {
          const index = waiting.indexOf(entry);
          if (index < 0) return;
          waiting.splice(index, 1);
          renumber();
          reject(run.signal!.reason instanceof Error ? run.signal!.reason : new Error('The upload was cancelled.'));
        },
        { once: true },
      );
    });
  }

  function release(): void {
    const next = waiting.shift();
    if (!next) {
      running--;
      return;
    }
    renumber();
    next.start();
  }

  return {
    async run<T, R>(label: string, task: T, run: RunOptions = {}): Promise<R> {
      await acquire(run);
      try {
        run.signal?.throwIfAborted();
        run.onStage?.({ state: 'processing' });
        const timeout = AbortSignal.timeout(options.timeoutMs);
        const signal = run.signal ? AbortSignal.any([timeout, run.signal]) : timeout;
        try {
          return (await piscina.run(task, { signal })) as R;
        } catch (error) {
          if (timeout.aborted) {
            throw new ImportError('TOO_COMPLEX', `${label}: processing the model took longer than ${Math.round(options.timeoutMs / 1000)} s (UPLOAD_TIMEOUT_S): upload a smaller or simpler model.`);
          }
          if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
            throw new ImportError('TOO_COMPLEX', `${label}: processing the model needs more than the ${options.heapMb} MiB this server allows an upload (UPLOAD_HEAP_MB): upload a smaller or simpler model.`);
          }
          throw error;
        }
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get queued() {
      return waiting.length;
    },
    async close() {
      closed = true;
      for (const entry of waiting.splice(0)) entry.fail(new UploadBusyError('The server is shutting down: try again in a moment.', 5));
      await piscina.destroy();
    },
  };
}
