import { MAX_ENTITIES } from './constants';

/**
 * Tag: a node whose transform is written by an animation track. The animation mixer system copies
 * its animated Object3D transform back into Transform after each mixer update.
 */
export const Animated = {};

/**
 * On a model root entity: whether any of its actions is running (1) or not (0), and how many are.
 * The mixer itself and its actions live in the model record (side map).
 */
export const AnimationState = {
  playing: new Uint8Array(MAX_ENTITIES),
  running: new Uint16Array(MAX_ENTITIES),
};
