import { Ray, Vector3, type Plane } from 'three';
import { Measurement } from '../../../../components';
import { getMeasurementPoint, setMeasurementPoint } from '../../../engine/measurement-data';
import type { ToolContext } from '../context';
import { PLANE_TOLERANCE } from '../measure-machine';
import type { PickedPoint } from '../snap';
import type { SnapMarker } from '../snap-marker';
import { followMeasurement, measurementEvent, type MeasurementEntry } from './entities';
import { nearestPoint } from './hit-tests';

const scratchRay = new Ray();
const onPlane = new Vector3();
const dragTarget = new Vector3();
const dragNow = new Vector3();

export interface PointDrag {
  /** A press near a measurement point starts dragging it. */
  grab(clientX: number, clientY: number): boolean;
  /** Moves the grabbed point (the drawing follows in the frame's helpers slot). */
  drag(clientX: number, clientY: number): void;
  release(): void;
  /** The measurement went: a drag of it stops. */
  forget(entry: MeasurementEntry): void;
}

/**
 * Correcting a finished measurement by dragging one of its points: the drag writes the engine's
 * point (the drawing and the 3D label follow in the frame's helpers slot); an area's point stays
 * on its plane. The outside hears once, on release, if the point moved.
 */
export function createPointDrag(
  ctx: ToolContext,
  marker: SnapMarker,
  entries: ReadonlyMap<number, MeasurementEntry>,
  picking: { picked: PickedPoint; pickAt(clientX: number, clientY: number, plane: Plane | null): boolean },
  selection: { selected(): number; select(eid: number): void },
): PointDrag {
  let dragEntry: MeasurementEntry | null = null;
  let dragIndex = -1;
  const dragOriginal = new Vector3();
  const { picked } = picking;

  return {
    grab(clientX, clientY) {
      const near = nearestPoint(ctx.toClient, entries.values(), selection.selected(), clientX, clientY);
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
      if (selection.selected() !== entry.eid) selection.select(entry.eid);
      const found = picking.pickAt(clientX, clientY, entry.plane);
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
    forget(entry) {
      if (dragEntry === entry) dragEntry = null;
    },
  };
}
