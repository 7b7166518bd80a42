import { Plane, Ray, Vector2, Vector3 } from 'three';
import { Measurement } from '../../../../components';
import { addFrameStep } from '../../../engine/frame-steps';
import { getMeasurementPoint, measurementPoints, setMeasurementPoint, setMeasurementPoints } from '../../../engine/measurement-data';
import type { ToolContext } from '../context';
import {
  addPoint,
  cancelDraft,
  createDraft,
  finishDraft,
  inProgress,
  measureHint,
  measureLabel,
  offPlane,
  PLANE_TOLERANCE,
  undoPoint,
  type MeasureDraft,
  type MeasureKind,
} from '../measure-machine';
import type { SnapMarker } from '../snap-marker';
import { createPickedPoint, HIT_PLANE, pickSnapped, snapPlaneFor } from '../snap';
import { formatComponents } from '../format';
import { COLOR, createDraftDrawing, SELECTED_COLOR, setDrawingColour } from './drawing';
import { despawnMeasurement, followMeasurement, measurementEvent, spawnMeasurement, type MeasurementEntry } from './entities';

/** How close (CSS pixels) a press must be to a measurement point to drag it, or to a line to select it. */
export const POINT_GRAB_PX = 10;
export const LINE_SELECT_PX = 6;

export interface MeasurementInfo {
  id: number;
  kind: MeasureKind;
  value: number;
  label: string;
  /** A length's X / Y / Z components as displayed ('ΔX 2.00 · ΔY 0.00 · ΔZ 0.00 m'); null for areas and angles. */
  components: string | null;
}

export interface Measurements {
  /** The measurement tool's kind while one is active. */
  readonly kind: MeasureKind | null;
  /** Rewrites every label after the display settings changed. */
  relabel(): void;
  /** Forgets the last refusal (a new action starts). */
  clearFeedback(): void;
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
  /** Ctrl+Z: removes the last point of the measurement in progress; false when none is in progress. */
  undo(): boolean;
  /** Escape: cancels the measurement in progress; false when none was in progress. */
  cancel(): boolean;
  /** The reason the last point was refused, shown until the next action. */
  readonly feedback: string | null;
  /** A press near a measurement point starts dragging it. */
  grab(clientX: number, clientY: number): boolean;
  /** Moves the grabbed point (the drawing follows in the frame's helpers slot). */
  drag(clientX: number, clientY: number): void;
  release(): void;
  /** Selects the measurement whose line passes under the pointer; false when none does. */
  selectAt(clientX: number, clientY: number): boolean;
  select(eid: number): void;
  readonly selected: number;
  remove(eid: number): void;
  /**
   * Makes a finished measurement from world points (a comment's view, issue 16): 2 for a length,
   * 3 for an angle (the vertex in the middle), 3 or more coplanar for an area. Returns its id.
   */
  restore(kind: MeasureKind, points: readonly Vector3[]): number;
  /**
   * Moves the points of a finished measurement (a meeting's shared measurement corrected by someone
   * else): as many as it has, an area's kept on its plane's side by the sender. Drawn at once; told
   * as 'updated'.
   */
  setPoints(eid: number, points: readonly Vector3[]): void;
  list(): MeasurementInfo[];
  /** World points of a measurement (copies). */
  points(eid: number): Vector3[];
  dispose(): void;
}

const screenA = new Vector2();
const screenB = new Vector2();
const pointer = new Vector2();
const scratchRay = new Ray();
const onPlane = new Vector3();
const dragTarget = new Vector3();
const dragNow = new Vector3();

/**
 * The three measurement tools: the state machines (measure-machine.ts) fed by picks with vertex
 * snapping, the snap marker and the drawing in progress; finished measurements as entities
 * (entities.ts) that can be selected, deleted, and corrected by dragging their points. A drag
 * writes the engine's point; a step of the frame's helpers slot redraws every measurement whose
 * points changed, whoever changed them.
 */
