import { Group, Object3D, Ray, Vector2, Vector3, type BufferAttribute, type InterleavedBufferAttribute } from 'three';
import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../../../src/engine/frame-steps';
import { getMeasurementPoint, setMeasurementPoint } from '../../../../../src/engine/measurement-data';
import { createViewerWorld } from '../../../../../src/engine/world';
import type { PickHit } from '../../../../../src/viewer/pick-types';
import type { ToolContext } from '../../../../../src/viewer/tools/context';
import type { Label, LabelLayer } from '../../../../../src/viewer/tools/labels';
import { createMeasurements } from '../../../../../src/viewer/tools/measurements';
import { createSnapMarker } from '../../../../../src/viewer/tools/snap-marker';
import type { SurfacePicker } from '../../../../../src/viewer/tools/surface-picker';

/**
 * The measurement tools on a stand-in context: client pixel (x, y) is the world point
 * (x / 100 - 1, y / 100, 0.5) on a box's front face, and back.
 */
function setup() {
  const toWorld = (x: number, y: number, out: Vector3) => out.set(x / 100 - 1, y / 100, 0.5);
  const counts = { changed: 0, redraw: 0 };
  const events: { type: string; data: any }[] = [];
  const labels: LabelLayer = {
    element: {} as HTMLDivElement,
    add(_className: string, text: string): Label {
      const element = { textContent: text, style: {} as Record<string, string>, dataset: {} as Record<string, string> } as unknown as HTMLDivElement;
      return {
        element,
        point: new Vector3(),
        offsetY: 0,
        inScreenshot: true,
        setText: (value) => void (element.textContent = value),
        setClass: () => undefined,
      };
    },
    remove: () => undefined,
    list: () => [],
    update: () => undefined,
    dispose: () => undefined,
  };
  const surfaces = {
    pickAtClient(clientX: number, clientY: number): PickHit {
      return {
        point: toWorld(clientX, clientY, new Vector3()),
        normal: new Vector3(0, 0, 1),
        distance: 10,
        object: new Object3D(),
        eid: 1,
        modelId: 'm',
        nodeId: 'box',
        nodeName: 'Box',
        material: null,
        materialId: null,
        instanceId: null,
        faceIndex: 0,
      };
    },
    snapToVertex: () => null,
  } as unknown as SurfacePicker;
  const ctx = {
    world: createViewerWorld(),
    renderer: { getPixelRatio: () => 1 },
    helpers: new Group(),
    labels,
    display: { unit: 'm', precision: 2, upAxis: 'y' },
    events: { emit: (type: string, data: unknown) => events.push({ type, data }) },
    surfaces,
    camera: () => {
      throw new Error('not used');
    },
    redraw: () => void counts.redraw++,
    changed: () => void counts.changed++,
    toClient(p: Vector3, out: Vector2) {
      out.set((p.x + 1) * 100, p.y * 100);
      return true;
    },
    rayAt: (_x: number, _y: number, out: Ray) => out,
  } as unknown as ToolContext;
  const measurements = createMeasurements(ctx, createSnapMarker(), () => undefined);
  return { ctx, measurements, counts, events };
}

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

  it('moves the engine\'s point and leaves the drawing to the frame; a point moved by anyone else is drawn too', () => {
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
    for (const [x, y] of [[0, 0], [200, 0], [200, 300], [0, 300]]) {
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
