import { MAX_ENTITIES } from './constants';

/**
 * A meeting participant's avatar (editor specification: avatars and follow mode). The entity is the
 * avatar's root (its Transform: position and yaw); `head` is a child entity whose Transform carries
 * the pitch; `cursor` is a root entity at the person's pointer. Targets are written by the meeting's
 * handleTransformUpdate (through the message system); the avatar smoothing system moves the current
 * values towards them (position 0.025, cursor 0.1 per 1/60 s, frame-rate independent).
 */
export const Avatar = {
  /** Where the person's camera is (target of the smoothing), xyz. */
  targetPosition: new Float32Array(MAX_ENTITIES * 3),
  /** The point the person's camera looks at (target), xyz. */
  targetLook: new Float32Array(MAX_ENTITIES * 3),
  /** The smoothed look point, xyz. */
  look: new Float32Array(MAX_ENTITIES * 3),
  /** The head's entity (child of the avatar). */
  head: new Uint32Array(MAX_ENTITIES),
  /** The cursor's entity (0 for none). */
  cursor: new Uint32Array(MAX_ENTITIES),
  /** Where the pointer is (target of the cursor smoothing), xyz. */
  targetCursor: new Float32Array(MAX_ENTITIES * 3),
  /** 1 while the avatar or its cursor is still moving towards its target. */
  moving: new Uint8Array(MAX_ENTITIES),
  /** 1 once the first update placed it (the first is a jump, not a glide from the origin). */
  placed: new Uint8Array(MAX_ENTITIES),
  /** 1 when the meeting shows it (avatars enabled, nobody followed, the person does not follow). */
  shown: new Uint8Array(MAX_ENTITIES),
  /** 1 when its pointer cursor is shown (the person points at the model). */
  cursorShown: new Uint8Array(MAX_ENTITIES),
  /** 1 while it is too close to this viewer's camera to be drawn (it would fill the view). */
  near: new Uint8Array(MAX_ENTITIES),
};
