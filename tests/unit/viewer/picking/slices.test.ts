import { afterEach, describe, expect, it, vi } from 'vitest';
import { yieldToMain } from '../../../../src/engine/yield';
import { createSliceQueue, SLICE_MS } from '../../../../src/viewer/picking/slices';

/** Busy-waits `ms` milliseconds (a job that takes that long). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}


describe('createSliceQueue', () => {
  afterEach(() => vi.restoreAllMocks());

  it('slices of 8 ms by default', () => {
    expect(SLICE_MS).toBe(8);
  });

  it('runs jobs one after another in the order queued, and resolves each when it has run', async () => {
    const queue = createSliceQueue();
    const ran: number[] = [];
    const done: number[] = [];
    const promises = [1, 2, 3].map((n) => queue.run(() => ran.push(n)).then(() => done.push(n)));
    expect(ran).toEqual([]); // never synchronously
    await Promise.all(promises);
    expect(ran).toEqual([1, 2, 3]);
    expect(done).toEqual([1, 2, 3]);
  });

  it('yields to the page (a task) before a job once a slice is used up, not between short jobs', async () => {
    let clock = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const yields = vi.fn(yieldToMain);
    const queue = createSliceQueue({ sliceMs: 20, yieldToPage: yields });
    await queue.run(() => {}); // the first job starts a slice: one yield
    expect(yields).toHaveBeenCalledTimes(1);
    await Promise.all([queue.run(() => {}), queue.run(() => (clock += 20)), queue.run(() => {})]);
    expect(yields).toHaveBeenCalledTimes(1); // 20 ms used: still within the slice
    await queue.run(() => (clock += 1));
    expect(yields).toHaveBeenCalledTimes(1);
    await queue.run(() => {}); // 21 ms: the slice is used up, yield first
    expect(yields).toHaveBeenCalledTimes(2);
    await queue.run(() => {}); // a new slice
    expect(yields).toHaveBeenCalledTimes(2);
  });

  it('lets other tasks run between slices, with no timer (a hidden tab throttles timers)', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const queue = createSliceQueue({ sliceMs: 1 });
    const order: string[] = [];
    const jobs = [
      // The page's task is posted while the first job runs: it runs before the second only if the
      // queue yields between them (without a yield the second would follow in the same task).
      queue.run(() => (busy(2), order.push('a'), void yieldToMain().then(() => order.push('page')))),
      queue.run(() => (busy(2), order.push('b'))),
    ];
    await Promise.all(jobs);
    expect(order).toEqual(['a', 'page', 'b']);
    expect(timers).not.toHaveBeenCalled();
  });

  it('skips the jobs not started when stopped, and still resolves them', async () => {
    const queue = createSliceQueue();
    const ran: string[] = [];
    const first = queue.run(() => ran.push('first'));
    await first;
    const later = queue.run(() => ran.push('later'));
    queue.stop();
    await later;
    await queue.run(() => ran.push('after stop'));
    expect(ran).toEqual(['first']);
  });
});
