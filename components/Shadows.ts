import { MAX_ENTITIES } from './constants';

/**
 * Per-entity shadow flags; both default to 1 (the viewer specification: shadows default to on).
 * The truth for a drawable's castShadow / receiveShadow: written through setShadows
 * (src/engine/object-flags.ts); the sync system applies them.
 */
export const Shadows = {
  cast: new Uint8Array(MAX_ENTITIES),
  receive: new Uint8Array(MAX_ENTITIES),
};
