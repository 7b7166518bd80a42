import { Vector3 } from 'three';
import { SECTION_SNAP_TOLERANCE } from '../../protocol/constants';


/**
 * The normal of a section plane created on a surface with normal `normal` (unit, world space,
 * Y up), written into `target`. The tolerance t = 0.7 is compared with |n.y|, the cosine of the
 * angle between the surface normal and the vertical:
 *
 *  - |n.y| >= t (the surface is within about 45.6 degrees of horizontal: floors, table tops, gentle
 *    slopes): the plane is exactly horizontal, normal (0, ±1, 0);
 *  - |n.y| <= 1 - t (= 0.3, the surface is within about 17.5 degrees of vertical: walls, sides):
 *    the plane is exactly vertical, normal (n.x, 0, n.z) normalised;
 *  - otherwise (steep roofs, chamfers) the plane follows the surface exactly.
 *
 * The sign is kept. The section tool then turns the plane's clipping normal INTO the surface (the
 * negated snapped normal): what lies behind the clicked surface is kept, so a new plane cuts nothing
 * yet and the person pushes it into the model with the gizmo's arrow (as in the Autodesk viewer's
 * section-by-face tool).
 */
export function snapSectionNormal(normal: Vector3, target: Vector3, tolerance = SECTION_SNAP_TOLERANCE): Vector3 {
  const length = normal.length();
  if (!(length > 1e-9) || !Number.isFinite(length)) throw new Error('A section plane needs a surface normal of non-zero length.');
  if (!(tolerance > 0.5 && tolerance <= 1)) throw new Error(`The vertical snap tolerance must be in (0.5, 1], not ${tolerance}.`);
  const x = normal.x / length;
  const y = normal.y / length;
  const z = normal.z / length;
  if (Math.abs(y) >= tolerance) return target.set(0, y >= 0 ? 1 : -1, 0);
  if (Math.abs(y) <= 1 - tolerance) {
    const h = Math.hypot(x, z);
    if (h > 1e-9) return target.set(x / h, 0, z / h);
  }
  return target.set(x, y, z);
}
