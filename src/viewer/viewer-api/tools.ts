import { Quaternion, Vector3 } from 'three';
import { MAX_MEASUREMENTS, MAX_SECTION_PLANES, measurementProblem, type HostResult } from '../../protocol/host-api';
import type { ApiContext, Impl, Vec3T } from '../viewer-api';
import { tuple } from './lookups';

type ToolFunctions = Pick<
  Impl,
  | 'activateTool'
  | 'listMeasurements'
  | 'createMeasurement'
  | 'updateMeasurement'
  | 'removeMeasurement'
  | 'listSectionPlanes'
  | 'createSectionPlane'
  | 'moveSectionPlane'
  | 'removeSectionPlane'
  | 'pickFromScreen'
>;

const Z = new Vector3(0, 0, 1);

/**
 * The host API's tools: measurements and section planes are made through the viewer's tools
 * (restore/setPoints/remove, place/setPose/remove), so they are drawn, evented and shared in a
 * meeting as the tools' own; picks go through the viewer's picker.
 */
export function createToolFunctions(ctx: ApiContext): ToolFunctions {
  const { viewer, world, options } = ctx;
  const measurementInfo = (m: { id: number; kind: 'length' | 'area' | 'angle'; value: number; label: string }): HostResult<'createMeasurement'> => {
    const raw = world.measurementPoints.get(m.id);
    const points: Vec3T[] = [];
    if (raw) for (let i = 0; i + 2 < raw.length; i += 3) points.push([raw[i], raw[i + 1], raw[i + 2]]);
    return { id: m.id, kind: m.kind, value: m.value, label: m.label, points };
  };
  const measurementById = (id: number) => {
    const found = viewer.tools.measurements.list().find((m) => m.id === id);
    if (!found) throw new Error(`There is no measurement ${id}.`);
    return measurementInfo(found);
  };
  /** A plane through `point` with the unit normal `n`: the kept side is where n . p + constant >= 0. */
  const planeInfo = (id: number, n: Vector3, point: readonly number[]): HostResult<'createSectionPlane'> => ({
    id,
    normal: [n.x, n.y, n.z],
    constant: -(n.x * point[0] + n.y * point[1] + n.z * point[2]),
  });

  return {
    activateTool: ({ tool }) => {
      if (tool === null) viewer.tools.deactivate();
      else viewer.tools.activate(tool);
      return { tool: viewer.tools.active };
    },
    listMeasurements: () => viewer.tools.measurements.list().map(measurementInfo),
    createMeasurement: ({ kind, points }) => {
      const measurements = viewer.tools.measurements;
      if (measurements.list().length >= MAX_MEASUREMENTS)
        throw new Error(`There are ${MAX_MEASUREMENTS} measurements, the most there may be: remove one first.`);
      const id = measurements.restore(
        kind,
        points.map((p) => new Vector3(p[0], p[1], p[2])),
      );
      world.render.needsRender = true;
      return measurementById(id);
    },
    updateMeasurement: ({ id, points }) => {
      const measurements = viewer.tools.measurements;
      const current = measurements.list().find((m) => m.id === id);
      if (!current) throw new Error(`There is no measurement ${id}.`);
      const problem = measurementProblem(current.kind, points);
      if (problem) throw new Error(`${problem.index === null ? 'points' : `points[${problem.index}]`}: ${problem.message}`);
      measurements.setPoints(
        id,
        points.map((p) => new Vector3(p[0], p[1], p[2])),
      );
      world.render.needsRender = true;
      return measurementById(id);
    },
    removeMeasurement: ({ id }) => {
      viewer.tools.measurements.remove(id);
      world.render.needsRender = true;
      return { ok: true as const };
    },
    listSectionPlanes: () =>
      viewer.tools.sections.list().map((s) => ({ id: s.id, normal: [s.normal.x, s.normal.y, s.normal.z] as Vec3T, constant: s.constant })),
    createSectionPlane: ({ point, normal }) => {
      const sections = viewer.tools.sections;
      if (sections.list().length >= MAX_SECTION_PLANES)
        throw new Error(`There are ${MAX_SECTION_PLANES} section planes, the most there may be: remove one first.`);
      const n = new Vector3(normal[0], normal[1], normal[2]).normalize();
      // Placed as a finished plane: neither selected nor being placed, so the visitor's own tool
      // and selection stay as they were.
      const id = sections.place(new Vector3(point[0], point[1], point[2]), new Quaternion().setFromUnitVectors(Z, n));
      world.render.needsRender = true;
      return planeInfo(id, n, point);
    },
    moveSectionPlane: ({ id, point, normal }) => {
      const sections = viewer.tools.sections;
      const position = new Vector3();
      const rotation = new Quaternion();
      if (!sections.pose(id, position, rotation)) throw new Error(`There is no section plane ${id}.`);
      if (point) position.set(point[0], point[1], point[2]);
      if (normal) rotation.setFromUnitVectors(Z, new Vector3(normal[0], normal[1], normal[2]).normalize());
      sections.setPose(id, position, rotation);
      world.render.needsRender = true;
      // The plane itself follows its pose in the next frame (the section plane system): answered from the pose.
      return planeInfo(id, Z.clone().applyQuaternion(rotation), tuple(position));
    },
    removeSectionPlane: ({ id }) => {
      viewer.tools.sections.remove(id);
      world.render.needsRender = true;
      return { ok: true as const };
    },
    pickFromScreen: ({ x, y }) => {
      const rect = options.canvas.getBoundingClientRect();
      const hit = viewer.picker.pickAtClient(rect.left + x, rect.top + y);
      if (!hit) return null;
      return {
        position: tuple(hit.point),
        normal: tuple(hit.normal),
        distance: hit.distance,
        modelId: hit.modelId,
        nodeId: hit.nodeId,
        nodeName: hit.nodeName,
        materialId: hit.materialId,
        material: hit.material?.name ?? '',
        instanceId: hit.instanceId,
      };
    },
  };
}
