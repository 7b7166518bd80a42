import { query } from 'bitecs';
import { SectionPlane, Transform } from '../components';
import type { ViewerWorld } from '../src/engine/world';

/**
 * Derives each section plane's normal and constant from its Transform's world matrix (the rotation
 * turns +Z onto the normal; the position lies on the plane) when that matrix changed, and flags the
 * plane for the section tool (clipping planes, square, caps). Runs after the transform system.
 */
export function sectionPlaneSystem(world: ViewerWorld): ViewerWorld {
  const planes = query(world, [SectionPlane, Transform]);
  const W = Transform.world;
  for (let i = 0; i < planes.length; i++) {
    const eid = planes[i];
    if (Transform.worldChanged[eid] === 0) continue;
    const m = eid * 16;
    // The world Z axis (third column), normalised: the plane's normal.
    let nx = W[m + 8];
    let ny = W[m + 9];
    let nz = W[m + 10];
    const length = Math.hypot(nx, ny, nz);
    if (length === 0) continue;
    nx /= length;
    ny /= length;
    nz /= length;
    const o = eid * 3;
    SectionPlane.normal[o] = nx;
    SectionPlane.normal[o + 1] = ny;
    SectionPlane.normal[o + 2] = nz;
    SectionPlane.constant[eid] = -(nx * W[m + 12] + ny * W[m + 13] + nz * W[m + 14]);
    SectionPlane.changed[eid] = 1;
    world.render.needsRender = true;
  }
  return world;
}
