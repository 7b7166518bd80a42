/**
 * Layer 15 holds helpers (section plane handles, measurement markers, snap markers, gizmos): the
 * viewport camera sees it, screenshots and picking leave it out (viewer specification section 9).
 */
export { HELPER_LAYER } from '../protocol/constants';
/** The default layer every model object is on. */
export const SCENE_LAYER = 0;
/**
 * Layer 13 holds a model's meshes that a batch draws (src/engine/model-batches.ts): cameras do not
 * draw it, picking, snapping, section caps and the selection outline treat it as the model layer.
 */
export const BATCHED_LAYER = 13;
