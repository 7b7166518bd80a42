import { commitRemovals, registerQuery, type Query } from 'bitecs';
import type { ShaderMaterial } from 'three';
import { WaterSurface } from '../components';
import type { ViewerWorld } from '../src/engine/world';

const queries = new WeakMap<ViewerWorld, Query>();

/**
 * Advances the waves of every water surface by the frame time times its wave speed (three.js
 * Water's `time` uniform) and asks for a picture while water is shown (the waves cast no shadow:
 * `needsPicture`, the shadow maps are kept). Allocates nothing.
 */
export function waterSystem(world: ViewerWorld): ViewerWorld {
  let q = queries.get(world);
  if (!q) {
    q = registerQuery(world, [WaterSurface]);
    queries.set(world, q);
  }
  commitRemovals(world);
  const eids = q.dense;
  const delta = world.time.delta;
  for (let i = 0; i < eids.length; i++) {
    const eid = eids[i];
    const water = world.objects[eid];
    if (!water || !water.visible) continue;
    const time = (water as unknown as { material: ShaderMaterial }).material.uniforms.time;
    if (time) time.value += delta * WaterSurface.speed[eid];
    world.render.needsPicture = true;
  }
  return world;
}
