import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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

  it('keeps a Node process alive while a yield waits, and not after (a bench awaiting it at top level ends normally)', () => {
    const script = `import { yieldToMain } from ${JSON.stringify(join(__dirname, '../../../src/engine/yield.ts'))};
for (let i = 0; i < 3; i++) await yieldToMain();
console.log('done');`;
    const started = Date.now();
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    // Exit 13 is Node's unsettled top-level await: the port let the process end with the yield pending.
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('done');
    // And the idle port did not hold it open afterwards.
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
