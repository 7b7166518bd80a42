import { Plane, Vector3 } from 'three';
import { Measurement } from '../../../../components';
import { addFrameStep } from '../../../engine/frame-steps';
import { measurementPoints, setMeasurementPoints } from '../../../engine/measurement-data';
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
  undoPoint,
  type MeasureDraft,
  type MeasureKind,
} from '../measure-machine';
import type { SnapMarker } from '../snap-marker';
import { createPickedPoint, HIT_PLANE, pickSnapped, snapPlaneFor } from '../snap';
import { formatComponents } from '../format';
import { COLOR, createDraftDrawing, SELECTED_COLOR, setDrawingColour } from './drawing';
import { despawnMeasurement, followMeasurement, measurementEvent, spawnMeasurement, type MeasurementEntry } from './entities';
import { lineUnder } from './hit-tests';
import { createPointDrag } from './point-drag';

export { LINE_SELECT_PX, POINT_GRAB_PX } from './hit-tests';

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

/**
 * The three measurement tools: the state machines (measure-machine.ts) fed by picks with vertex
 * snapping, the snap marker and the drawing in progress; finished measurements as entities
 * (entities.ts) that can be selected (hit-tests.ts), deleted, and corrected by dragging their
 * points (point-drag.ts). A drag writes the engine's point; a step of the frame's helpers slot redraws every measurement whose
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
    pointDrag.forget(entry);
    despawnMeasurement(ctx, entry);
    ctx.events.emit('measurement', measurementEvent(entry, 'deleted'));
    ctx.redraw();
    ctx.changed();
  };

  // Dragging one point of a finished measurement.
  const pointDrag = createPointDrag(ctx, marker, entries, { picked, pickAt }, { selected: () => selected, select });

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
    grab: pointDrag.grab,
    drag: pointDrag.drag,
    release: pointDrag.release,
    selectAt(clientX, clientY) {
      const entry = lineUnder(ctx.toClient, entries.values(), clientX, clientY);
      if (entry) {
        select(entry.eid);
        return true;
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
