import { query } from 'bitecs';
import { Avatar, Transform } from '../components';
import { markTransformDirty } from '../src/engine/hierarchy';
import { setVisible } from '../src/engine/object-flags';
import { viewEye } from '../src/engine/view-pose';
import type { ViewerWorld } from '../src/engine/world';
import { AVATAR_CURSOR_SMOOTHING, AVATAR_POSITION_SMOOTHING } from '../src/protocol/meeting-timing';

/**
 * An avatar closer than this (metres) to this viewer's camera is not drawn: people who open a scene
 * start at the same framed view, and an avatar around one's own camera would fill the picture.
 */
export const AVATAR_NEAR_HIDE_DISTANCE = 1.2;
/** Closer than this (metres) to its target, a value snaps to it and the avatar rests. */
const REST = 1e-4;
/** The smoothing factors are per frame at this rate; other frame rates get the same glide in time. */
const REFERENCE_FPS = 60;

/**
 * Moves each avatar towards the pose its person last sent (position and look point: factor 0.025
 * per 1/60 s) and its cursor towards the pointer (0.1), as `1 - (1 - k)^(delta * 60)` so that the
 * glide takes the same time at any frame rate. Writes the root's position and yaw and the head's
 * pitch into Transform before the transform system propagates them. Allocates nothing.
 */
export function avatarSmoothingSystem(world: ViewerWorld): ViewerWorld {
  const avatars = query(world, [Avatar, Transform]);
  if (avatars.length === 0) return world;
  const frames = world.time.delta * REFERENCE_FPS;
  const a = 1 - Math.pow(1 - AVATAR_POSITION_SMOOTHING, frames);
  const c = 1 - Math.pow(1 - AVATAR_CURSOR_SMOOTHING, frames);
  const P = Transform.position;
  const R = Transform.rotation;
  // The eye of the view pose (the camera's position before the navigation wrote one).
  const eye = viewEye(world);
  for (let i = 0; i < avatars.length; i++) {
    const e = avatars[i];
    // Shown when the meeting shows it, once placed, and not around this viewer's camera.
    const o3 = e * 3;
    const near = eye !== null && Math.hypot(P[o3] - eye.x, P[o3 + 1] - eye.y, P[o3 + 2] - eye.z) < AVATAR_NEAR_HIDE_DISTANCE ? 1 : 0;
    Avatar.near[e] = near;
    const visible = Avatar.shown[e] === 1 && Avatar.placed[e] === 1 && near === 0;
    setVisible(world, e, visible);
    if (Avatar.cursor[e] !== 0) setVisible(world, Avatar.cursor[e], Avatar.shown[e] === 1 && Avatar.placed[e] === 1 && Avatar.cursorShown[e] === 1);
    if (Avatar.moving[e] === 0) continue;
    const o = e * 3;
    let still = true;
    for (let k = 0; k < 3; k++) {
      const target = Avatar.targetPosition[o + k];
      const p = P[o + k] + (target - P[o + k]) * a;
      if (Math.abs(target - p) < REST) P[o + k] = target;
      else {
        P[o + k] = p;
        still = false;
      }
      const lookTarget = Avatar.targetLook[o + k];
      const l = Avatar.look[o + k] + (lookTarget - Avatar.look[o + k]) * a;
      if (Math.abs(lookTarget - l) < REST) Avatar.look[o + k] = lookTarget;
      else {
        Avatar.look[o + k] = l;
        still = false;
      }
    }
    // Yaw on the root (the body stays upright), pitch on the head; three.js cameras look down -Z.
    const dx = Avatar.look[o] - P[o];
    const dy = Avatar.look[o + 1] - P[o + 1];
    const dz = Avatar.look[o + 2] - P[o + 2];
    const horizontal = Math.hypot(dx, dz);
    if (horizontal > 1e-6 || Math.abs(dy) > 1e-6) {
      const yaw = Math.atan2(-dx, -dz);
      const r = e * 4;
      R[r] = 0;
      R[r + 1] = Math.sin(yaw / 2);
      R[r + 2] = 0;
      R[r + 3] = Math.cos(yaw / 2);
      const head = Avatar.head[e];
      if (head !== 0) {
        const pitch = Math.atan2(dy, horizontal);
        const h = head * 4;
        R[h] = Math.sin(pitch / 2);
        R[h + 1] = 0;
        R[h + 2] = 0;
        R[h + 3] = Math.cos(pitch / 2);
        markTransformDirty(world, head);
      }
    }
    markTransformDirty(world, e);

    const cursor = Avatar.cursor[e];
    if (cursor !== 0) {
      const q = cursor * 3;
      for (let k = 0; k < 3; k++) {
        const target = Avatar.targetCursor[o + k];
        const p = P[q + k] + (target - P[q + k]) * c;
        if (Math.abs(target - p) < REST) P[q + k] = target;
        else {
          P[q + k] = p;
          still = false;
        }
      }
      markTransformDirty(world, cursor);
    }
    if (still) Avatar.moving[e] = 0;
  }
  return world;
}
