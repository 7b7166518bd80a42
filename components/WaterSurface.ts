import { MAX_ENTITIES } from './constants';

/** An animated water surface (three.js Water): its waves advance by `speed` per second. */
export const WaterSurface = {
  speed: new Float32Array(MAX_ENTITIES),
};
