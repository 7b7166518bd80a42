import { MAX_ENTITIES } from './constants';

/**
 * A directional light whose orthographic shadow camera follows the view (the sun): a box of
 * half-extent `halfExtent` around the camera's target, lit from `direction` (unit vector towards
 * the light). It is placed again when the camera has moved more than the follow distance since
 * `anchor` (the camera position at the last placement), or when `dirty` is 1.
 */
export const ShadowFollow = {
  direction: new Float32Array(MAX_ENTITIES * 3),
  halfExtent: new Float32Array(MAX_ENTITIES),
  anchor: new Float32Array(MAX_ENTITIES * 3),
  dirty: new Uint8Array(MAX_ENTITIES),
};
