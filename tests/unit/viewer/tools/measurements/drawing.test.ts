import { Plane, Vector3, type BufferAttribute } from 'three';
import { DEFAULT_DISPLAY } from '../../../../../src/viewer/tools/format';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import { describe, expect, it } from 'vitest';
import type { Label, LabelLayer } from '../../../../../src/viewer/tools/labels';
import { arcPositions, createDrawing, drawMeasurement, flatPositions, labelPoint, writePolyline } from '../../../../../src/viewer/tools/measurements/drawing';

function labels(): LabelLayer {
  return {
    element: {} as HTMLDivElement,
    add(): Label {
      const element = { textContent: '', style: {}, dataset: {}, classList: { toggle: () => undefined } } as unknown as HTMLDivElement;
      return { element, point: new Vector3(), offsetY: 0, inScreenshot: true, setText: (t) => void (element.textContent = t), setClass: () => undefined };
    },
    remove: () => undefined,
    list: () => [],
    update: () => undefined,
    dispose: () => undefined,
  };
}

describe('measurement drawing', () => {
  it('draws an angle arc at a quarter of the shorter side, and none for a degenerate angle', () => {
    const arc = arcPositions(new Vector3(4, 0, 0), new Vector3(0, 0, 0), new Vector3(0, 2, 0));
    expect(arc.length).toBe(25 * 3);
    expect(arc.slice(0, 3)).toEqual([0.5, 0, 0]);
    expect(arc[arc.length - 3]).toBeCloseTo(0, 9);
    expect(arc[arc.length - 2]).toBeCloseTo(0.5, 9);
    expect(arcPositions(new Vector3(1, 0, 0), new Vector3(), new Vector3(2, 0, 0))).toEqual([]);
    expect(arcPositions(new Vector3(), new Vector3(), new Vector3(2, 0, 0))).toEqual([]);
  });

  it('writes a polyline in place only when its segment count matches', () => {
    const geometry = new LineSegmentsGeometry();
    geometry.setPositions([0, 0, 0, 1, 0, 0]);
    expect(writePolyline(geometry, [0, 0, 0, 2, 0, 0], 6)).toBe(true);
    expect(writePolyline(geometry, [0, 0, 0, 2, 0, 0, 2, 2, 0], 9)).toBe(false);
  });

  it('closes an area polyline and places labels at the centroid or inside an angle', () => {
    const square = [new Vector3(0, 0, 0), new Vector3(2, 0, 0), new Vector3(2, 2, 0), new Vector3(0, 2, 0)];
    expect(flatPositions(square, true)).toHaveLength(15);
    expect(flatPositions(square, false)).toHaveLength(12);
    expect(labelPoint('area', square, new Vector3()).toArray()).toEqual([1, 1, 0]);
    const inside = labelPoint('angle', [new Vector3(2, 0, 0), new Vector3(), new Vector3(0, 2, 0)], new Vector3());
    expect(inside.x).toBeCloseTo(inside.y, 9);
    expect(inside.x).toBeGreaterThan(0);
  });

  it('returns the measured value, labels it, and rewrites the same buffers when the count is unchanged', () => {
    const plane = new Plane(new Vector3(0, 0, 1), 0);
    const drawing = createDrawing('area', true, labels(), () => undefined);
    const points = [new Vector3(0, 0, 0), new Vector3(2, 0, 0), new Vector3(2, 3, 0)];
    expect(drawMeasurement(drawing, 'area', points, plane, DEFAULT_DISPLAY)).toBeCloseTo(3, 9);
    expect(drawing.label.element.textContent).toBe('3.00 m²');
    const fill = drawing.fill!.geometry;
    const dots = drawing.dots.geometry.attributes.position as BufferAttribute;
    points[2].set(2, 6, 0);
    expect(drawMeasurement(drawing, 'area', points, plane, DEFAULT_DISPLAY)).toBeCloseTo(6, 9);
    expect(drawing.fill!.geometry).toBe(fill);
    expect(drawing.dots.geometry.attributes.position).toBe(dots);
  });
});
