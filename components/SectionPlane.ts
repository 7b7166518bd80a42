import { MAX_ENTITIES } from './constants';

/**
 * A section plane: the kept side is where normal . p + constant >= 0 (three.js Plane and clipping
 * convention). Its helper objects and cap live in src/viewer/tools/section.ts, keyed by eid.
 */
export const SectionPlane = {
  /** Unit normal, 3 floats per entity, world space. */
  normal: new Float32Array(MAX_ENTITIES * 3),
  constant: new Float64Array(MAX_ENTITIES),
  /** Side length of the drawn square (default 5). */
  size: new Float32Array(MAX_ENTITIES),
};
