import { hasComponent } from 'bitecs';
import type { Mesh } from 'three';
import { Renderable, Shadows, Visibility } from '../../components';
import type { ViewerWorld } from './world';

/**
 * Visibility and Shadows are the truth for an entity's `visible`, `castShadow` and
 * `receiveShadow`: writers go through setVisible / setShadows, which flag the entity; the sync
 * system (systems/syncSystem.ts) applies flagged entities to their Object3Ds once per frame, before
 * the picture. Shadow flags apply to drawables (Renderable); a light's own castShadow belongs to
 * the shadow budget system.
 */

export function setVisible(world: ViewerWorld, eid: number, visible: boolean): void {
  const v = visible ? 1 : 0;
  if (Visibility.visible[eid] === v && hasComponent(world, eid, Visibility)) return;
  Visibility.visible[eid] = v;
  flagObject(world, eid);
}

/** Changes the shadow flags given (an undefined one stays). */
export function setShadows(world: ViewerWorld, eid: number, cast: boolean | undefined, receive: boolean | undefined): void {
  if (cast !== undefined) Shadows.cast[eid] = cast ? 1 : 0;
  if (receive !== undefined) Shadows.receive[eid] = receive ? 1 : 0;
  flagObject(world, eid);
}

/** Flags an entity for the sync system (spawn code calls it after writing the components). */
export function flagObject(world: ViewerWorld, eid: number): void {
  const f = world.flags;
  if (f.flagged[eid]) return;
  if (f.count === f.dirty.length) {
    const grown = new Uint32Array(f.dirty.length * 2);
    grown.set(f.dirty);
    f.dirty = grown;
  }
  f.dirty[f.count++] = eid;
  f.flagged[eid] = 1;
}

/** Applies the flagged entities' Visibility and Shadows to their Object3Ds; returns how many changed. */
export function syncObjectFlags(world: ViewerWorld): number {
  const f = world.flags;
  const n = f.count;
  if (n === 0) return 0;
  const objects = world.objects;
  for (let i = 0; i < n; i++) {
    const eid = f.dirty[i];
    f.flagged[eid] = 0;
    const object = objects[eid];
    if (!object) continue;
    if (hasComponent(world, eid, Visibility)) object.visible = Visibility.visible[eid] === 1;
    if (hasComponent(world, eid, Shadows) && hasComponent(world, eid, Renderable)) {
      (object as Mesh).castShadow = Shadows.cast[eid] === 1;
      (object as Mesh).receiveShadow = Shadows.receive[eid] === 1;
    }
  }
  f.count = 0;
  world.render.needsRender = true;
  return n;
}