export function createMeasurements(ctx: ToolContext, marker: SnapMarker, onSelect: (eid: number) => void): Measurements {
  let kind: MeasureKind | null = null;
  let draft: MeasureDraft | null = null;
  let feedback: string | null = null;
  let selected = 0;
  const entries = new Map<number, MeasurementEntry>();
  const draftDrawing = createDraftDrawing(ctx.labels, ctx.display);
  ctx.helpers.add(draftDrawing.group);
  const hoverPoint = new Vector3();
  let hoverValid = false;

  // Dragging one point of a finished measurement.
  let dragEntry: MeasurementEntry | null = null;
  let dragIndex = -1;
  const dragOriginal = new Vector3();

  // One picked point, written in place by every pick (hover runs every frame).
  const picked = createPickedPoint();
  const pickAt = (clientX: number, clientY: number, plane: Plane | typeof HIT_PLANE | null) => pickSnapped(ctx.surfaces, clientX, clientY, plane, picked);

  const removeStep = addFrameStep(ctx.world, 'helpers', {
    name: 'measurements',
    run(world) {
      for (const entry of entries.values()) {
        if (Measurement.changed[entry.eid]) {
          followMeasurement(world, entry);
          ctx.redraw();
        }
      }
    },
  });

  const setFeedback = (text: string | null) => {
    if (feedback === text) return;
    feedback = text;
    ctx.changed();
  };

  const redrawDraft = () => {
    draftDrawing.setPoints(draft?.points ?? []);
    updateBand();
  };

  const updateBand = () => {
    draftDrawing.setBand(draft?.kind ?? null, draft?.points ?? [], hoverValid ? hoverPoint : null);
    ctx.redraw();
  };

  const complete = () => {
    if (!draft) return;
    const entry = spawnMeasurement(ctx, draft.kind, draft.points, draft.plane, (eid) => select(eid));
    entries.set(entry.eid, entry);
    cancelDraft(draft);
    redrawDraft();
    ctx.events.emit('measurement', measurementEvent(entry, 'created'));
    ctx.changed();
  };

  const select = (eid: number) => {
    if (selected === eid) return;
    const previous = entries.get(selected);
    if (previous) setDrawingColour(previous.drawing, COLOR);
    selected = entries.has(eid) ? eid : 0;
    const entry = entries.get(selected);
    if (entry) setDrawingColour(entry.drawing, SELECTED_COLOR);
    if (selected) onSelect(selected);
    ctx.redraw();
    ctx.changed();
  };

  const remove = (eid: number) => {
    const entry = entries.get(eid);
    if (!entry) throw new Error(`There is no measurement ${eid}.`);
    entries.delete(eid);
    if (selected === eid) selected = 0;
    if (dragEntry === entry) dragEntry = null;
    despawnMeasurement(ctx, entry);
    ctx.events.emit('measurement', measurementEvent(entry, 'deleted'));
    ctx.redraw();
    ctx.changed();
  };

  // ---- screen-space hit tests ---------------------------------------------------------------

  const nearestPoint = (clientX: number, clientY: number): { entry: MeasurementEntry; index: number } | null => {
    pointer.set(clientX, clientY);
    let best: { entry: MeasurementEntry; index: number } | null = null;
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

  return {
    get kind() {
      return kind;
    },
    clearFeedback() {
      setFeedback(null);
    },
    relabel() {
      for (const entry of entries.values()) Measurement.changed[entry.eid] = 1;
      updateBand();
      ctx.redraw();
      ctx.changed();
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
        setFeedback('Missed the model: nothing is under the pointer.');
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
      getMeasurementPoint(ctx.world, near.entry.eid, near.index, dragOriginal);
      // Selected when it really moves: a press that stays put is a click (a new point on this corner).
      return true;
    },
    drag(clientX, clientY) {
      const entry = dragEntry;
      if (!entry) return;
      if (selected !== entry.eid) select(entry.eid);
      const found = pickAt(clientX, clientY, entry.plane);
      if (entry.plane) {
        // An area point stays on its plane: a snapped vertex or surface point on the plane, else
        // the pointer ray's crossing with the plane.
        if (found && Math.abs(entry.plane.distanceToPoint(picked.point)) <= PLANE_TOLERANCE) dragTarget.copy(picked.point);
        else if (ctx.rayAt(clientX, clientY, scratchRay).intersectPlane(entry.plane, onPlane)) dragTarget.copy(onPlane);
        else return;
      } else {
        if (!found) return;
        dragTarget.copy(picked.point);
      }
      marker.show(dragTarget, found && picked.snapped ? 'snap' : 'surface');
      // The engine's point moves; the drawing and the 3D label follow in this frame's helpers
      // slot; the UI's list is told on release.
      setMeasurementPoint(ctx.world, entry.eid, dragIndex, dragTarget);
      ctx.redraw();
    },
    release() {
      const entry = dragEntry;
      dragEntry = null;
      marker.hide();
      if (!entry) return;
      // The drawing, the value and the label are brought up to date before the outside hears.
      if (Measurement.changed[entry.eid]) followMeasurement(ctx.world, entry);
      if (!getMeasurementPoint(ctx.world, entry.eid, dragIndex, dragNow).equals(dragOriginal)) {
        ctx.events.emit('measurement', measurementEvent(entry, 'updated'));
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
    restore(restoredKind, points) {
      const needed = restoredKind === 'length' ? 2 : 3;
      if (points.length < needed || (restoredKind !== 'area' && points.length !== needed)) {
        throw new Error(`A ${restoredKind} measurement needs ${restoredKind === 'area' ? 'at least 3' : needed} points, got ${points.length}.`);
      }
      const plane = restoredKind === 'area' ? new Plane().setFromCoplanarPoints(points[0], points[1], points[2]) : null;
      const entry = spawnMeasurement(ctx, restoredKind, points.map((p) => p.clone()), plane, (eid) => select(eid));
      entries.set(entry.eid, entry);
      ctx.events.emit('measurement', measurementEvent(entry, 'created'));
      ctx.redraw();
      ctx.changed();
      return entry.eid;
    },
    setPoints(eid, points) {
      const entry = entries.get(eid);
      if (!entry) throw new Error(`There is no measurement ${eid}.`);
      if (points.length !== entry.points.length) throw new Error(`Measurement ${eid} has ${entry.points.length} points, got ${points.length}.`);
      for (const p of points) if (!Number.isFinite(p.x + p.y + p.z)) throw new Error('A measurement point needs finite coordinates.');
      setMeasurementPoints(ctx.world, eid, points);
      followMeasurement(ctx.world, entry);
      ctx.events.emit('measurement', measurementEvent(entry, 'updated'));
      ctx.redraw();
      ctx.changed();
    },
    list() {
      return [...entries.values()].map((e) => ({
        id: e.eid,
        kind: e.kind,
        value: e.value,
        label: measureLabel(e.kind, e.value, ctx.display),
        components: e.kind === 'length' && e.points.length === 2 ? formatComponents(e.points[0], e.points[1], ctx.display) : null,
      }));
    },
    points(eid) {
      if (!entries.has(eid)) throw new Error(`There is no measurement ${eid}.`);
      return measurementPoints(ctx.world, eid);
    },
    dispose() {
      removeStep();
      for (const eid of [...entries.keys()]) remove(eid);
      draftDrawing.dispose();
    },
  };
}
