import { z } from 'zod';
import { AREA_PLANE_TOLERANCE, MAX_FRAME_SIDE, MAX_MEASUREMENT_POINTS, MAX_TEXT_LENGTH } from './host-api-envelope.ts';

/**
 * The pieces the host API's argument schemas are made of (./host-api.ts), each with the error text
 * that names the argument at fault, and the names and checks several functions share.
 */

export const finite = (name: string) => z.number({ error: `${name} must be a number` }).refine(Number.isFinite, { error: `${name} must be a finite number` });
export const positive = (name: string) => finite(name).refine((v) => v > 0, { error: `${name} must be greater than 0` });
export const id = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} undefined.` : `${name} must be a string`) })
    .min(1, { error: `${name} must not be empty` })
    .max(256, { error: `${name} must be at most 256 characters` });
export const text = (name: string) =>
  z.string({ error: `${name} must be a string` }).max(MAX_TEXT_LENGTH, { error: `${name} must be at most ${MAX_TEXT_LENGTH} characters` });
export const bool = (name: string) => z.boolean({ error: `${name} must be true or false` });
/** [x, y, z] */
export const vec3 = (name: string) => z.tuple([finite(`${name}[0]`), finite(`${name}[1]`), finite(`${name}[2]`)], { error: `${name} must be [x, y, z]` });
export const side = (name: string) =>
  z
    .number({ error: `${name} must be a number of pixels` })
    .int({ error: `${name} must be a whole number of pixels` })
    .min(1, { error: `${name} must be at least 1` })
    .max(MAX_FRAME_SIDE, { error: `${name} must be at most ${MAX_FRAME_SIDE}` });

/** A value of the page's as an error message quotes it: at most 60 characters. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export const args = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument ${issue.keys
            .slice(0, 5)
            .map((k) => `'${clip(k)}'`)
            .join(', ')}${issue.keys.length > 5 ? ` (and ${issue.keys.length - 5} more)` : ''}`
        : 'the arguments must be an object { name: value }',
  });
export const none = args({});

export const MEASUREMENT_KINDS = ['length', 'area', 'angle'] as const;
export const NAVIGATION_MODE_NAMES = ['Orbit', 'FirstPerson', 'Plan'] as const;
export const PROJECTION_NAMES = ['Perspective', 'Orthographic'] as const;
export const TOOL_NAMES = ['section-tool', 'length-measure-tool', 'area-measure-tool', 'angle-measure-tool'] as const;
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;
export const QUALITY_NAMES = ['low', 'medium', 'high', 'auto'] as const;

export const nodeRef = { modelId: id('modelId'), nodeId: id('nodeId') };

export const imageArgs = {
  width: side('width').optional(),
  height: side('height').optional(),
  format: z.enum(IMAGE_FORMATS, { error: `format must be one of ${IMAGE_FORMATS.join(', ')}` }).optional(),
  quality: finite('quality')
    .refine((v) => v >= 0 && v <= 1, { error: 'quality must be between 0 and 1' })
    .optional(),
};

type Point = readonly [number, number, number] | readonly number[];

/**
 * Why `points` cannot make a `kind` measurement (null when they can): a length is 2 different
 * points; an angle 3 with its vertex in the middle, apart from both ends; an area 3 or more on one
 * plane (the first three, not in a line, give it; every point within AREA_PLANE_TOLERANCE of it).
 * `index` is the point at fault (null: the list).
 */
export function measurementProblem(kind: (typeof MEASUREMENT_KINDS)[number], points: readonly Point[]): { index: number | null; message: string } | null {
  const needed = kind === 'length' ? 2 : 3;
  if (points.length < needed || (kind !== 'area' && points.length !== needed)) {
    return { index: null, message: `a ${kind} measurement needs ${kind === 'area' ? 'at least 3' : needed} points, got ${points.length}` };
  }
  const same = (a: Point, b: Point) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
  if (kind === 'length') return same(points[0], points[1]) ? { index: 1, message: 'the two points of a length must differ' } : null;
  if (kind === 'angle') {
    if (same(points[1], points[0])) return { index: 1, message: "an angle's vertex (its middle point) must differ from its first point" };
    if (same(points[1], points[2])) return { index: 1, message: "an angle's vertex (its middle point) must differ from its last point" };
    return null;
  }
  const [a, b, c] = points;
  const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const p of points) {
    for (let i = 0; i < 3; i++) {
      min[i] = Math.min(min[i], p[i]);
      max[i] = Math.max(max[i], p[i]);
    }
  }
  const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const length = Math.hypot(n[0], n[1], n[2]);
  if (!(length > 1e-12 * size * size) || !Number.isFinite(length))
    return { index: 2, message: "an area's first three points must not lie on one line (they give its plane)" };
  const tolerance = AREA_PLANE_TOLERANCE * size;
  for (let i = 3; i < points.length; i++) {
    const p = points[i];
    const off = Math.abs((n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / length);
    if (off > tolerance)
      return { index: i, message: `point ${i} is ${off.toPrecision(3)} off the plane of the first three points: an area's points must lie on one plane` };
  }
  return null;
}

export const measurementId = z
  .number({ error: 'id must be a measurement id (a number listMeasurements gives)' })
  .int({ error: 'id must be a measurement id (a whole number listMeasurements gives)' })
  .positive({ error: 'id must be a measurement id (a positive number listMeasurements gives)' });
export const sectionId = z
  .number({ error: 'id must be a section plane id (a number listSectionPlanes gives)' })
  .int({ error: 'id must be a section plane id (a whole number listSectionPlanes gives)' })
  .positive({ error: 'id must be a section plane id (a positive number listSectionPlanes gives)' });
export const measurementPoints = z
  .array(vec3('point'), { error: 'points must be a list of [x, y, z]' })
  .max(MAX_MEASUREMENT_POINTS, { error: `points: at most ${MAX_MEASUREMENT_POINTS}` });
export const planeNormal = vec3('normal').refine((n) => n[0] !== 0 || n[1] !== 0 || n[2] !== 0, {
  error: 'normal must not be [0, 0, 0]: it gives the side of the plane that stays',
});
export const httpUrl = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).max(4096, { error: `${name} must be at most 4096 characters` });
