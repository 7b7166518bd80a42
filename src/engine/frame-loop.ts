import { advanceTime, type ViewerWorld } from './world';

/** One step of the frame (a system): systems/index.ts declares them in PIPELINE. */
export type FrameSystem = (world: ViewerWorld) => ViewerWorld;

/** What drives the loop: a WebGLRenderer's setAnimationLoop (XR-aware rAF), or a test's hand. */
export interface FrameScheduler {
  setAnimationLoop(callback: ((now: number) => void) | null): void;
}

export interface FrameLoopOptions {
  world: ViewerWorld;
  /** The frame's systems in order (PIPELINE); the loop runs them and nothing else. */
  pipeline: readonly FrameSystem[];
  scheduler: FrameScheduler;
  /**
   * Called once when a frame throws: the loop stops and the error is reported here (without it,
   * the error is thrown again outside the frame, so the page's error reporting sees it).
   */
  onFatal?: (error: Error) => void;
}

export interface FrameLoop {
  /** Runs one frame now (time from `now`, default performance.now()): what viewer.frame() and tests use. */
  step(now?: number): void;
  /**
   * Resolves after the next frame that drew a picture (asks for one). If a frame throws, the frames
   * waited for and any asked for later reject with its error; stop() (dispose) rejects those waited
   * for and any asked for after it ('The viewer stopped …'), since none will come.
   */
  nextFrame(): Promise<void>;
  readonly running: boolean;
  /** Stops the loop for good (dispose). */
  stop(): void;
}

/**
 * The one owner of the frame: every per-frame piece of work in the viewer is a system of the
 * pipeline (or a step a system runs, src/engine/frame-steps.ts), and this loop is the only thing
 * that schedules them. Nothing else calls requestAnimationFrame or runs work from camera or input
 * listeners.
 */
const STOPPED = 'The viewer stopped (it was disposed) before the next frame was drawn.';

export function createFrameLoop(options: FrameLoopOptions): FrameLoop {
  const { world, pipeline, scheduler } = options;
  let stopped = false;
  let fatal: Error | null = null;
  let waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  const run = (now: number) => {
    if (stopped) return;
    try {
      const before = world.stats.renderedFrames;
      advanceTime(world, now);
      for (let i = 0; i < pipeline.length; i++) pipeline[i](world);
      if (waiters.length && world.stats.renderedFrames > before) {
        const done = waiters;
        waiters = [];
        for (const waiter of done) waiter.resolve();
      }
    } catch (thrown) {
      stopped = true;
      scheduler.setAnimationLoop(null);
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      fatal = error;
      const failed = waiters;
      waiters = [];
      for (const waiter of failed) waiter.reject(error);
      if (options.onFatal) options.onFatal(error);
      else
        queueMicrotask(() => {
          throw error;
        });
    }
  };
  scheduler.setAnimationLoop(run);

  return {
    step(now = performance.now()) {
      run(now);
    },
    nextFrame() {
      world.render.needsRender = true;
      if (fatal) return Promise.reject(fatal);
      if (stopped) return Promise.reject(new Error(STOPPED));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    get running() {
      return !stopped;
    },
    stop() {
      stopped = true;
      scheduler.setAnimationLoop(null);
      // A frame asked for will never come: say so, rather than leave the promise pending forever.
      const dropped = waiters;
      waiters = [];
      const error = new Error(STOPPED);
      for (const waiter of dropped) waiter.reject(error);
    },
  };
}
