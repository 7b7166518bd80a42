import { commitRemovals, registerQuery, type Query } from 'bitecs';
import { ShadowFollow } from '../components';
import { cameraMovedAway, placeFollowingShadow } from '../src/engine/lights';
import type { ViewerWorld } from '../src/engine/world';

const queries = new WeakMap<ViewerWorld, Query>();

/**
 * Keeps the sun's shadow box on the view: a following light is placed again around the camera's
 * target when the camera has moved more than 10 units since its last placement (editor
 * specification section 9) or when its direction or extent changed. Allocates nothing.
 */
export function shadowFollowSystem(world: ViewerWorld): ViewerWorld {
  if (!world.render.camera) return world;
  let q = queries.get(world);
  if (!q) {
    q = registerQuery(world, [ShadowFollow]);
    queries.set(world, q);
  }
  commitRemovals(world);
  const eids = q.dense;
  for (let i = 0; i < eids.length; i++) {
    const eid = eids[i];
    if (ShadowFollow.dirty[eid] === 1 || cameraMovedAway(world, eid)) placeFollowingShadow(world, eid);
  }
  return world;
}
