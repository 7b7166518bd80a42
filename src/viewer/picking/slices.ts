/**
 * Main-thread work in short slices: jobs run one after another, and before a job starts, once more
 * than `sliceMs` have passed since the last yield, the queue yields to the page (a task of its own,
 * src/engine/yield.ts: not a timer, which a hidden tab throttles to one a second) so input and
 * frames are not held up by a run of tree builds.
 */
import { yieldToMain } from '../../engine/yield';

/** A main-thread build slice: after this many milliseconds the queue yields to the page. */
export const SLICE_MS = 8;

export interface SliceQueueOptions {
  /** Milliseconds of work between yields; default SLICE_MS. */
  sliceMs?: number;
  /** How the queue yields to the page; default yieldToMain (tests count the yields). */
  yieldToPage?: () => Promise<void>;
}

export interface SliceQueue {
  /**
   * Queues `job` behind every job queued so far; the promise resolves when it has run (or was
   * skipped because the queue was stopped). `job` must not throw: it reports its own failures.
   */
  run(job: () => void): Promise<void>;
  /** Jobs that have not started yet are skipped. */
  stop(): void;
}

export function createSliceQueue(options: SliceQueueOptions = {}): SliceQueue {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const yieldToPage = options.yieldToPage ?? yieldToMain;
  let chain: Promise<void> = Promise.resolve();
  let sliceStart = 0;
  let stopped = false;
  return {
    run(job) {
      chain = chain.then(async () => {
        if (stopped) return;
        if (now() - sliceStart > sliceMs) {
          await yieldToPage();
          sliceStart = now();
        }
        job();
      });
      return chain;
    },
    stop() {
      stopped = true;
    },
  };
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
