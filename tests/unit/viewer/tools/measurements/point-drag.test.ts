import { Vector3, type BufferAttribute, type InterleavedBufferAttribute } from 'three';
import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../../../src/engine/frame-steps';
import { getMeasurementPoint, setMeasurementPoint } from '../../../../../src/engine/measurement-data';
import { setup } from './stand-in';

// src/viewer/tools/measurements/point-drag.ts, through the measurement tools that compose it.
describe('dragging a measurement point', () => {
  it('rewrites the drawing in place on each move and tells the UI once, on release', () => {
    const { ctx, measurements, counts, events } = setup();
    measurements.begin('length');
    measurements.click(0, 0); // (-1, 0, 0.5)
    measurements.click(200, 0); // (1, 0, 0.5)
    const [id] = measurements.list().map((m) => m.id);
    expect(measurements.list()[0].label).toBe('2.00 m');
    const group = ctx.helpers.children.find((o) => o.name.startsWith(`Measurement ${id}`))!;
    const line = group.children[0] as unknown as { geometry: { attributes: { instanceStart: InterleavedBufferAttribute } } };
    const dots = group.children[1] as unknown as { geometry: { attributes: { position: BufferAttribute } } };
    const lineGeometry = line.geometry;
    const lineBuffer = lineGeometry.attributes.instanceStart.data;
    const dotsGeometry = dots.geometry;
    const lineVersion = lineBuffer.version;

    // Grab the end point (1, 0, 0.5) and move it to (1, 3, 0.5) in three moves.
    expect(measurements.grab(200, 0)).toBe(true);
    const changedBefore = counts.changed;
    let lastChanged = counts.changed;
    for (const y of [100, 200, 300]) {
      measurements.drag(200, y);
      // The engine's point moved; the drawing follows in the frame's helpers slot.
      runFrameSteps(ctx.world, 'helpers');
      // The selection changes on the first move (a UI change); moves after it are not.
      if (y > 100) expect(counts.changed).toBe(lastChanged);
      lastChanged = counts.changed;
    }
    expect(counts.changed - changedBefore).toBeLessThanOrEqual(1);
    // The same geometries and buffers, written in place.
    expect(line.geometry).toBe(lineGeometry);
    expect(line.geometry.attributes.instanceStart.data).toBe(lineBuffer);
    expect(lineBuffer.version).toBeGreaterThan(lineVersion);
    expect(dots.geometry).toBe(dotsGeometry);
    expect(Array.from(lineBuffer.array)).toEqual([-1, 0, 0.5, 1, 3, 0.5]);
    expect(Array.from(dots.geometry.attributes.position.array)).toEqual([-1, 0, 0.5, 1, 3, 0.5]);
    expect(events.filter((e) => e.data.action === 'updated')).toHaveLength(0);

    measurements.release();
    expect(counts.changed).toBe(lastChanged + 1);
    const updated = events.filter((e) => e.data.action === 'updated');
    expect(updated).toHaveLength(1);
    expect(updated[0].data.label).toBe('3.61 m');
    expect(measurements.list()[0].label).toBe('3.61 m');
  });

  it("moves the engine's point and leaves the drawing to the frame; a point moved by anyone else is drawn too", () => {
    const { ctx, measurements } = setup();
    measurements.begin('length');
    measurements.click(0, 0);
    measurements.click(200, 0);
    const [{ id }] = measurements.list();
    const group = ctx.helpers.children.find((o) => o.name.startsWith(`Measurement ${id}`))!;
    const line = group.children[0] as unknown as { geometry: { attributes: { instanceStart: InterleavedBufferAttribute } } };
    expect(measurements.grab(200, 0)).toBe(true);
    measurements.drag(200, 100);
    expect(getMeasurementPoint(ctx.world, id, 1, new Vector3()).toArray()).toEqual([1, 1, 0.5]);
    expect(Array.from(line.geometry.attributes.instanceStart.data.array)).toEqual([-1, 0, 0.5, 1, 0, 0.5]);
    runFrameSteps(ctx.world, 'helpers');
    expect(Array.from(line.geometry.attributes.instanceStart.data.array)).toEqual([-1, 0, 0.5, 1, 1, 0.5]);
    measurements.release();
    // The host API or a meeting writes the engine's data; the next frame draws it.
    setMeasurementPoint(ctx.world, id, 0, new Vector3(-1, 1, 0.5));
    runFrameSteps(ctx.world, 'helpers');
    expect(measurements.list()[0].label).toBe('2.00 m');
    expect(measurements.points(id).map((p) => p.toArray())).toEqual([
      [-1, 1, 0.5],
      [1, 1, 0.5],
    ]);
  });

  it("keeps an area's fill buffer while a corner moves on its plane", () => {
    const { ctx, measurements } = setup();
    measurements.begin('area');
    for (const [x, y] of [
      [0, 0],
      [200, 0],
      [200, 300],
      [0, 300],
    ]) {
      measurements.click(x, y);
      expect(measurements.feedback).toBeNull();
    }
    expect(measurements.draftCount()).toBe(4);
    expect(measurements.finish()).toBe(true);
    const [area] = measurements.list();
    expect(area.label).toBe('6.00 m²');
    const group = ctx.helpers.children.find((o) => o.name.startsWith(`Measurement ${area.id}`))!;
    // The fill (Line2 is a Mesh too: by type).
    const fill = group.children.find((o) => o.type === 'Mesh') as unknown as { geometry: { attributes: { position: BufferAttribute } } };
    const fillGeometry = fill.geometry;
    const fillArray = fill.geometry.attributes.position.array;
    expect(measurements.grab(200, 300)).toBe(true);
    measurements.drag(250, 300);
    measurements.drag(300, 300);
    measurements.release();
    expect(fill.geometry).toBe(fillGeometry);
    expect(fill.geometry.attributes.position.array).toBe(fillArray);
    // Corner (1, 3) moved to (2, 3): a trapezoid of (2 + 3) / 2 * 3 = 7.5 m².
    expect(measurements.list()[0].label).toBe('7.50 m²');
    // Its two triangles use the moved corner, and no longer the old one.
    const corners = new Set<string>();
    for (let i = 0; i < fillArray.length; i += 3) corners.add(`${fillArray[i]},${fillArray[i + 1]},${fillArray[i + 2]}`);
    expect([...corners].sort()).toEqual(['-1,0,0.5', '-1,3,0.5', '1,0,0.5', '2,3,0.5']);
    expect(fillArray.length).toBe(18);
  });
});
