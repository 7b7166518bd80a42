import { AnimationState, Transform } from '../components';
import { markTransformDirty } from '../src/engine/hierarchy';
import { setModelMoving } from '../src/engine/moving-casters';
import type { ViewerWorld } from '../src/engine/world';

const { position: P, rotation: R, scale: S } = Transform;

/**
 * Advances the mixer of every playing model by the frame time times the global speed, then copies
 * the animated nodes' Object3D transforms (written by the mixer's property bindings) back into
 * Transform so the transform system propagates them. Morph weights and skinning need no copy.
 */
export function animationMixerSystem(world: ViewerWorld): ViewerWorld {
  const delta = world.time.delta * world.animation.speed;
  for (const record of world.models.values()) {
    const mixer = record.mixer;
    if (!mixer) continue;
    const playing = AnimationState.playing[record.eid] === 1;
    // A playing model's meshes are moving casters; stopped, static again (the maps drawn whole once).
    setModelMoving(world, record.eid, playing);
    if (!playing && !record.syncPose) continue;
    if (playing) mixer.update(delta);
    record.syncPose = false;
    const animated = record.animated;
    const objects = world.objects;
    for (let i = 0; i < animated.length; i++) {
      const e = animated[i];
      const object = objects[e];
      if (!object) continue;
      const p = object.position, q = object.quaternion, s = object.scale;
      const pi = e * 3, ri = e * 4;
      P[pi] = p.x; P[pi + 1] = p.y; P[pi + 2] = p.z;
      R[ri] = q.x; R[ri + 1] = q.y; R[ri + 2] = q.z; R[ri + 3] = q.w;
      S[pi] = s.x; S[pi + 1] = s.y; S[pi + 2] = s.z;
      markTransformDirty(world, e);
    }
    // Morph weights and skins change no transform: the moving casters' shadows are asked for here.
    if (playing) {
      world.render.needsCasterShadows = true;
      world.render.needsPicture = true;
    } else world.render.needsRender = true;
  }
  return world;
}
