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
  /** Called once when a frame throws: the loop stops and the error is reported here. */
  onFatal?: (error: Error) => void;
}

export interface FrameLoop {
  /** Runs one frame now (time from `now`, default performance.now()): what viewer.frame() and tests use. */
  step(now?: number): void;
  /** Resolves after the next frame that drew a picture (asks for one). */
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
export function createFrameLoop(options: FrameLoopOptions): FrameLoop {
  const { world, pipeline, scheduler } = options;
  let stopped = false;
  let waiters: (() => void)[] = [];

  const run = (now: number) => {
    if (stopped) return;
    try {
      const before = world.stats.renderedFrames;
      advanceTime(world, now);
      for (let i = 0; i < pipeline.length; i++) pipeline[i](world);
      if (waiters.length && world.stats.renderedFrames > before) {
        const done = waiters;
        waiters = [];
        for (const resolve of done) resolve();
      }
    } catch (error) {
      stopped = true;
      scheduler.setAnimationLoop(null);
      options.onFatal?.(error instanceof Error ? error : new Error(String(error)));
    }
  };
  scheduler.setAnimationLoop(run);

  return {
    step(now = performance.now()) {
      run(now);
    },
    nextFrame() {
      world.render.needsRender = true;
      return new Promise((resolve) => waiters.push(resolve));
    },
    get running() {
      return !stopped;
    },
    stop() {
      stopped = true;
      scheduler.setAnimationLoop(null);
      waiters = [];
    },
  };
}
