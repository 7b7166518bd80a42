import { describe, expect, it, vi } from 'vitest';
import { createFrameLoop, type FrameScheduler } from '../../../src/engine/frame-loop';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';

function manualScheduler() {
  let callback: ((now: number) => void) | null = null;
  const scheduler: FrameScheduler & { tick(now: number): void; readonly active: boolean } = {
    setAnimationLoop(cb) {
      callback = cb;
    },
    tick(now) {
      callback?.(now);
    },
    get active() {
      return callback !== null;
    },
  };
  return scheduler;
}

describe('frame loop', () => {
  it('runs the pipeline in order on each scheduled frame and advances time', () => {
    const world = createViewerWorld();
    const order: string[] = [];
    const a = (w: ViewerWorld) => (order.push('a'), w);
    const b = (w: ViewerWorld) => (order.push('b'), w);
    const scheduler = manualScheduler();
    createFrameLoop({ world, pipeline: [a, b], scheduler });
    scheduler.tick(1000);
    scheduler.tick(1016);
    expect(order).toEqual(['a', 'b', 'a', 'b']);
    expect(world.time.frame).toBe(2);
    expect(world.time.delta).toBeCloseTo(0.016);
  });

  it('resolves nextFrame only after a frame that drew a picture', async () => {
    const world = createViewerWorld();
    let draw = false;
    const render = (w: ViewerWorld) => {
      if (draw) w.stats.renderedFrames++;
      return w;
    };
    const scheduler = manualScheduler();
    const loop = createFrameLoop({ world, pipeline: [render], scheduler });
    const done = vi.fn();
    void loop.nextFrame().then(done);
    expect(world.render.needsRender).toBe(true);
    scheduler.tick(0);
    await Promise.resolve();
    expect(done).not.toHaveBeenCalled();
    draw = true;
    scheduler.tick(16);
    await Promise.resolve();
    expect(done).toHaveBeenCalledTimes(1);
  });

  it('runs one frame on demand with step()', () => {
    const world = createViewerWorld();
    const system = vi.fn((w: ViewerWorld) => w);
    const loop = createFrameLoop({ world, pipeline: [system], scheduler: manualScheduler() });
    loop.step(5);
    expect(system).toHaveBeenCalledTimes(1);
  });

  it('stops and reports once when a system throws', () => {
    const world = createViewerWorld();
    const onFatal = vi.fn();
    const scheduler = manualScheduler();
    const loop = createFrameLoop({
      world,
      pipeline: [
        () => {
          throw new Error('boom');
        },
      ],
      scheduler,
      onFatal,
    });
    scheduler.tick(0);
    expect(onFatal).toHaveBeenCalledWith(expect.objectContaining({ message: 'boom' }));
    expect(loop.running).toBe(false);
    expect(scheduler.active).toBe(false);
    loop.step();
    expect(onFatal).toHaveBeenCalledTimes(1);
  });

  it('rejects the frames waited for when a frame throws, and any asked for after', async () => {
    const world = createViewerWorld();
    const scheduler = manualScheduler();
    let fail = false;
    const loop = createFrameLoop({
      world,
      pipeline: [
        (w) => {
          if (fail) throw new Error('boom');
          return w;
        },
      ],
      scheduler,
      onFatal: () => undefined,
    });
    const waited = loop.nextFrame();
    fail = true;
    scheduler.tick(0);
    await expect(waited).rejects.toThrow('boom');
    await expect(loop.nextFrame()).rejects.toThrow('boom');
  });

  it("throws a frame's error again outside the frame when nobody takes it", async () => {
    const world = createViewerWorld();
    const scheduler = manualScheduler();
    const thrown: unknown[] = [];
    const onUncaught = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      createFrameLoop({
        world,
        pipeline: [
          () => {
            throw new Error('unheard');
          },
        ],
        scheduler,
      });
      scheduler.tick(0);
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(thrown).toEqual([expect.objectContaining({ message: 'unheard' })]);
  });

  it('stop() ends the loop', () => {
    const world = createViewerWorld();
    const system = vi.fn((w: ViewerWorld) => w);
    const scheduler = manualScheduler();
    const loop = createFrameLoop({ world, pipeline: [system], scheduler });
    loop.stop();
    scheduler.tick(0);
    loop.step();
    expect(system).not.toHaveBeenCalled();
  });

  it('stop() rejects the frames still waited for, saying why (they would never come)', async () => {
    const world = createViewerWorld();
    const scheduler = manualScheduler();
    const loop = createFrameLoop({ world, pipeline: [], scheduler });
    const waited = loop.nextFrame();
    loop.stop();
    await expect(waited).rejects.toThrow('The viewer stopped (it was disposed) before the next frame was drawn.');
    await expect(loop.nextFrame()).rejects.toThrow('The viewer stopped');
  });
});
