import type { Object3D } from 'three';
import type { ViewerWorld } from './world';

/**
 * The one eid <-> Object3D registry: `world.objects[eid]` and `object.userData.eid`. Only spawn and
 * dispose code calls bindObject and unbindObject.
 */
export function bindObject(world: ViewerWorld, eid: number, object: Object3D): void {
  if (eid === 0) throw new Error('Entity 0 means "none" and cannot own an object.');
  const existing = world.objects[eid];
  if (existing && existing !== object) {
    throw new Error(`Entity ${eid} is already bound to another object ("${existing.name}").`);
  }
  // One object, one entity. A clone carries its original's userData.eid, so only a live binding counts.
  const owner = object.userData.eid;
  if (typeof owner === 'number' && owner !== eid && world.objects[owner] === object) {
    throw new Error(`Object "${object.name}" is already bound to entity ${owner}.`);
  }
  world.objects[eid] = object;
  object.userData.eid = eid;
}

export function unbindObject(world: ViewerWorld, eid: number): Object3D | undefined {
  const object = world.objects[eid];
  if (object) {
    world.objects[eid] = undefined;
    if (object.userData.eid === eid) delete object.userData.eid;
  }
  return object;
}

export function getObject(world: ViewerWorld, eid: number): Object3D | undefined {
  return world.objects[eid];
}

/** The entity of an object, or 0 for an object the registry does not know. */
export function getEid(object: Object3D): number {
  const eid = object.userData.eid;
  return typeof eid === 'number' ? eid : 0;
}

/** The nearest ancestor (or the object itself) that is an entity, or 0. */
export function findEntityOf(object: Object3D | null): number {
  for (let o = object; o; o = o.parent) {
    const eid = getEid(o);
    if (eid) return eid;
  }
  return 0;
}
