import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { Vector3 } from 'three';
import { MAX_MEASUREMENTS, MAX_SECTION_PLANES } from '../../../../src/protocol/host-api';
import { setup } from '../../support/viewer-api';

describe('viewer API: tools (measurements, section planes)', () => {
  it('makes, moves and removes measurements through the tools, checking the points first', async () => {
    const { run, tools } = setup();
    const made = await run('createMeasurement', {
      kind: 'length',
      points: [
        [0, 0, 0],
        [3, 4, 0],
      ],
    });
    expect(made).toMatchObject({
      kind: 'length',
      value: 5,
      points: [
        [0, 0, 0],
        [3, 4, 0],
      ],
    });
    expect(tools.measurements.restore).toHaveBeenCalledWith('length', [new Vector3(0, 0, 0), new Vector3(3, 4, 0)]);
    expect(await run('listMeasurements', {})).toEqual([made]);
    const moved = await run('updateMeasurement', {
      id: made.id,
      points: [
        [0, 0, 0],
        [0, 0, 2],
      ],
    });
    expect(moved).toMatchObject({
      id: made.id,
      value: 2,
      points: [
        [0, 0, 0],
        [0, 0, 2],
      ],
    });
    await expect(run('updateMeasurement', { id: made.id, points: [[0, 0, 0]] })).rejects.toThrow('points: a length measurement needs 2 points, got 1');
    const area = await run('createMeasurement', {
      kind: 'area',
      points: [
        [0, 0, 0],
        [1, 0, 0],
        [1, 1, 0],
      ],
    });
    await expect(
      run('updateMeasurement', {
        id: area.id,
        points: [
          [0, 0, 0],
          [1, 0, 0],
          [1, 1, 0],
          [0, 1, 1],
        ],
      }),
    ).rejects.toThrow(/^points\[3\]: point 3 is/);
    expect(tools.measurements.setPoints).toHaveBeenCalledTimes(1);
    await expect(
      run('updateMeasurement', {
        id: 9999,
        points: [
          [0, 0, 0],
          [1, 0, 0],
        ],
      }),
    ).rejects.toThrow('There is no measurement 9999.');
    expect(await run('removeMeasurement', { id: made.id })).toEqual({ ok: true });
    await expect(run('removeMeasurement', { id: made.id })).rejects.toThrow(`There is no measurement ${made.id}.`);
    expect(tools.measurementCount()).toBe(1);
  });

  it(`refuses a measurement past ${MAX_MEASUREMENTS} and a section plane past ${MAX_SECTION_PLANES}`, async () => {
    const { run, tools } = setup();
    for (let i = 0; i < MAX_MEASUREMENTS; i++) tools.measurements.restore('length', [new Vector3(), new Vector3(1, 0, 0)]);
    await expect(
      run('createMeasurement', {
        kind: 'length',
        points: [
          [0, 0, 0],
          [1, 0, 0],
        ],
      }),
    ).rejects.toThrow(`There are ${MAX_MEASUREMENTS} measurements`);
    for (let i = 0; i < MAX_SECTION_PLANES; i++) await run('createSectionPlane', { point: [0, i, 0], normal: [0, 1, 0] });
    await expect(run('createSectionPlane', { point: [0, 0, 0], normal: [0, 1, 0] })).rejects.toThrow(`There are ${MAX_SECTION_PLANES} section planes`);
    expect(tools.planeCount()).toBe(MAX_SECTION_PLANES);
  });

  it('places, moves and removes section planes: the kept side is where the normal points', async () => {
    const { run, tools } = setup();
    const plane = await run('createSectionPlane', { point: [0, 2, 0], normal: [0, 10, 0] });
    expect(plane.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([0, 1, 0]);
    expect(plane.constant).toBeCloseTo(-2, 6);
    const [position, rotation] = tools.sections.place.mock.calls[0];
    expect(position.toArray()).toEqual([0, 2, 0]);
    expect(
      new Vector3(0, 0, 1)
        .applyQuaternion(rotation)
        .toArray()
        .map((v) => Math.round(v * 1e6) / 1e6),
    ).toEqual([0, 1, 0]);
    // Turned only: the point stays.
    const turned = await run('moveSectionPlane', { id: plane.id, normal: [1, 0, 0] });
    expect(turned.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([1, 0, 0]);
    expect(turned.constant).toBeCloseTo(0, 6);
    // Moved only: the normal stays.
    const moved = await run('moveSectionPlane', { id: plane.id, point: [3, 0, 0] });
    expect(moved.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([1, 0, 0]);
    expect(moved.constant).toBeCloseTo(-3, 6);
    expect(tools.sections.setPose).toHaveBeenCalledTimes(2);
    await expect(run('moveSectionPlane', { id: 4242, point: [0, 0, 0] })).rejects.toThrow('There is no section plane 4242.');
    expect(await run('removeSectionPlane', { id: plane.id })).toEqual({ ok: true });
    await expect(run('removeSectionPlane', { id: plane.id })).rejects.toThrow(`There is no section plane ${plane.id}.`);
  });
});
