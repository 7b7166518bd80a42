import {
  BufferAttribute,
  BufferGeometry,
  Group,
  Mesh,
  Plane,
  Points,
  ShapeUtils,
  Vector2,
  Vector3,
  type InterleavedBufferAttribute,
} from 'three';
import { Line2 } from 'three/examples/jsm/lines/Line2.js';
import { LineGeometry } from 'three/examples/jsm/lines/LineGeometry.js';
import type { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import { HELPER_LAYER } from '../../../protocol/constants';
import { createFillMaterial, createLineMaterial, createPointMaterial, onHelperLayer } from '../helper-materials';
import type { DisplayUnits } from '../format';
import type { Label, LabelLayer } from '../labels';
import { measureLabel, measureValue, type MeasureKind } from '../measure-machine';
import { planeBasis } from '../section-cap';

/**
 * How measurements are drawn: screen-constant Line2 lines and point markers on the helper layer, an
 * area's translucent fill, an angle's arc, and the measurement in progress with its rubber band and
 * live label. Everything is written in place when its size is unchanged (a dragged point rewrites
 * the same buffers); a new geometry only when the number of points changes. No entity code here.
 */

export const COLOR = 0x1f8efa;
export const SELECTED_COLOR = 0xffa31a;
/** The measurement in progress: pink, apart from finished (blue), selected (orange) and the green snap marker. */
export const DRAFT_COLOR = 0xff5cc8;
const LINE_WIDTH = 2.5;

const arcFrom = new Vector3();
const arcTo = new Vector3();
const arcDir = new Vector3();
const centroid = new Vector3();
const u = new Vector3();
const v = new Vector3();
const ARC_SEGMENTS = 24;

/**
 * The arc of an angle a-corner-c at a quarter of its shorter side, as line positions; empty when
 * the angle is degenerate (0 or 180 degrees, or a zero-length side).
 */
export function arcPositions(a: Vector3, corner: Vector3, c: Vector3, out: number[] = []): number[] {
  out.length = 0;
  const la = arcFrom.subVectors(a, corner).length();
  const lc = arcTo.subVectors(c, corner).length();
  if (la === 0 || lc === 0) return out;
  arcFrom.divideScalar(la);
  arcTo.divideScalar(lc);
  const theta = arcFrom.angleTo(arcTo);
  const sin = Math.sin(theta);
  if (sin < 1e-6) return out;
  const radius = 0.25 * Math.min(la, lc);
  for (let i = 0; i <= ARC_SEGMENTS; i++) {
    const t = i / ARC_SEGMENTS;
    arcDir
      .copy(arcFrom)
      .multiplyScalar(Math.sin((1 - t) * theta) / sin)
      .addScaledVector(arcTo, Math.sin(t * theta) / sin);
    out.push(corner.x + arcDir.x * radius, corner.y + arcDir.y * radius, corner.z + arcDir.z * radius);
  }
  return out;
}

/**
 * Writes a polyline (flat xyz positions, `count` values) into a line geometry's segments in place
 * (no new buffers); false when the geometry has a different number of segments (build a new one).
 */
export function writePolyline(geometry: LineSegmentsGeometry, positions: ArrayLike<number>, count: number): boolean {
  const start = geometry.attributes.instanceStart as InterleavedBufferAttribute | undefined;
  const segments = count / 3 - 1;
  if (!start || segments < 1 || start.count !== segments) return false;
  const array = start.data.array as Float32Array;
  for (let i = 0; i < segments; i++) {
    for (let k = 0; k < 3; k++) {
      array[i * 6 + k] = positions[i * 3 + k];
      array[i * 6 + 3 + k] = positions[i * 3 + 3 + k];
    }
  }
  start.data.needsUpdate = true;
  geometry.computeBoundingSphere();
  return true;
}

/** The flat positions of points (closed: back to the first, for an area), in a reused array. */
export function flatPositions(points: readonly Vector3[], closed: boolean, out: number[] = []): number[] {
  out.length = 0;
  for (const p of points) out.push(p.x, p.y, p.z);
  if (closed && points.length > 2) out.push(points[0].x, points[0].y, points[0].z);
  return out;
}

function pointsGeometry(points: readonly Vector3[]): BufferGeometry {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(flatPositions(points, false)), 3));
  return geometry;
}

/** Where a measurement's label sits: inside an angle on its bisector just beyond the arc; elsewhere the points' centroid. */
export function labelPoint(kind: MeasureKind, points: readonly Vector3[], out: Vector3): Vector3 {
  if (kind === 'angle') {
    const corner = points[1];
    const la = arcFrom.subVectors(points[0], corner).length();
    const lc = arcTo.subVectors(points[2], corner).length();
    if (la === 0 || lc === 0) return out.copy(corner);
    arcDir.copy(arcFrom.divideScalar(la)).add(arcTo.divideScalar(lc));
    if (arcDir.lengthSq() < 1e-12) return out.copy(corner);
    return out.copy(corner).addScaledVector(arcDir.normalize(), 0.45 * Math.min(la, lc));
  }
  centroid.set(0, 0, 0);
  for (const p of points) centroid.add(p);
  return out.copy(centroid.divideScalar(points.length));
}

