import { MAX_ENTITIES } from './constants';

/** Light kinds by how they use shadow maps (a point light renders six, the others one). */
export const LightType = {
  /** Ambient, hemisphere, rect area and probe lights: no shadows. */
  other: 0,
  directional: 1,
  point: 2,
  spot: 3,
} as const;
export type LightType = (typeof LightType)[keyof typeof LightType];

/**
 * A light entity: its kind, whether it should cast shadows (the node's castShadow flag, default
 * on) and whether it has a shadow map now. The shadow budget system decides `shadowOn` (at most
 * 12 shadow maps, a point light counting 6) and keeps `score`, the light's last importance to the
 * view. The three.js light is the entity's object in the registry.
 */
export const Light = {
  type: new Uint8Array(MAX_ENTITIES),
  wantsShadow: new Uint8Array(MAX_ENTITIES),
  shadowOn: new Uint8Array(MAX_ENTITIES),
  score: new Float32Array(MAX_ENTITIES),
};
