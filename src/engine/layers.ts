/**
 * Layer 15 holds helpers (section plane handles, measurement markers, snap markers, gizmos): the
 * viewport camera sees it, screenshots and picking leave it out (viewer specification section 9).
 */
export const HELPER_LAYER = 15;
/** The default layer every model object is on. */
export const SCENE_LAYER = 0;