/** The drawn parts of one finished measurement. */
export interface MeasurementDrawing {
  readonly group: Group;
  readonly line: Line2;
  readonly dots: Points;
  /** An area's fill (null for length and angle, or an area without a plane). */
  readonly fill: Mesh | null;
  /** An angle's arc at its corner. */
  readonly arc: Line2 | null;
  readonly label: Label;
  /** Reused while a point is dragged: flat positions, and the area's points in its plane. */
  readonly scratch: number[];
  readonly flat: Vector2[];
}

export function createDrawing(kind: MeasureKind, hasPlane: boolean, labels: LabelLayer, onPick: () => void): MeasurementDrawing {
  const group = new Group();
  const line = new Line2(new LineGeometry(), createLineMaterial(COLOR, LINE_WIDTH));
  line.renderOrder = 1000;
  const dots = new Points(new BufferGeometry(), createPointMaterial(COLOR, 9));
  dots.renderOrder = 1001;
  dots.frustumCulled = false;
  group.add(line, dots);
  let arc: Line2 | null = null;
  if (kind === 'angle') {
    arc = new Line2(new LineGeometry(), createLineMaterial(COLOR, 1.5));
    arc.renderOrder = 1000;
    group.add(arc);
  }
  let fill: Mesh | null = null;
  if (kind === 'area' && hasPlane) {
    fill = new Mesh(new BufferGeometry(), createFillMaterial(COLOR, 0.18, false));
    fill.renderOrder = 999;
    group.add(fill);
  }
  onHelperLayer(group);
  // Measurements are part of a screenshot (screenshot.ts keeps annotations, leaves other helpers out).
  group.userData.annotation = true;
  const label = labels.add(`measure-label ${kind}`, '', onPick);
  return { group, line, dots, fill, arc, label, scratch: [], flat: [] };
}

/**
 * Draws a measurement from its points, in place where the sizes are unchanged; updates the label's
 * text and point. Returns the measured value (metres, m² or degrees).
 */
export function drawMeasurement(drawing: MeasurementDrawing, kind: MeasureKind, points: readonly Vector3[], plane: Plane | null, display: Readonly<DisplayUnits>): number {
  const positions = flatPositions(points, kind === 'area', drawing.scratch);
  if (!writePolyline(drawing.line.geometry, positions, positions.length)) {
    const lineGeometry = new LineGeometry();
    lineGeometry.setPositions(positions);
    drawing.line.geometry.dispose();
    drawing.line.geometry = lineGeometry;
    drawing.line.computeLineDistances();
  }
  const dots = drawing.dots.geometry.attributes.position as BufferAttribute | undefined;
  if (dots && dots.count === points.length) {
    for (let i = 0; i < points.length; i++) dots.setXYZ(i, points[i].x, points[i].y, points[i].z);
    dots.needsUpdate = true;
  } else {
    drawing.dots.geometry.dispose();
    drawing.dots.geometry = pointsGeometry(points);
  }
  if (drawing.fill && plane && !writeFill(drawing, points, plane)) {
    drawing.fill.geometry.dispose();
    drawing.fill.geometry = fillGeometry(points, plane);
  }
  if (drawing.arc) {
    const arc = arcPositions(points[0], points[1], points[2], drawing.scratch);
    drawing.arc.visible = arc.length >= 6;
    if (drawing.arc.visible && !writePolyline(drawing.arc.geometry, arc, arc.length)) {
      const arcGeometry = new LineGeometry();
      arcGeometry.setPositions(arc);
      drawing.arc.geometry.dispose();
      drawing.arc.geometry = arcGeometry;
    }
  }
  const value = measureValue(kind, points);
  drawing.label.setText(measureLabel(kind, value, display));
  labelPoint(kind, points, drawing.label.point);
  return value;
}

function fillGeometry(points: readonly Vector3[], plane: Plane): BufferGeometry {
  planeBasis(plane.normal, u, v);
  const flat = points.map((p) => new Vector2(p.dot(u), p.dot(v)));
  const triangles = ShapeUtils.triangulateShape(flat, []);
  const positions = new Float32Array(triangles.length * 9);
  let o = 0;
  for (const t of triangles) for (const i of t) positions.set([points[i].x, points[i].y, points[i].z], o++ * 3);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(positions, 3));
  return geometry;
}

/**
 * The fill's triangles written into its position attribute in place when their count is unchanged
 * (a point dragged on the plane); false when a new geometry is needed.
 */
function writeFill(drawing: MeasurementDrawing, points: readonly Vector3[], plane: Plane): boolean {
  const geometry = drawing.fill!.geometry;
  const position = geometry.attributes.position as BufferAttribute | undefined;
  planeBasis(plane.normal, u, v);
  const flat = drawing.flat;
  for (let i = 0; i < points.length; i++) (flat[i] ??= new Vector2()).set(points[i].dot(u), points[i].dot(v));
  flat.length = points.length;
  const triangles = ShapeUtils.triangulateShape(flat, []);
  if (!position || position.array.length !== triangles.length * 9) return false;
  const array = position.array as Float32Array;
  let o = 0;
  for (const t of triangles) {
    for (const i of t) {
      array[o++] = points[i].x;
      array[o++] = points[i].y;
      array[o++] = points[i].z;
    }
  }
  position.needsUpdate = true;
  geometry.computeBoundingSphere();
  return true;
}

