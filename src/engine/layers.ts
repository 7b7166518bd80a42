/**
 * Layer 15 holds helpers (section plane handles, measurement markers, snap markers, gizmos): the
 * viewport camera sees it, screenshots and picking leave it out (viewer specification section 9).
 */
export { HELPER_LAYER } from '../protocol/constants';
/** The default layer every model object is on. */
export const SCENE_LAYER = 0;
