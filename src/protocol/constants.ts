/**
 * The business constants of both specifications (viewer-and-meetings section 9, editor-and-host-api
 * section 9), named once. Browser, server and systems import them from here; nothing else repeats
 * the literals. Constants that only describe a wire format live beside its schema (scene settings in
 * scene-settings.ts, render config in render-config.ts, containers in container-header.ts).
 */

// Camera and renderer (viewer specification section 9).
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

/** "Vertex picking snaps to the nearest vertex within 0.25" (viewer specification section 5). */
export const SNAP_RADIUS = 0.25;
/** "When restricted to a plane, only points within 0.001 of the plane are accepted." */
export const SNAP_PLANE_TOLERANCE = 0.001;
/** Section planes (viewer specification section 9): default size 5, yellow at 0.2 opacity, vertical snap tolerance 0.7. */
export const SECTION_PLANE_SIZE = 5;
export const SECTION_PLANE_COLOR = 0xffd400;
export const SECTION_PLANE_OPACITY = 0.2;
export const SECTION_SNAP_TOLERANCE = 0.7;
/** Performance tiers (viewer specification section 9): total >= 80 is high, >= 50 medium. */
export const HIGH_TIER_SCORE = 80;
export const MEDIUM_TIER_SCORE = 50;
/** Pixel ratio per tier: 1 for low, 1.5 for medium, min(device ratio, 2) for high. */
export const LOW_PIXEL_RATIO = 1;
/**
 * The low tier's largest texture side (QualitySettings.textureLimit); the loader worker also decodes
 * at it while a detected tier is still unknown (src/scene/model-images.ts).
 */
export const LOW_TEXTURE_LIMIT = 1024;
export const MEDIUM_PIXEL_RATIO = 1.5;
export const MAX_PIXEL_RATIO = 2;
/** Visibility layer 15: helpers drawn on screen, never in pictures or picks. */
export const HELPER_LAYER = 15;
/** Reconnect delay 2.5 s; state request and ping every 5 s (viewer specification section 9). */
export const RECONNECT_DELAY_MS = 2500;
export const STATE_REQUEST_INTERVAL_MS = 5000;
export const PING_INTERVAL_MS = 5000;

// Editor specification section 9.
/** Consecutive updatable commands on the same object, type and attribute merge when closer than this. */
export const UNDO_MERGE_WINDOW_MS = 500;
/** Avatar updates: at most every 50 ms, only after a move of more than 0.1, forced every 5000 ms. */
export const AVATAR_UPDATE_INTERVAL_MS = 50;
export const AVATAR_FORCED_UPDATE_MS = 5000;
export const AVATAR_POSITION_THRESHOLD = 0.1;
/** Avatar smoothing factors: position 0.025, cursor 0.1. */
export const AVATAR_POSITION_SMOOTHING = 0.025;
export const AVATAR_CURSOR_SMOOTHING = 0.1;
/** At most 12 active shadow maps; a point light counts as 6, any other light as 1. */
export const MAX_SHADOW_MAPS = 12;
export const POINT_LIGHT_SHADOW_COST = 6;
/** Instanced asset groups: removals are compacted after 100 marked removals. */
export const INSTANCE_COMPACTION_THRESHOLD = 100;
/** Default spot light: intensity 25, angle 0.5, penumbra 0.1, decay 2. */
export const SPOT_LIGHT_DEFAULTS = { intensity: 25, angle: 0.5, penumbra: 0.1, decay: 2 } as const;
/** Default perspective camera of a scene object: fov 45, near 0.1, far 2000. */
export const PERSPECTIVE_CAMERA_DEFAULTS = { fov: 45, near: 0.1, far: 2000 } as const;
/** The comment tool's cursor. */
export const COMMENT_CURSOR_URL = '/assets/images/comment-cursor-4.png';
