import { MAX_ENTITIES } from './constants';

/** Per-node shadow flags; both default to 1 (the viewer specification: shadows default to on). */
export const Shadows = {
  cast: new Uint8Array(MAX_ENTITIES),
  receive: new Uint8Array(MAX_ENTITIES),
};
