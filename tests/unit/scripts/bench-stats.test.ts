import { describe, expect, it } from 'vitest';
import { median, medianRun } from '../../../bench/stats';

describe("the benches' statistics", () => {
  it('median: the middle value, the mean of the two middle ones for an even count, NaN for none; the input stays as it was', () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });

  it('medianRun: a real run, the upper middle one by time for an even count', () => {
    const runs = [
      { ms: 30, id: 'a' },
      { ms: 10, id: 'b' },
      { ms: 20, id: 'c' },
      { ms: 40, id: 'd' },
    ];
    expect(medianRun(runs).id).toBe('a');
    expect(medianRun(runs.slice(0, 3)).id).toBe('c');
  });
});
