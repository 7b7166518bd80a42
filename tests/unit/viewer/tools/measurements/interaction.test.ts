import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { setup } from './stand-in';

describe('points set from outside (a meeting\'s shared measurement)', () => {
  it('setPoints moves every point, draws at once, tells the UI; a wrong count or a bad point is refused and changes nothing', () => {
    const { measurements, events, counts } = setup();
    const id = measurements.restore('length', [new Vector3(0, 0, 0), new Vector3(2, 0, 0)]);
    const changed = counts.changed;
    measurements.setPoints(id, [new Vector3(0, 0, 0), new Vector3(0, 3, 4)]);
    expect(measurements.list()[0].label).toBe('5.00 m');
    expect(measurements.points(id).map((p) => p.toArray())).toEqual([
      [0, 0, 0],
      [0, 3, 4],
    ]);
    const updated = events.filter((e) => e.data.action === 'updated');
    expect(updated).toHaveLength(1);
    expect(updated[0].data.points).toEqual([
      { x: 0, y: 0, z: 0 },
      { x: 0, y: 3, z: 4 },
    ]);
    expect(counts.changed).toBeGreaterThan(changed);
    expect(() => measurements.setPoints(id, [new Vector3()])).toThrow(`Measurement ${id} has 2 points, got 1.`);
    expect(() => measurements.setPoints(id, [new Vector3(), new Vector3(Number.NaN, 0, 0)])).toThrow('A measurement point needs finite coordinates.');
    expect(() => measurements.setPoints(id + 100, [new Vector3(), new Vector3()])).toThrow(`There is no measurement ${id + 100}.`);
    expect(measurements.list()[0].label).toBe('5.00 m');
  });
});
