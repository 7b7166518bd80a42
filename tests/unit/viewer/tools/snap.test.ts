import { Object3D, Plane, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import type { PickHit, Picker } from '../../../../src/viewer/pick-types';
import { addPoint, createDraft, measureLabel, measureValue } from '../../../../src/viewer/tools/measure-machine';
import { createPickedPoint, pickSnapped, SNAP_DISTANCE, snapPlaneFor } from '../../../../src/viewer/tools/snap';

/**
 * A fake picker over a 2 x 3 x 1 box's front face (z = 0.5): client pixel (x, y) hits the face at
 * world (x / 100 - 1, y / 100, 0.5); vertices are the box's 8 corners. snapToVertex follows the
 * Picker contract: the nearest vertex within the radius, on the plane (within 0.001) when given.
 */
function fakePicker(extraVertices: Vector3[] = []) {
  const corners: Vector3[] = [...extraVertices];
  for (const x of [-1, 1]) for (const y of [0, 3]) for (const z of [-0.5, 0.5]) corners.push(new Vector3(x, y, z));
  const calls: { radius: number | undefined; plane: Plane | undefined }[] = [];
  const picker: Picker = {
    pick: () => null,
    pickAtClient(clientX, clientY) {
      const x = clientX / 100 - 1;
      const y = clientY / 100;
      if (x < -1 || x > 1 || y < 0 || y > 3) return null;
      const hit: PickHit = {
        point: new Vector3(x, y, 0.5),
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
      return hit;
    },
    snapToVertex(hit, target, radius = 0.25, plane) {
      calls.push({ radius, plane });
      let best: Vector3 | null = null;
      for (const c of corners) {
        if (plane && Math.abs(plane.distanceToPoint(c)) > 0.001) continue;
        const d = c.distanceTo(hit.point);
        if (d <= radius && (!best || d < best.distanceTo(hit.point))) best = c;
      }
      return best ? target.copy(best) : null;
    },
    prepare: async () => undefined,
    dispose: () => undefined,
  };
  return { picker, calls };
}

describe('pickSnapped', () => {
  it('snaps to the nearest vertex within 0.25 and says so', () => {
    const { picker, calls } = fakePicker();
    const out = createPickedPoint();
    expect(pickSnapped(picker, 10, 10, null, out)).toBe(true); // (-0.9, 0.1, 0.5): 0.14 from a corner
    expect(out.point.toArray()).toEqual([-1, 0, 0.5]);
    expect(out.snapped).toBe(true);
    expect(out.normal.toArray()).toEqual([0, 0, 1]);
    expect(calls[0].radius).toBe(SNAP_DISTANCE);
    expect(SNAP_DISTANCE).toBe(0.25);
  });

  it('keeps the surface point when no vertex is within 0.25', () => {
    const { picker } = fakePicker();
    const out = createPickedPoint();
    expect(pickSnapped(picker, 100, 150, null, out)).toBe(true);
    expect(out.snapped).toBe(false);
    expect(out.point.toArray()).toEqual([0, 1.5, 0.5]);
  });

  it('restricts snapping to the working plane', () => {
    const { picker, calls } = fakePicker();
    const out = createPickedPoint();
    // A plane through the back face: the front corners are off it, so nothing snaps.
    const back = new Plane(new Vector3(0, 0, 1), 0.5);
    expect(pickSnapped(picker, 10, 10, back, out)).toBe(true);
    expect(calls[0].plane).toBe(back);
    expect(out.snapped).toBe(false);
    expect(out.point.toArray()).toEqual([-0.9, 0.1, 0.5]);
  });

  it('reports a miss without touching the point', () => {
    const { picker } = fakePicker();
    const out = createPickedPoint();
    out.point.set(7, 7, 7);
    expect(pickSnapped(picker, -500, 10, null, out)).toBe(false);
    expect(out.hit).toBeNull();
    expect(out.point.toArray()).toEqual([7, 7, 7]);
  });

  it('turns sloppy clicks near the corners into exact measurements', () => {
    const { picker } = fakePicker();
    const out = createPickedPoint();
    const length = createDraft('length');
    pickSnapped(picker, 12, 8, null, out);
    addPoint(length, out.point, out.normal);
    pickSnapped(picker, 188, 14, null, out);
    const done = addPoint(length, out.point, out.normal);
    expect(done.status === 'completed' && measureLabel('length', done.value)).toBe('2.00 m');

    const area = createDraft('area');
    for (const [x, y] of [[5, 5], [195, 9], [190, 290], [8, 296]]) {
      pickSnapped(picker, x, y, snapPlaneFor(area), out);
      expect(addPoint(area, out.point, out.normal).status).toBe('added');
    }
    expect(measureLabel('area', measureValue('area', area.points))).toBe('6.00 m²');
  });

  it("starts an area on the clicked face, not on a bump's vertex next to it", () => {
    // A 2 cm boss standing on the front face near its bottom-left corner: its top vertex is closer
    // to the click than the face's corner, but off the face's plane.
    const bump = new Vector3(-0.92, 0.08, 0.52);
    const { picker, calls } = fakePicker([bump]);
    const out = createPickedPoint();
    const area = createDraft('area');
    pickSnapped(picker, 10, 10, snapPlaneFor(area), out);
    // Snapped on the plane through the hit point along its normal: the face's corner.
    expect(calls[0].plane!.normal.toArray()).toEqual([0, 0, 1]);
    expect(calls[0].plane!.distanceToPoint(new Vector3(0, 0, 0.5))).toBeCloseTo(0, 12);
    expect(out.point.toArray()).toEqual([-1, 0, 0.5]);
    expect(addPoint(area, out.point, out.normal).status).toBe('added');
    expect(area.plane!.distanceToPoint(new Vector3(0, 1, 0.5))).toBeCloseTo(0, 12);
    // The rest of the face is on the area's plane.
    for (const [x, y] of [[195, 9], [190, 290], [8, 296]]) {
      pickSnapped(picker, x, y, snapPlaneFor(area), out);
      expect(addPoint(area, out.point, out.normal).status).toBe('added');
    }
    expect(measureLabel('area', measureValue('area', area.points))).toBe('6.00 m²');
    // Lengths and angles have no plane: they snap to any vertex (the bump's top here).
    calls.length = 0;
    pickSnapped(picker, 10, 10, snapPlaneFor(createDraft('length')), out);
    expect(calls[0].plane).toBeUndefined();
    expect(out.point.toArray()).toEqual([-0.92, 0.08, 0.52]);
  });
});
