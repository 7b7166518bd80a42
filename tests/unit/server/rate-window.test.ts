import { describe, expect, it } from 'vitest';
import { createRateWindow } from '../../../src/server/rate-window.ts';

describe('createRateWindow', () => {
  it('lets each key take up to the limit within the window, and says when more fits', () => {
    const window = createRateWindow({ windowMs: 60_000, limit: 100 });
    expect(window.take('a', 60, 0)).toEqual({ ok: true });
    expect(window.take('a', 30, 10_000)).toEqual({ ok: true });
    // 90 used: 20 more fit once the first 60 expire, at 60 s.
    expect(window.take('a', 20, 20_000)).toEqual({ ok: false, retryAfterS: 40, used: 90 });
    expect(window.take('b', 100, 20_000)).toEqual({ ok: true });
    expect(window.take('a', 20, 60_001)).toEqual({ ok: true });
    expect(window.used('a', 60_001)).toBe(50);
  });

  it('refuses an amount over the whole limit for a window, and a check takes nothing', () => {
    const window = createRateWindow({ windowMs: 1000, limit: 10 });
    expect(window.take('a', 11, 0)).toEqual({ ok: false, retryAfterS: 1, used: 0 });
    expect(window.check('a', 8, 0)).toEqual({ ok: true });
    expect(window.used('a', 1)).toBe(0);
    expect(window.take('a', 8, 0)).toEqual({ ok: true });
    expect(window.check('a', 3, 1)).toEqual({ ok: false, retryAfterS: 1, used: 8 });
    expect(window.used('a', 1)).toBe(8);
    expect(window.take('a', 2, 2)).toEqual({ ok: true });
  });

  it('merges uses within a second into one, keeping the sum', () => {
    const window = createRateWindow({ windowMs: 60_000, limit: 1_000_000 });
    for (let i = 0; i < 10_000; i++) window.take('a', 100, i / 20);
    expect(window.used('a', 600)).toBe(1_000_000);
    expect(window.take('a', 1, 600)).toEqual({ ok: false, retryAfterS: 60, used: 1_000_000 });
  });

  it('forgets keys whose use expired', () => {
    const window = createRateWindow({ windowMs: 1000, limit: 10 });
    for (let i = 0; i < 500; i++) window.take(`k${i}`, 1, 0);
    expect(window.size).toBe(500);
    window.take('late', 1, 5000);
    expect(window.size).toBe(1);
  });
});
