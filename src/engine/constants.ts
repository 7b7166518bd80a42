/** Camera and renderer constants of the viewer specification (section 9), named once. */
export const CAMERA_FOV = 45;
export const CAMERA_NEAR = 0.1;
export const CAMERA_FAR = 2000;
export const CAMERA_MIN_DISTANCE = 1;
export const CAMERA_MAX_DISTANCE = 5000;
export const CAMERA_MAX_DISTANCE_ORBIT = 300;
export const KEYBOARD_SPEED = 0.005;
/** "Scene background colour is dark blue." */
export const SCENE_BACKGROUND = 0x0d1b2e;
/** Ambient light intensity default (editor specification section 9). */
export const AMBIENT_INTENSITY = 0.5;
/** Directional light intensity default (editor specification section 9, config default). */
export const DIRECTIONAL_INTENSITY = 1;
/** Animation speed: minimum 0.1, default 1. */
export const ANIMATION_SPEED_MIN = 0.1;
export const ANIMATION_SPEED_DEFAULT = 1;
/** Orientation gizmo (editor specification): 110 px square, padding 15, bubble sizes 8 and 6. */
export const ORIENTATION_GIZMO_SIZE = 110;
export const ORIENTATION_GIZMO_PADDING = 15;
export const ORIENTATION_GIZMO_PRIMARY_BUBBLE = 8;
export const ORIENTATION_GIZMO_SECONDARY_BUBBLE = 6;
/** Screenshots (viewer specification sections 2 and 9): the download's name, PNG by default, lossy quality 0.8. */
export const SCREENSHOT_FILE_NAME = 'high-res-screenshot.png';
export const SCREENSHOT_DEFAULT_FORMAT = 'png';
export const SCREENSHOT_DEFAULT_QUALITY = 0.8;