export function setDrawingColour(drawing: MeasurementDrawing, colour: number): void {
  (drawing.line.material as LineMaterial).color.setHex(colour);
  if (drawing.arc) (drawing.arc.material as LineMaterial).color.setHex(colour);
  drawing.label.setClass('selected', colour === SELECTED_COLOR);
}

export function disposeDrawing(drawing: MeasurementDrawing, labels: LabelLayer): void {
  drawing.group.removeFromParent();
  drawing.group.traverse((o) => {
    const drawable = o as Mesh;
    if (drawable.geometry) drawable.geometry.dispose();
    if (drawable.material && !Array.isArray(drawable.material)) drawable.material.dispose();
  });
  labels.remove(drawing.label);
}

/**
 * The measurement in progress: its fixed polyline, its points, and a rubber band from the last
 * point to the pointer (and on to the first point for an area) with a live label, updated in place
 * while hovering.
 */
export interface DraftDrawing {
  readonly group: Group;
  /** Rebuilds the fixed part from the draft's points. */
  setPoints(points: readonly Vector3[]): void;
  /** The rubber band from the last point to `hover` (null hides it), and the live label. */
  setBand(kind: MeasureKind | null, points: readonly Vector3[], hover: Vector3 | null): void;
  dispose(): void;
}

export function createDraftDrawing(labels: LabelLayer, display: Readonly<DisplayUnits>): DraftDrawing {
  const group = onHelperLayer(new Group());
  group.name = 'Measurement in progress';
  const lineMaterial = createLineMaterial(DRAFT_COLOR, LINE_WIDTH);
  const bandMaterial = createLineMaterial(DRAFT_COLOR, 1.5, true);
  const dotsMaterial = createPointMaterial(DRAFT_COLOR, 9);
  let line: Line2 | null = null;
  let dots: Points | null = null;
  const bandGeometry = new LineSegmentsGeometry();
  bandGeometry.setPositions(new Float32Array(12));
  const band = new LineSegments2(bandGeometry, bandMaterial);
  band.frustumCulled = false;
  band.visible = false;
  band.renderOrder = 1000;
  band.layers.set(HELPER_LAYER);
  group.add(band);
  const label = labels.add('measure-label draft', '');
  label.inScreenshot = false;
  label.element.style.display = 'none';
  const bandStart = bandGeometry.attributes.instanceStart as InterleavedBufferAttribute;
  const bandArray = bandStart.data.array as Float32Array;

  return {
    group,
    setPoints(points) {
      if (line) {
        group.remove(line);
        line.geometry.dispose();
        line = null;
      }
      if (dots) {
        group.remove(dots);
        dots.geometry.dispose();
        dots = null;
      }
      if (points.length >= 2) {
        const geometry = new LineGeometry();
        geometry.setPositions(flatPositions(points, false));
        line = onHelperLayer(new Line2(geometry, lineMaterial));
        line.renderOrder = 1000;
        group.add(line);
      }
      if (points.length >= 1) {
        dots = onHelperLayer(new Points(pointsGeometry(points), dotsMaterial));
        dots.renderOrder = 1001;
        dots.frustumCulled = false;
        group.add(dots);
      }
    },
    setBand(kind, points, hover) {
      const last = points[points.length - 1];
      if (!kind || !last || !hover) {
        band.visible = false;
        label.element.style.display = 'none';
        return;
      }
      bandArray[0] = last.x;
      bandArray[1] = last.y;
      bandArray[2] = last.z;
      bandArray[3] = hover.x;
      bandArray[4] = hover.y;
      bandArray[5] = hover.z;
      let segments = 1;
      if (kind === 'area' && points.length >= 2) {
        bandArray[6] = hover.x;
        bandArray[7] = hover.y;
        bandArray[8] = hover.z;
        bandArray[9] = points[0].x;
        bandArray[10] = points[0].y;
        bandArray[11] = points[0].z;
        segments = 2;
      }
      bandGeometry.instanceCount = segments;
      bandStart.data.needsUpdate = true;
      band.computeLineDistances();
      band.visible = true;
      // The live value: the length so far, or the angle once the corner is set.
      let text = '';
      if (kind === 'length') text = measureLabel('length', last.distanceTo(hover), display);
      else if (kind === 'angle' && points.length === 2) text = measureLabel('angle', measureValue('angle', [points[0], points[1], hover]), display);
      if (text) {
        label.setText(text);
        if (kind === 'length') label.point.copy(last).add(hover).multiplyScalar(0.5);
        else label.point.copy(points[1]);
        label.element.style.display = '';
      } else {
        label.element.style.display = 'none';
      }
    },
    dispose() {
      group.removeFromParent();
      line?.geometry.dispose();
      dots?.geometry.dispose();
      bandGeometry.dispose();
      lineMaterial.dispose();
      bandMaterial.dispose();
      dotsMaterial.dispose();
      labels.remove(label);
    },
  };
}
