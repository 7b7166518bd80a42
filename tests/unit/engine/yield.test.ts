import { afterEach, describe, expect, it, vi } from 'vitest';
import { yieldToMain } from '../../../src/engine/yield';

describe('yieldToMain: a task of its own, without timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the current task and its microtasks, never synchronously', async () => {
    const order: string[] = [];
    const yielded = yieldToMain().then(() => order.push('yielded'));
    // A chain of microtasks, longer than a promise's own hops: all of it runs before the yield resolves.
    let chain = Promise.resolve();
    for (let i = 0; i < 20; i++) chain = chain.then(() => void order.push(`micro ${i}`));
    order.push('sync');
    await yielded;
    expect(order[0]).toBe('sync');
    expect(order.at(-1)).toBe('yielded');
    expect(order).toHaveLength(22);
  });

  it('resolves its callers in the order they yielded', async () => {
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => yieldToMain().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('needs no timer: it resolves while timers are frozen (a hidden tab throttles them to one a second)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'setImmediate'] });
    let resolved = 0;
    for (let i = 0; i < 50; i++) await yieldToMain().then(() => resolved++);
    expect(resolved).toBe(50);
    expect(vi.getTimerCount()).toBe(0);
  });
});
