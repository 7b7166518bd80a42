import { MAX_ENTITIES } from './constants';

/**
 * A section plane. Its pose is the entity's Transform: the position is a point of the plane and the
 * rotation turns +Z onto the plane's normal (the square is drawn in the local XY plane). The section
 * plane system derives `normal` and `constant` from the world matrix whenever it changes (the kept
 * side is where normal . p + constant >= 0, three.js's Plane and clipping convention) and sets
 * `changed` for the section tool, which follows with the clipping planes, the square and the caps.
 */
export const SectionPlane = {
  /** Unit normal, 3 floats per entity, world space (derived). */
  normal: new Float32Array(MAX_ENTITIES * 3),
  /** Derived. */
  constant: new Float64Array(MAX_ENTITIES),
  /** Side length of the drawn square (default SECTION_PLANE_SIZE, 5). */
  size: new Float32Array(MAX_ENTITIES),
  /** 1 when normal/constant changed and the section tool has not followed yet. */
  changed: new Uint8Array(MAX_ENTITIES),
};
