import { describe, expect, it } from 'vitest';
import { InstanceIndex } from '../../../src/engine/instance-index';

describe('InstanceIndex (id -> slot)', () => {
  it('maps ids to slots, moves and deletes them', () => {
    const index = new InstanceIndex();
    index.set(7, 0);
    index.set(3, 1);
    expect(index.get(7)).toBe(0);
    expect(index.get(3)).toBe(1);
    expect(index.get(4)).toBe(-1);
    index.set(7, 5);
    expect(index.get(7)).toBe(5);
    expect(index.size).toBe(2);
    expect(index.delete(7)).toBe(5);
    expect(index.delete(7)).toBe(-1);
    expect(index.get(7)).toBe(-1);
    expect(index.get(3)).toBe(1);
    expect(index.size).toBe(1);
  });

  it('agrees with a Map through random sets and deletes (probe runs survive backward-shift deletion)', () => {
    const index = new InstanceIndex(4);
    const truth = new Map<number, number>();
    let seed = 12345;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let step = 0; step < 200_000; step++) {
      const id = Math.floor(rnd() * 5000);
      if (rnd() < 0.55) {
        index.set(id, step);
        truth.set(id, step);
      } else {
        expect(index.delete(id)).toBe(truth.get(id) ?? -1);
        truth.delete(id);
      }
    }
    expect(index.size).toBe(truth.size);
    for (let id = 0; id < 5000; id++) expect(index.get(id)).toBe(truth.get(id) ?? -1);
  });

  it('keeps at most half its cells used, 16 bytes an id', () => {
    const index = new InstanceIndex(1_000);
    for (let id = 0; id < 100_000; id++) index.set(id, id);
    expect(index.get(99_999)).toBe(99_999);
    expect(index.byteLength).toBeLessThanOrEqual(100_000 * 2 * 8 * 2);
    expect(index.byteLength).toBeGreaterThanOrEqual(100_000 * 2 * 8);
  });

  it('refuses ids that are not uint32 below the empty marker', () => {
    const index = new InstanceIndex();
    expect(() => index.set(-1, 0)).toThrow('Instance ids are whole numbers');
    expect(() => index.set(0xffffffff, 0)).toThrow('Instance ids are whole numbers');
    expect(() => index.set(1.5, 0)).toThrow('Instance ids are whole numbers');
  });
});
