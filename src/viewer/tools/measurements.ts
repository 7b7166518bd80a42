import { addComponent, removeEntity } from 'bitecs';
import {
  BufferAttribute,
  BufferGeometry,
  Group,
  Mesh,
  Plane,
  Points,
  Ray,
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
import { Measurement, MeasurementKind } from '../../../components';
import { bindObject, unbindObject } from '../../engine/registry';
import { addViewerEntity } from '../../engine/world';
import type { MeasurementEventData } from '../events';
import type { ToolContext } from './context';
import { createFillMaterial, createLineMaterial, createPointMaterial, onHelperLayer } from './helper-materials';
import type { Label } from './labels';
import {
  addPoint,
  cancelDraft,
  createDraft,
  finishDraft,
  inProgress,
  measureHint,
  measureLabel,
  measureValue,
  offPlane,
  PLANE_TOLERANCE,
  undoPoint,
  type MeasureDraft,
  type MeasureKind,
} from './measure-machine';
import { planeBasis } from './section-cap';
import type { SnapMarker } from './snap-marker';
import { createPickedPoint, HIT_PLANE, pickSnapped, snapPlaneFor } from './snap';

/** How close (CSS pixels) a press must be to a measurement point to drag it, or to a line to select it. */
export const POINT_GRAB_PX = 10;
export const LINE_SELECT_PX = 6;

const COLOR = 0x1f8efa;
const SELECTED_COLOR = 0xffa31a;
// The measurement in progress: pink, apart from finished (blue), selected (orange) and the green snap marker.
const DRAFT_COLOR = 0xff5cc8;
const LINE_WIDTH = 2.5;

export interface MeasurementInfo {
  id: number;
  kind: MeasureKind;
  value: number;
  label: string;
}

interface Entry {
  eid: number;
  kind: MeasureKind;
  points: Vector3[];
  plane: Plane | null;
  value: number;
  group: Group;
  line: Line2;
  dots: Points;
  fill: Mesh | null;
  /** An angle's arc at its corner. */
  arc: Line2 | null;
  label: Label;
  /** Reused while a point is dragged: flat positions, and the area's points in its plane. */
  scratch: number[];
  flat: Vector2[];
}

export interface Measurements {
  /** The measurement tool's kind while one is active. */
  readonly kind: MeasureKind | null;
  begin(kind: MeasureKind): void;
  end(): void;
  inProgress(): boolean;
  /** Points of the measurement in progress. */
  draftCount(): number;
  hint(): string;
  /** A click of the active tool: adds a point (or refuses it, see `feedback`). */
  click(clientX: number, clientY: number): void;
  hover(clientX: number, clientY: number): void;
  leave(): void;
  /** Enter: finishes an area. Returns whether the key was used. */
  finish(): boolean;
  /** Ctrl+Z: removes the last point of the measurement in progress. */
  undo(): boolean;
  /** Escape: cancels the measurement in progress; false when none was in progress. */
  cancel(): boolean;
  /** The reason the last point was refused, shown until the next action. */
  readonly feedback: string | null;
  /** A press near a measurement point starts dragging it. */
  grab(clientX: number, clientY: number): boolean;
  drag(clientX: number, clientY: number): void;
  release(): void;
  /** Selects the measurement whose line passes under the pointer; false when none does. */
  selectAt(clientX: number, clientY: number): boolean;
  select(eid: number): void;
  readonly selected: number;
  remove(eid: number): void;
  list(): MeasurementInfo[];
  /** World points of a measurement (copies). */
  points(eid: number): Vector3[];
  dispose(): void;
}

const KIND_CODE: Record<MeasureKind, number> = { length: MeasurementKind.length, area: MeasurementKind.area, angle: MeasurementKind.angle };

const screenA = new Vector2();
const screenB = new Vector2();
const pointer = new Vector2();
const scratchRay = new Ray();
const onPlane = new Vector3();
const centroid = new Vector3();
const u = new Vector3();
const v = new Vector3();

const arcFrom = new Vector3();
const arcTo = new Vector3();
const arcDir = new Vector3();
const ARC_SEGMENTS = 24;

/**
 * The arc of an angle a-corner-c at a quarter of its shorter side, as line positions; empty when
 * the angle is degenerate (0 or 180 degrees, or a zero-length side).
 */
function arcPositions(a: Vector3, corner: Vector3, c: Vector3, out: number[] = []): number[] {
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

/**
 * The three measurement tools on top of the pure state machines (measure-machine.ts): picking with
 * vertex snapping, the snap marker, the drawing (screen-constant Line2 lines and point markers on
 * the helper layer, an area's translucent fill), HTML labels, and finished measurements as
 * entities (component Measurement; points in the `entries` side map) that can be selected,
 * deleted, and corrected by dragging their points.
 */
export function createMeasurements(ctx: ToolContext, marker: SnapMarker, onSelect: (eid: number) => void): Measurements {
  let kind: MeasureKind | null = null;
  let draft: MeasureDraft | null = null;
  let feedback: string | null = null;
  let selected = 0;
  const entries = new Map<number, Entry>();

  // The measurement in progress: its fixed polyline, its points, and a rubber band from the last
  // point to the pointer (and on to the first point for an area), updated in place while hovering.
  const draftGroup = onHelperLayer(new Group());
  draftGroup.name = 'Measurement in progress';
  const draftLineMaterial = createLineMaterial(DRAFT_COLOR, LINE_WIDTH);
  const bandMaterial = createLineMaterial(DRAFT_COLOR, 1.5, true);
  const draftDotsMaterial = createPointMaterial(DRAFT_COLOR, 9);
  let draftLine: Line2 | null = null;
  let draftDots: Points | null = null;
  const bandGeometry = new LineSegmentsGeometry();
  bandGeometry.setPositions(new Float32Array(12));
  const band = new LineSegments2(bandGeometry, bandMaterial);
  band.frustumCulled = false;
  band.visible = false;
  band.renderOrder = 1000;
  band.layers.set(15);
  draftGroup.add(band);
  ctx.helpers.add(draftGroup);
  const draftLabel = ctx.labels.add('measure-label draft', '');
  draftLabel.element.style.display = 'none';
  const bandStart = bandGeometry.attributes.instanceStart as InterleavedBufferAttribute;
  const bandArray = bandStart.data.array as Float32Array;
  const hoverPoint = new Vector3();
  let hoverValid = false;

  // Dragging one point of a finished measurement.
  let dragEntry: Entry | null = null;
  let dragIndex = -1;
  const dragOriginal = new Vector3();

  // One picked point, written in place by every pick (hover runs every animation frame).
  const picked = createPickedPoint();
  const pickAt = (clientX: number, clientY: number, plane: Plane | typeof HIT_PLANE | null) => pickSnapped(ctx.surfaces, clientX, clientY, plane, picked);

  const setFeedback = (text: string | null) => {
    if (feedback === text) return;
    feedback = text;
    ctx.changed();
  };

  // ---- drawing ------------------------------------------------------------------------------

  const linePositions = (points: readonly Vector3[], closed: boolean): number[] => {
    const out: number[] = [];
    for (const p of points) out.push(p.x, p.y, p.z);
    if (closed && points.length > 2) out.push(points[0].x, points[0].y, points[0].z);
    return out;
  };

  const pointsGeometry = (points: readonly Vector3[]): BufferGeometry => {
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(new Float32Array(linePositions(points, false)), 3));
    return geometry;
  };

  const fillGeometry = (points: readonly Vector3[], plane: Plane): BufferGeometry => {
    planeBasis(plane.normal, u, v);
    const flat = points.map((p) => new Vector2(p.dot(u), p.dot(v)));
    const triangles = ShapeUtils.triangulateShape(flat, []);
    const positions = new Float32Array(triangles.length * 9);
    let o = 0;
    for (const t of triangles) for (const i of t) positions.set([points[i].x, points[i].y, points[i].z], (o++ * 3));
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(positions, 3));
    return geometry;
  };

  const labelPoint = (entryKind: MeasureKind, points: readonly Vector3[], out: Vector3): Vector3 => {
    if (entryKind === 'angle') {
      // Inside the angle, on its bisector just beyond the arc.
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
  };

  /** The flat positions of a measurement's points (its line closed for an area), in a reused array. */
  const flatPoints = (points: readonly Vector3[], closed: boolean, out: number[]): number[] => {
    out.length = 0;
    for (const p of points) out.push(p.x, p.y, p.z);
    if (closed && points.length > 2) out.push(points[0].x, points[0].y, points[0].z);
    return out;
  };

  /**
   * The fill's triangles written into its position attribute in place when their count is
   * unchanged (a point dragged on the plane); false when a new geometry is needed.
   */
  const writeFill = (entry: Entry, geometry: BufferGeometry, plane: Plane): boolean => {
    const position = geometry.attributes.position as BufferAttribute | undefined;
    planeBasis(plane.normal, u, v);
    const flat = entry.flat;
    for (let i = 0; i < entry.points.length; i++) (flat[i] ??= new Vector2()).set(entry.points[i].dot(u), entry.points[i].dot(v));
    flat.length = entry.points.length;
    const triangles = ShapeUtils.triangulateShape(flat, []);
    if (!position || position.array.length !== triangles.length * 9) return false;
    const array = position.array as Float32Array;
    let o = 0;
    for (const t of triangles) {
      for (const i of t) {
        array[o++] = entry.points[i].x;
        array[o++] = entry.points[i].y;
        array[o++] = entry.points[i].z;
      }
    }
    position.needsUpdate = true;
    geometry.computeBoundingSphere();
    return true;
  };

  /**
   * Draws a measurement from its points. While a point is dragged the geometries are written in
   * place (same buffers, no GPU reallocation); a new geometry only when its size changes.
   */
  const redrawEntry = (entry: Entry) => {
    const closed = entry.kind === 'area';
    const positions = flatPoints(entry.points, closed, entry.scratch);
    if (!writePolyline(entry.line.geometry, positions, positions.length)) {
      const lineGeometry = new LineGeometry();
      lineGeometry.setPositions(positions);
      entry.line.geometry.dispose();
      entry.line.geometry = lineGeometry;
      entry.line.computeLineDistances();
    }
    const dots = entry.dots.geometry.attributes.position as BufferAttribute | undefined;
    if (dots && dots.count === entry.points.length) {
      for (let i = 0; i < entry.points.length; i++) dots.setXYZ(i, entry.points[i].x, entry.points[i].y, entry.points[i].z);
      dots.needsUpdate = true;
    } else {
      entry.dots.geometry.dispose();
      entry.dots.geometry = pointsGeometry(entry.points);
    }
    if (entry.fill && entry.plane && !writeFill(entry, entry.fill.geometry, entry.plane)) {
      entry.fill.geometry.dispose();
      entry.fill.geometry = fillGeometry(entry.points, entry.plane);
    }
    if (entry.arc) {
      const arc = arcPositions(entry.points[0], entry.points[1], entry.points[2], entry.scratch);
      entry.arc.visible = arc.length >= 6;
      if (entry.arc.visible && !writePolyline(entry.arc.geometry, arc, arc.length)) {
        const arcGeometry = new LineGeometry();
        arcGeometry.setPositions(arc);
        entry.arc.geometry.dispose();
        entry.arc.geometry = arcGeometry;
      }
    }
    entry.value = measureValue(entry.kind, entry.points);
    Measurement.value[entry.eid] = entry.value;
    Measurement.pointCount[entry.eid] = entry.points.length;
    entry.label.setText(measureLabel(entry.kind, entry.value));
    labelPoint(entry.kind, entry.points, entry.label.point);
    ctx.redraw();
  };

  const setEntryColour = (entry: Entry, colour: number) => {
    (entry.line.material as LineMaterial).color.setHex(colour);
    if (entry.arc) (entry.arc.material as LineMaterial).color.setHex(colour);
    entry.label.setClass('selected', colour === SELECTED_COLOR);
    ctx.redraw();
  };

  const redrawDraft = () => {
    if (draftLine) {
      draftGroup.remove(draftLine);
      draftLine.geometry.dispose();
      draftLine = null;
    }
    if (draftDots) {
      draftGroup.remove(draftDots);
      draftDots.geometry.dispose();
      draftDots = null;
    }
    const points = draft?.points ?? [];
    if (points.length >= 2) {
      const geometry = new LineGeometry();
      geometry.setPositions(linePositions(points, false));
      draftLine = onHelperLayer(new Line2(geometry, draftLineMaterial));
      draftLine.renderOrder = 1000;
      draftGroup.add(draftLine);
    }
    if (points.length >= 1) {
      draftDots = onHelperLayer(new Points(pointsGeometry(points), draftDotsMaterial));
      draftDots.renderOrder = 1001;
      draftDots.frustumCulled = false;
      draftGroup.add(draftDots);
    }
    updateBand();
  };

  /** The rubber band and the live label, from the draft and the hover point (no allocation). */
  const updateBand = () => {
    const points = draft?.points ?? [];
    const last = points[points.length - 1];
    if (!draft || !last || !hoverValid) {
      band.visible = false;
      draftLabel.element.style.display = 'none';
      ctx.redraw();
      return;
    }
    bandArray[0] = last.x;
    bandArray[1] = last.y;
    bandArray[2] = last.z;
    bandArray[3] = hoverPoint.x;
    bandArray[4] = hoverPoint.y;
    bandArray[5] = hoverPoint.z;
    let segments = 1;
    if (draft.kind === 'area' && points.length >= 2) {
      bandArray[6] = hoverPoint.x;
      bandArray[7] = hoverPoint.y;
      bandArray[8] = hoverPoint.z;
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
    if (draft.kind === 'length') text = measureLabel('length', last.distanceTo(hoverPoint));
    else if (draft.kind === 'angle' && points.length === 2) text = measureLabel('angle', measureValue('angle', [points[0], points[1], hoverPoint]));
    if (text) {
      draftLabel.setText(text);
      if (draft.kind === 'length') draftLabel.point.copy(last).add(hoverPoint).multiplyScalar(0.5);
      else draftLabel.point.copy(points[1]);
      draftLabel.element.style.display = '';
    } else {
      draftLabel.element.style.display = 'none';
    }
    ctx.redraw();
  };

  // ---- entities -----------------------------------------------------------------------------

  const eventData = (entry: Entry, action: MeasurementEventData['action']): MeasurementEventData => ({
    action,
    id: entry.eid,
    kind: entry.kind,
    value: entry.value,
    label: measureLabel(entry.kind, entry.value),
    points: entry.points.map((p) => ({ x: p.x, y: p.y, z: p.z })),
  });

  const spawn = (entryKind: MeasureKind, points: Vector3[], plane: Plane | null): Entry => {
    const eid = addViewerEntity(ctx.world);
    addComponent(ctx.world, eid, Measurement);
    Measurement.kind[eid] = KIND_CODE[entryKind];
    Measurement.value[eid] = 0;
    Measurement.pointCount[eid] = points.length;
    const group = new Group();
    group.name = `Measurement ${eid} (${entryKind})`;
    const line = new Line2(new LineGeometry(), createLineMaterial(COLOR, LINE_WIDTH));
    line.renderOrder = 1000;
    const dotsMaterial = createPointMaterial(COLOR, 9);
    const dots = new Points(new BufferGeometry(), dotsMaterial);
    dots.renderOrder = 1001;
    dots.frustumCulled = false;
    group.add(line, dots);
    let arc: Line2 | null = null;
    if (entryKind === 'angle') {
      arc = new Line2(new LineGeometry(), createLineMaterial(COLOR, 1.5));
      arc.renderOrder = 1000;
      group.add(arc);
    }
    let fill: Mesh | null = null;
    if (entryKind === 'area' && plane) {
      fill = new Mesh(new BufferGeometry(), createFillMaterial(COLOR, 0.18, false));
      fill.renderOrder = 999;
      group.add(fill);
    }
    onHelperLayer(group);
    ctx.helpers.add(group);
    bindObject(ctx.world, eid, group);
    const label = ctx.labels.add(`measure-label ${entryKind}`, '', () => select(eid));
    label.element.dataset.testid = 'measure-label';
    label.element.dataset.measurement = String(eid);
    const entry: Entry = { eid, kind: entryKind, points, plane, value: 0, group, line, dots, fill, arc, label, scratch: [], flat: [] };
    entries.set(eid, entry);
    redrawEntry(entry);
    return entry;
  };

  const complete = () => {
    if (!draft) return;
    const points = draft.points.map((p) => p.clone());
    const plane = draft.plane ? draft.plane.clone() : null;
    const entry = spawn(draft.kind, points, plane);
    cancelDraft(draft);
    redrawDraft();
    ctx.events.emit('measurement', eventData(entry, 'created'));
    ctx.changed();
  };

  const select = (eid: number) => {
    if (selected === eid) return;
    const previous = entries.get(selected);
    if (previous) setEntryColour(previous, COLOR);
    selected = entries.has(eid) ? eid : 0;
    const entry = entries.get(selected);
    if (entry) setEntryColour(entry, SELECTED_COLOR);
    if (selected) onSelect(selected);
    ctx.changed();
  };

  const remove = (eid: number) => {
    const entry = entries.get(eid);
    if (!entry) throw new Error(`There is no measurement ${eid}.`);
    entries.delete(eid);
    if (selected === eid) selected = 0;
    entry.group.removeFromParent();
    entry.group.traverse((o) => {
      const drawable = o as Mesh;
      if (drawable.geometry) drawable.geometry.dispose();
      if (drawable.material && !Array.isArray(drawable.material)) drawable.material.dispose();
    });
    ctx.labels.remove(entry.label);
    unbindObject(ctx.world, eid);
    removeEntity(ctx.world, eid);
    ctx.events.emit('measurement', eventData(entry, 'deleted'));
    ctx.redraw();
    ctx.changed();
  };

  // ---- screen-space hit tests ---------------------------------------------------------------

  const nearestPoint = (clientX: number, clientY: number): { entry: Entry; index: number } | null => {
    pointer.set(clientX, clientY);
    let best: { entry: Entry; index: number } | null = null;
    let bestDistance = POINT_GRAB_PX;
    // The selected measurement first: its points win over others drawn at the same place.
    const ordered = [...entries.values()].sort((a, b) => Number(b.eid === selected) - Number(a.eid === selected));
    for (const entry of ordered) {
      entry.points.forEach((p, index) => {
        if (!ctx.toClient(p, screenA)) return;
        const d = screenA.distanceTo(pointer);
        if (d < bestDistance || (d <= bestDistance && best === null)) {
          bestDistance = d;
          best = { entry, index };
        }
      });
    }
    return best;
  };

  const distanceToSegment = (p: Vector2, a: Vector2, b: Vector2): number => {
    const abx = b.x - a.x;
    const aby = b.y - a.y;
    const lengthSq = abx * abx + aby * aby;
    const t = lengthSq === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * abx + (p.y - a.y) * aby) / lengthSq));
    return Math.hypot(a.x + abx * t - p.x, a.y + aby * t - p.y);
  };

  // ---- the API ------------------------------------------------------------------------------

  const api: Measurements = {
    get kind() {
      return kind;
    },
    begin(next) {
      if (draft) cancelDraft(draft);
      kind = next;
      draft = createDraft(next);
      feedback = null;
      redrawDraft();
      ctx.changed();
    },
    end() {
      kind = null;
      draft = null;
      feedback = null;
      hoverValid = false;
      marker.hide();
      redrawDraft();
      ctx.changed();
    },
    inProgress() {
      return !!draft && inProgress(draft);
    },
    draftCount() {
      return draft?.points.length ?? 0;
    },
    hint() {
      return draft ? measureHint(draft) : '';
    },
    click(clientX, clientY) {
      if (!draft) return;
      if (!pickAt(clientX, clientY, snapPlaneFor(draft))) {
        setFeedback('Click on the model: nothing is under the pointer.');
        return;
      }
      const result = addPoint(draft, picked.point, picked.normal);
      if (result.status === 'refused') {
        setFeedback(result.reason);
        marker.show(picked.point, 'refused');
        ctx.redraw();
        return;
      }
      feedback = null;
      if (result.status === 'completed') complete();
      else {
        redrawDraft();
        ctx.changed();
      }
    },
    hover(clientX, clientY) {
      if (!draft) {
        if (marker.visible) {
          marker.hide();
          ctx.redraw();
        }
        return;
      }
      if (!pickAt(clientX, clientY, snapPlaneFor(draft))) {
        hoverValid = false;
        marker.hide();
        updateBand();
        return;
      }
      const refused = offPlane(draft, picked.point) !== null;
      marker.show(picked.point, refused ? 'refused' : picked.snapped ? 'snap' : 'surface');
      hoverPoint.copy(picked.point);
      hoverValid = !refused;
      updateBand();
    },
    leave() {
      hoverValid = false;
      marker.hide();
      updateBand();
    },
    finish() {
      if (!draft || draft.kind !== 'area' || draft.points.length === 0) return false;
      const result = finishDraft(draft);
      if (result.status === 'refused') {
        setFeedback(result.reason);
        return true;
      }
      feedback = null;
      complete();
      return true;
    },
    undo() {
      if (!draft || draft.points.length === 0) return false;
      const removed = undoPoint(draft);
      if (!removed) setFeedback('An area keeps at least 3 points: Ctrl+Z is ignored at 3.');
      else {
        feedback = null;
        redrawDraft();
        ctx.changed();
      }
      return true;
    },
    cancel() {
      if (!draft || !inProgress(draft)) return false;
      cancelDraft(draft);
      feedback = null;
      redrawDraft();
      ctx.changed();
      return true;
    },
    get feedback() {
      return feedback;
    },
    grab(clientX, clientY) {
      const near = nearestPoint(clientX, clientY);
      if (!near) return false;
      dragEntry = near.entry;
      dragIndex = near.index;
      dragOriginal.copy(near.entry.points[near.index]);
      // Selected when it really moves: a press that stays put is a click (a new point on this corner).
      return true;
    },
    drag(clientX, clientY) {
      const entry = dragEntry;
      if (!entry) return;
      if (selected !== entry.eid) select(entry.eid);
      const target = entry.points[dragIndex];
      const found = pickAt(clientX, clientY, entry.plane);
      if (entry.plane) {
        // An area point stays on its plane: a snapped vertex or surface point on the plane, else
        // the pointer ray's crossing with the plane.
        if (found && Math.abs(entry.plane.distanceToPoint(picked.point)) <= PLANE_TOLERANCE) target.copy(picked.point);
        else if (ctx.rayAt(clientX, clientY, scratchRay).intersectPlane(entry.plane, onPlane)) target.copy(onPlane);
        else return;
      } else {
        if (!found) return;
        target.copy(picked.point);
      }
      marker.show(target, found && picked.snapped ? 'snap' : 'surface');
      // The drawing and the 3D label follow every frame; the UI's list is told on release.
      redrawEntry(entry);
    },
    release() {
      const entry = dragEntry;
      dragEntry = null;
      marker.hide();
      if (!entry) return;
      if (!entry.points[dragIndex].equals(dragOriginal)) {
        ctx.events.emit('measurement', eventData(entry, 'updated'));
        ctx.changed();
      }
      ctx.redraw();
    },
    selectAt(clientX, clientY) {
      pointer.set(clientX, clientY);
      for (const entry of entries.values()) {
        const n = entry.points.length;
        const segments = entry.kind === 'area' ? n : n - 1;
        for (let i = 0; i < segments; i++) {
          if (!ctx.toClient(entry.points[i], screenA) || !ctx.toClient(entry.points[(i + 1) % n], screenB)) continue;
          if (distanceToSegment(pointer, screenA, screenB) <= LINE_SELECT_PX) {
            select(entry.eid);
            return true;
          }
        }
      }
      if (selected) select(0);
      return false;
    },
    select(eid) {
      if (eid !== 0 && !entries.has(eid)) throw new Error(`There is no measurement ${eid}.`);
      select(eid);
    },
    get selected() {
      return selected;
    },
    remove,
    list() {
      return [...entries.values()].map((e) => ({ id: e.eid, kind: e.kind, value: e.value, label: measureLabel(e.kind, e.value) }));
    },
    points(eid) {
      const entry = entries.get(eid);
      if (!entry) throw new Error(`There is no measurement ${eid}.`);
      return entry.points.map((p) => p.clone());
    },
    dispose() {
      for (const eid of [...entries.keys()]) remove(eid);
      draftGroup.removeFromParent();
      draftLine?.geometry.dispose();
      draftDots?.geometry.dispose();
      bandGeometry.dispose();
      draftLineMaterial.dispose();
      bandMaterial.dispose();
      draftDotsMaterial.dispose();
      ctx.labels.remove(draftLabel);
    },
  };
  return api;
}
