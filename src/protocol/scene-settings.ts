import { z } from 'zod';
import { AMBIENT_INTENSITY, CAMERA_FOV, DIRECTIONAL_INTENSITY } from './constants';
import { EnvironmentEntry } from './environment';

/**
 * Scene settings: a scene's `viewerConfig.scene` (editor specification section 3, "Scene
 * settings"), with the specification's field names. Every field is optional: settings apply only
 * for the fields present (section 5). The constants of section 9 that belong to them are named
 * here once; src/viewer/scene-settings.ts applies them.
 */

// ----- Section 9 constants -----

/** Directional (sun) shadow map: 4192 x 4192 (clamped to the GPU's maximum texture size). */
export const SHADOW_MAP_SIZE = 4192;
/** Shadow camera half-extent of the viewer before any settings ("150 default"). */
export const SHADOW_CAMERA_HALF_EXTENT = 150;
/** Shadow camera half-extent of a new scene's settings ("config default 50"). */
export const SHADOW_CAMERA_SCALE_DEFAULT = 50;
export const SHADOW_BIAS_DEFAULT = -0.001;
/** The sun's shadow camera is moved when the camera has moved more than this (world units). */
export const SHADOW_CAMERA_FOLLOW_DISTANCE = 10;
/** Water plane 10000 x 10000, reflection texture 512 x 512. */
export const WATER_PLANE_SIZE = 10000;
export const WATER_TEXTURE_SIZE = 512;
export const WATER_DISTORTION_SCALE_DEFAULT = 3.7;
export const WATER_SIZE_DEFAULT = 1;
export const WATER_Y_OFFSET_DEFAULT = -5;
export const WATER_WAVE_SPEED_DEFAULT = 1;
export const WATER_COLOR_DEFAULT = '001e0f';
/** The water's normal map (our build generates it: scripts/generate-assets.ts). */
export const WATER_NORMALS_URL = '/textures/waternormals.jpg';
/** Shadow plane 2000 x 2000, opacity 0.2. */
export const SHADOW_PLANE_SIZE = 2000;
export const SHADOW_PLANE_OPACITY_DEFAULT = 0.2;
export const BACKGROUND_COLOR_DEFAULT = 'ececec';

// ----- Field types -----

/**
 * A colour as 'rrggbb' (lowercase, no '#'), the form the specification's defaults take. Accepted:
 * 'rrggbb', '#rrggbb', '#rgb', 'rgb' in any case, or a number 0x000000..0xffffff.
 */
export const HexColor = z.union([z.string(), z.number().int().min(0).max(0xffffff)]).transform((value, ctx) => {
  if (typeof value === 'number') return value.toString(16).padStart(6, '0');
  const m = /^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/.exec(value.trim());
  if (!m) {
    ctx.addIssue({ code: 'custom', message: `'${value}' is not a colour: expected rrggbb or #rrggbb` });
    return z.NEVER;
  }
  const hex = m[1].toLowerCase();
  return hex.length === 3 ? hex[0] + hex[0] + hex[1] + hex[1] + hex[2] + hex[2] : hex;
});

/** A point as {x, y, z}; [x, y, z] is accepted too. */
export const Vec3 = z
  .union([z.object({ x: z.number(), y: z.number(), z: z.number() }), z.tuple([z.number(), z.number(), z.number()])])
  .transform((v) => (Array.isArray(v) ? { x: v[0], y: v[1], z: v[2] } : { x: v.x, y: v.y, z: v.z }));
export type Vec3 = z.output<typeof Vec3>;

export const BackgroundType = z.enum(['color', 'gradient', 'environment', 'transparent']);
export type BackgroundType = z.infer<typeof BackgroundType>;

/** three.js tone mappings by name; the numeric three.js constants are accepted and named. */
export const TONE_MAPPINGS = ['none', 'linear', 'reinhard', 'cineon', 'aces', 'agx', 'neutral'] as const;
export type ToneMappingName = (typeof TONE_MAPPINGS)[number];
/** three.js constant -> name (NoToneMapping 0 ... NeutralToneMapping 7; 5 is CustomToneMapping). */
const TONE_MAPPING_BY_CONSTANT: Record<number, ToneMappingName> = { 0: 'none', 1: 'linear', 2: 'reinhard', 3: 'cineon', 4: 'aces', 6: 'agx', 7: 'neutral' };
export const ToneMapping = z.union([z.enum(TONE_MAPPINGS), z.number().int()]).transform((value, ctx) => {
  if (typeof value === 'string') return value;
  const name = TONE_MAPPING_BY_CONSTANT[value];
  if (!name) {
    ctx.addIssue({ code: 'custom', message: `${value} is not a tone mapping` });
    return z.NEVER;
  }
  return name;
});

/**
 * The environment: an entry id of the catalog (or a path below /assets/environments/), a whole
 * catalog entry, or null for none.
 */
export const EnvironmentRef = z.union([z.string().min(1), EnvironmentEntry]).nullable();
export type EnvironmentRef = z.output<typeof EnvironmentRef>;

const finite = () => z.number().finite();

