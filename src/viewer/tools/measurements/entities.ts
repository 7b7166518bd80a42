import { addComponent, removeEntity } from 'bitecs';
import { Vector3, type Plane } from 'three';
import { Measurement, MeasurementKind } from '../../../../components';
import { deleteMeasurementPoints, getMeasurementPoint, measurementPointCount, setMeasurementPoints } from '../../../engine/measurement-data';
import { bindObject, unbindObject } from '../../../engine/registry';
import { addViewerEntity, type ViewerWorld } from '../../../engine/world';
import type { MeasurementEventData } from '../../events';
import type { ToolContext } from '../context';
import type { DisplayUnits } from '../format';
import { measureLabel, type MeasureKind } from '../measure-machine';
import { createDrawing, disposeDrawing, drawMeasurement, type MeasurementDrawing } from './drawing';

/**
 * Finished measurements as entities: the Measurement component (kind, value, point count), the
 * points as engine data (src/engine/measurement-data.ts) and the drawing bound to the entity. The
 * drawing follows the engine's points (followMeasurement), so whoever moves a point (a drag, the
 * host API, a meeting) writes the engine data and the picture follows in the next frame.
 */

const KIND_CODE: Record<MeasureKind, number> = { length: MeasurementKind.length, area: MeasurementKind.area, angle: MeasurementKind.angle };

export interface MeasurementEntry {
  readonly eid: number;
  readonly kind: MeasureKind;
  /** An area's working plane (its points stay on it); null otherwise. */
  readonly plane: Plane | null;
  /** The engine's points as last drawn (read back by followMeasurement; never written here first). */
  readonly points: Vector3[];
  value: number;
  readonly drawing: MeasurementDrawing;
  /** The tools' display settings (shared, changed in place): the label's unit and precision. */
  readonly display: Readonly<DisplayUnits>;
}

/** A new measurement entity with its points and drawing (drawn at once). */
export function spawnMeasurement(ctx: ToolContext, kind: MeasureKind, points: readonly Vector3[], plane: Plane | null, onPick: (eid: number) => void): MeasurementEntry {
  const world = ctx.world;
  const eid = addViewerEntity(world);
  addComponent(world, eid, Measurement);
  Measurement.kind[eid] = KIND_CODE[kind];
  Measurement.value[eid] = 0;
  setMeasurementPoints(world, eid, points);
  const drawing = createDrawing(kind, plane !== null, ctx.labels, () => onPick(eid));
  drawing.group.name = `Measurement ${eid} (${kind})`;
  drawing.label.element.dataset.testid = 'measure-label';
  drawing.label.element.dataset.measurement = String(eid);
  ctx.helpers.add(drawing.group);
  bindObject(world, eid, drawing.group);
  const entry: MeasurementEntry = { eid, kind, plane: plane ? plane.clone() : null, points: [], value: 0, drawing, display: ctx.display };
  followMeasurement(world, entry);
  return entry;
}

/** Reads the engine's points into the entry and redraws it; clears the Measurement.changed flag. */
export function followMeasurement(world: ViewerWorld, entry: MeasurementEntry): void {
  const n = measurementPointCount(world, entry.eid);
  const points = entry.points;
  for (let i = 0; i < n; i++) getMeasurementPoint(world, entry.eid, i, (points[i] ??= new Vector3()));
  points.length = n;
  entry.value = drawMeasurement(entry.drawing, entry.kind, points, entry.plane, entry.display);
  Measurement.value[entry.eid] = entry.value;
  Measurement.changed[entry.eid] = 0;
  // A measurement's lines and labels cast no shadow: a picture that keeps the shadow maps.
  world.render.needsPicture = true;
}

export function despawnMeasurement(ctx: ToolContext, entry: MeasurementEntry): void {
  disposeDrawing(entry.drawing, ctx.labels);
  unbindObject(ctx.world, entry.eid);
  deleteMeasurementPoints(ctx.world, entry.eid);
  removeEntity(ctx.world, entry.eid);
  ctx.world.render.needsPicture = true;
}

export function measurementEvent(entry: MeasurementEntry, action: MeasurementEventData['action']): MeasurementEventData {
  return {
    action,
    id: entry.eid,
    kind: entry.kind,
    value: entry.value,
    label: measureLabel(entry.kind, entry.value, entry.display),
    points: entry.points.map((p) => ({ x: p.x, y: p.y, z: p.z })),
  };
}
