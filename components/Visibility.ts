import { MAX_ENTITIES } from './constants';

/**
 * Per-entity visibility (glTF node `visible`, default 1): the truth for the Object3D's `visible`.
 * Written through setVisible (src/engine/object-flags.ts); the sync system applies it.
 */
export const Visibility = {
  visible: new Uint8Array(MAX_ENTITIES),
};