/** Every field, required: the shape of a complete settings state (what readSceneSettings gives). */
export const SceneSettingsValues = z.object({
  /** Degrees clockwise from +Z towards +X, seen from above (0 = the sun in +Z, 90 = in +X). */
  sunAzimuth: finite(),
  /** Degrees above the horizon. */
  sunElevation: finite().min(-90).max(90),
  sunColor: HexColor,
  directionalLightIntensity: finite().min(0),
  directionalLightShadowCameraBias: finite(),
  /** Half-extent of the sun's orthographic shadow camera (world units). */
  directionalLightShadowCameraScale: finite().positive(),
  ambientLightIntensity: finite().min(0),
  backgroundType: BackgroundType,
  /** The colour of 'color'; the first (top at rotation 0) colour of 'gradient'. */
  backgroundColor1: HexColor,
  backgroundColor2: HexColor,
  /** Gradient direction in degrees, clockwise; 0 runs from colour 1 at the top to colour 2 at the bottom. */
  backgroundRotation: finite(),
  /** 0 (sharp) to 1 (fully blurred): the environment background. */
  backgroundBlurriness: finite().min(0).max(1),
  environment: EnvironmentRef,
  toneMapping: ToneMapping,
  /** Exposure as a power of two: the renderer's exposure is 2^value. */
  toneMappingExposure: finite(),
  perspectiveCameraFov: finite().gt(0).lt(180),
  /** null: the camera frames the models. */
  initialCameraPosition: Vec3.nullable(),
  initialCameraTarget: Vec3.nullable(),
  fogEnabled: z.boolean(),
  /** FogExp2 density. */
  fogDensity: finite().min(0),
  fogColor: HexColor,
  waterEnabled: z.boolean(),
  waterColor: HexColor,
  waterDistortionScale: finite(),
  waterSize: finite(),
  waterYOffset: finite(),
  waterWaveSpeed: finite(),
  shadowPlaneEnabled: z.boolean(),
  shadowPlaneY: finite(),
  shadowPlaneOpacity: finite().min(0).max(1),
});
export type SceneSettingsValues = z.output<typeof SceneSettingsValues>;

/** viewerConfig.scene: any subset of the fields; unknown fields are dropped. */
export const SceneSettings = SceneSettingsValues.partial();
/** Parsed settings (colours normalised to 'rrggbb', points to {x, y, z}, tone mappings named). */
export type SceneSettings = z.output<typeof SceneSettings>;
/** Settings as they may be written (before normalisation). */
export type SceneSettingsInput = z.input<typeof SceneSettings>;

/**
 * The defaults of a new scene's settings: the specification's where it gives one, otherwise ours
 * (marked). The viewer starts from its own renderer state (src/engine/renderer.ts) and changes
 * only what a scene's settings name.
 */
export const SCENE_SETTINGS_DEFAULTS: SceneSettingsValues = {
  sunAzimuth: 37, // ours: the sun the viewer had before settings (upper right, behind the viewer)
  sunElevation: 50, // ours
  sunColor: 'ffffff', // ours
  directionalLightIntensity: DIRECTIONAL_INTENSITY,
  directionalLightShadowCameraBias: SHADOW_BIAS_DEFAULT,
  directionalLightShadowCameraScale: SHADOW_CAMERA_SCALE_DEFAULT,
  ambientLightIntensity: AMBIENT_INTENSITY,
  backgroundType: 'color',
  backgroundColor1: BACKGROUND_COLOR_DEFAULT,
  backgroundColor2: 'ffffff', // ours
  backgroundRotation: 0, // ours
  backgroundBlurriness: 0, // ours
  environment: null,
  toneMapping: 'aces', // the renderer's (ACES filmic)
  toneMappingExposure: 0, // 2^0 = 1
  perspectiveCameraFov: CAMERA_FOV,
  initialCameraPosition: null,
  initialCameraTarget: null,
  fogEnabled: false, // ours
  fogDensity: 0.002, // ours
  fogColor: BACKGROUND_COLOR_DEFAULT, // ours: the background's
  waterEnabled: false, // ours
  waterColor: WATER_COLOR_DEFAULT,
  waterDistortionScale: WATER_DISTORTION_SCALE_DEFAULT,
  waterSize: WATER_SIZE_DEFAULT,
  waterYOffset: WATER_Y_OFFSET_DEFAULT,
  waterWaveSpeed: WATER_WAVE_SPEED_DEFAULT,
  shadowPlaneEnabled: false, // ours
  shadowPlaneY: 0, // ours
  shadowPlaneOpacity: SHADOW_PLANE_OPACITY_DEFAULT,
};

/** The direction towards the sun (unit vector) for an azimuth and elevation in degrees. */
export function sunDirection(azimuthDeg: number, elevationDeg: number): { x: number; y: number; z: number } {
  const a = (azimuthDeg * Math.PI) / 180;
  const e = (elevationDeg * Math.PI) / 180;
  return { x: Math.cos(e) * Math.sin(a), y: Math.sin(e), z: Math.cos(e) * Math.cos(a) };
}
