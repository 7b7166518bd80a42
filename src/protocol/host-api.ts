import { z } from 'zod';
import { RenderConfig, RenderConfigChange } from './render-config.ts';
import { MaterialProperties } from './mutation.ts';
import { SceneSettings, SceneSettingsValues } from './scene-settings.ts';

/**
 * The host-page API (editor specification sections 6-7, DESIGN.md 4.3): the window messages a page
 * that embeds the viewer exchanges with it, and one schema per function. These schemas are the one
 * source of the viewer's validation (src/api/host-api.ts), the typed client's types
 * (src/api/client.ts) and the API reference (docs/host-api.md, scripts/host-api-docs.ts).
 */

/** The API's version, reported by api.init.result. */
export const HOST_API_VERSION = '1.0.0';
/** Longest requestId, func name and instanceId accepted. */
export const MAX_ID_LENGTH = 100;
/** Longest name, title or text argument. */
export const MAX_TEXT_LENGTH = 10_000;
/** Most registered hotspots (3D points whose screen positions are sent as the camera moves). */
export const MAX_HOTSPOTS = 1000;
/** Largest renderOffscreenFrame / screenshot side, in pixels. */
export const MAX_FRAME_SIDE = 8192;
/** Longest bearer token a host page may hand over (as the meeting's AUTH_REQUEST). */
export const MAX_TOKEN_LENGTH = 16_000;
/** Most points of one measurement (an area's outline); a comment's view and a meeting keep as many. */
export const MAX_MEASUREMENT_POINTS = 256;
/**
 * Most measurements and section planes there may be when the API makes one: each is entities and
 * GPU objects, and each plane clips every shader, so a host page cannot grow them without bound.
 */
export const MAX_MEASUREMENTS = 1000;
export const MAX_SECTION_PLANES = 64;
/** Most textures addTexture keeps at once (removeTexture frees one). */
export const MAX_ADDED_TEXTURES = 100;
/**
 * How far an area's point may be off the plane of its first three points: this fraction of the
 * outline's size (its bounding box's diagonal). The measurement is drawn and computed on that plane.
 */
export const AREA_PLANE_TOLERANCE = 1e-3;

// ---- the scene's allowlist (src/protocol/host-origins.ts: the scene document's schema uses it,
// and it must not bring these schemas into the embed's first download)

export { accessFor, HostOrigin, HostOrigins, MAX_HOST_ORIGINS, normalizeHostOrigins, type Access } from './host-origins.ts';

// ---- the envelope ------------------------------------------------------------------------------

export const RequestId = z.union([
  z.string().min(1).max(MAX_ID_LENGTH),
  z.number().int().refine(Number.isSafeInteger),
]);
export type RequestId = z.infer<typeof RequestId>;

export const InstanceId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'instanceId must be 1-100 characters of A-Z a-z 0-9 _ -' });

export const ApiInitMessage = z.object({ type: z.literal('api.init'), instanceId: InstanceId.optional() });
export const ApiRequestMessage = z.object({
  type: z.literal('api.request'),
  requestId: RequestId,
  func: z.string().max(MAX_ID_LENGTH),
  arguments: z.unknown().optional(),
  instanceId: InstanceId.optional(),
});
export type ApiRequestMessage = z.infer<typeof ApiRequestMessage>;

export interface ApiInitResult {
  type: 'api.init.result';
  instanceId: string;
  version: string;
  /** The names of every function; empty with `error` when this page may not use the API. */
  functions: string[];
  /** The functions that only read (callable under the open default). */
  readOnly: string[];
  /** Whether this page may call functions that change the scene. */
  mayChange: boolean;
  /** Whether the scene is shown (viewerready was sent): functions answer from now on. */
  ready: boolean;
  error?: string;
}
export type ApiResponse = { type: 'api.response'; instanceId: string; requestId: RequestId | null; response: unknown } | { type: 'api.response'; instanceId: string; requestId: RequestId | null; error: string };
export interface ApiEventMessage {
  type: 'api.event';
  instanceId: string;
  event: string;
  data: unknown;
}
export interface LifecycleMessage {
  type: 'viewerinit' | 'viewerready';
  instanceId: string;
  sceneId: string;
}
export type ViewerToHostMessage = ApiInitResult | ApiResponse | ApiEventMessage | LifecycleMessage;

// ---- argument pieces ---------------------------------------------------------------------------

const finite = (name: string) => z.number({ error: `${name} must be a number` }).refine(Number.isFinite, { error: `${name} must be a finite number` });
const positive = (name: string) => finite(name).refine((v) => v > 0, { error: `${name} must be greater than 0` });
const id = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} undefined.` : `${name} must be a string`) })
    .min(1, { error: `${name} must not be empty` })
    .max(256, { error: `${name} must be at most 256 characters` });
const text = (name: string) => z.string({ error: `${name} must be a string` }).max(MAX_TEXT_LENGTH, { error: `${name} must be at most ${MAX_TEXT_LENGTH} characters` });
const bool = (name: string) => z.boolean({ error: `${name} must be true or false` });
/** [x, y, z] */
const vec3 = (name: string) => z.tuple([finite(`${name}[0]`), finite(`${name}[1]`), finite(`${name}[2]`)], { error: `${name} must be [x, y, z]` });
const side = (name: string) =>
  z
    .number({ error: `${name} must be a number of pixels` })
    .int({ error: `${name} must be a whole number of pixels` })
    .min(1, { error: `${name} must be at least 1` })
    .max(MAX_FRAME_SIDE, { error: `${name} must be at most ${MAX_FRAME_SIDE}` });

/** A value of the page's as an error message quotes it: at most 60 characters. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

const args = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument ${issue.keys
            .slice(0, 5)
            .map((k) => `'${clip(k)}'`)
            .join(', ')}${issue.keys.length > 5 ? ` (and ${issue.keys.length - 5} more)` : ''}`
        : 'the arguments must be an object { name: value }',
  });
const none = args({});

const Vec3Out = z.tuple([z.number(), z.number(), z.number()]);
const Ok = z.object({ ok: z.literal(true) });

export const MEASUREMENT_KINDS = ['length', 'area', 'angle'] as const;
export const NAVIGATION_MODE_NAMES = ['Orbit', 'FirstPerson', 'Plan'] as const;
export const PROJECTION_NAMES = ['Perspective', 'Orthographic'] as const;
export const TOOL_NAMES = ['section-tool', 'length-measure-tool', 'area-measure-tool', 'angle-measure-tool'] as const;
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;
export const QUALITY_NAMES = ['low', 'medium', 'high', 'auto'] as const;

const nodeRef = { modelId: id('modelId'), nodeId: id('nodeId') };

// ---- results -----------------------------------------------------------------------------------

export const ModelInfo = z.object({
  modelId: z.string(),
  name: z.string(),
  visible: z.boolean(),
  nodes: z.number(),
  meshes: z.number(),
  materials: z.number(),
  textures: z.number(),
  animations: z.number(),
});
export const CameraState = z.object({
  position: Vec3Out,
  target: Vec3Out,
  /** Vertical field of view in degrees (perspective). */
  fov: z.number(),
  near: z.number(),
  far: z.number(),
  projection: z.enum(PROJECTION_NAMES),
  mode: z.enum(NAVIGATION_MODE_NAMES),
  controls: z.enum(['simple', 'editor']),
});
export const NodeInfo = z.object({
  modelId: z.string(),
  nodeId: z.string(),
  name: z.string(),
  /** three.js type: Mesh, Group, Object3D, ... */
  type: z.string(),
  visible: z.boolean(),
  /** Local translation, rotation (XYZ Euler angles in degrees) and scale, as the ECS holds them. */
  translation: Vec3Out,
  rotation: Vec3Out,
  scale: Vec3Out,
  /** The nodeId of the parent node, null at the model's root. */
  parentId: z.string().nullable(),
  children: z.array(z.string()),
});
export interface NodeTreeEntry {
  nodeId: string;
  name: string;
  type: string;
  children: NodeTreeEntry[];
}
export const NodeTreeEntry: z.ZodType<NodeTreeEntry> = z.lazy(() =>
  z.object({ nodeId: z.string(), name: z.string(), type: z.string(), children: z.array(NodeTreeEntry) }).meta({ id: 'NodeTreeEntry' }),
);
export const MaterialSummary = z.object({ modelId: z.string(), materialId: z.string(), name: z.string(), type: z.string() });
export const MaterialInfo = MaterialSummary.extend({
  color: z.string().nullable(),
  opacity: z.number(),
  transparent: z.boolean(),
  metalness: z.number().nullable(),
  roughness: z.number().nullable(),
  emissive: z.string().nullable(),
  emissiveIntensity: z.number().nullable(),
  /** Texture maps present: property name -> textureId (null when the texture has no id). */
  maps: z.record(z.string(), z.string().nullable()),
});
export const Hit = z.object({
  position: Vec3Out,
  normal: Vec3Out,
  distance: z.number(),
  modelId: z.string().nullable(),
  nodeId: z.string().nullable(),
  nodeName: z.string(),
  materialId: z.string().nullable(),
  material: z.string(),
  instanceId: z.number().nullable(),
});
export const ScreenPoint = z.object({
  /** CSS pixels from the viewer's top left. */
  x: z.number(),
  y: z.number(),
  /** In front of the camera and inside the viewer. */
  visible: z.boolean(),
});
export const Image = z.object({ width: z.number(), height: z.number(), mimeType: z.string(), dataUrl: z.string() });
export const AnnotationInfo = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  position: Vec3Out,
  /** Camera eye and target for gotoAnnotation. */
  eye: Vec3Out,
  target: Vec3Out,
});
export type AnnotationInfo = z.infer<typeof AnnotationInfo>;
export const AuthInfo = z.object({
  /** Whether the viewer now saves as the person of the host's token. */
  signedIn: z.boolean(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  /** When the token expires (milliseconds since 1970, its `exp`), null without one. */
  expiresAt: z.number().nullable(),
});
export type AuthInfo = z.infer<typeof AuthInfo>;
export const AnimationInfo = z.object({
  modelId: z.string(),
  id: z.string(),
  name: z.string(),
  duration: z.number(),
  status: z.enum(['playing', 'paused', 'finished', 'stopped']),
  time: z.number(),
  loop: z.boolean(),
});
export const MeasurementInfo = z.object({
  id: z.number(),
  kind: z.enum(MEASUREMENT_KINDS),
  value: z.number(),
  label: z.string(),
  points: z.array(Vec3Out),
});
/** A section plane: the part of the scene where normal . p + constant >= 0 stays (the normal points to it). */
export const SectionInfo = z.object({ id: z.number(), normal: Vec3Out, constant: z.number() });
export const TextureInfo = z.object({
  textureId: z.string(),
  /** The model whose texture it is; null for a texture of addTexture (usable in every model's materials). */
  modelId: z.string().nullable(),
  name: z.string(),
  /** 'model': the model's own; 'uploaded': an uploaded texture a saved edit uses; 'added': addTexture's. */
  source: z.enum(['model', 'uploaded', 'added']),
  /** The image's URL (addTexture's and updateTexture's), null for the model's own images. */
  url: z.string().nullable(),
  /** The image's size in pixels (null while it has none). */
  width: z.number().nullable(),
  height: z.number().nullable(),
  /** The material maps that sample it. */
  usedBy: z.array(z.object({ modelId: z.string(), materialId: z.string(), map: z.string() })),
});
export type TextureInfo = z.infer<typeof TextureInfo>;
export const QualityInfo = z.object({ tier: z.enum(['low', 'medium', 'high']), forced: z.boolean(), postprocessing: z.boolean() });

const imageArgs = {
  width: side('width').optional(),
  height: side('height').optional(),
  format: z.enum(IMAGE_FORMATS, { error: `format must be one of ${IMAGE_FORMATS.join(', ')}` }).optional(),
  quality: finite('quality')
    .refine((v) => v >= 0 && v <= 1, { error: 'quality must be between 0 and 1' })
    .optional(),
};

type Point = readonly [number, number, number] | readonly number[];

/**
 * Why `points` cannot make a `kind` measurement (null when they can): a length is 2 different
 * points; an angle 3 with its vertex in the middle, apart from both ends; an area 3 or more on one
 * plane (the first three, not in a line, give it; every point within AREA_PLANE_TOLERANCE of it).
 * `index` is the point at fault (null: the list).
 */
export function measurementProblem(kind: (typeof MEASUREMENT_KINDS)[number], points: readonly Point[]): { index: number | null; message: string } | null {
  const needed = kind === 'length' ? 2 : 3;
  if (points.length < needed || (kind !== 'area' && points.length !== needed)) {
    return { index: null, message: `a ${kind} measurement needs ${kind === 'area' ? 'at least 3' : needed} points, got ${points.length}` };
  }
  const same = (a: Point, b: Point) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
  if (kind === 'length') return same(points[0], points[1]) ? { index: 1, message: 'the two points of a length must differ' } : null;
  if (kind === 'angle') {
    if (same(points[1], points[0])) return { index: 1, message: "an angle's vertex (its middle point) must differ from its first point" };
    if (same(points[1], points[2])) return { index: 1, message: "an angle's vertex (its middle point) must differ from its last point" };
    return null;
  }
  const [a, b, c] = points;
  const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const p of points) {
    for (let i = 0; i < 3; i++) {
      min[i] = Math.min(min[i], p[i]);
      max[i] = Math.max(max[i], p[i]);
    }
  }
  const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const length = Math.hypot(n[0], n[1], n[2]);
  if (!(length > 1e-12 * size * size) || !Number.isFinite(length)) return { index: 2, message: "an area's first three points must not lie on one line (they give its plane)" };
  const tolerance = AREA_PLANE_TOLERANCE * size;
  for (let i = 3; i < points.length; i++) {
    const p = points[i];
    const off = Math.abs((n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / length);
    if (off > tolerance) return { index: i, message: `point ${i} is ${off.toPrecision(3)} off the plane of the first three points: an area's points must lie on one plane` };
  }
  return null;
}

const measurementId = z
  .number({ error: 'id must be a measurement id (a number listMeasurements gives)' })
  .int({ error: 'id must be a measurement id (a whole number listMeasurements gives)' })
  .positive({ error: 'id must be a measurement id (a positive number listMeasurements gives)' });
const sectionId = z
  .number({ error: 'id must be a section plane id (a number listSectionPlanes gives)' })
  .int({ error: 'id must be a section plane id (a whole number listSectionPlanes gives)' })
  .positive({ error: 'id must be a section plane id (a positive number listSectionPlanes gives)' });
const measurementPoints = z
  .array(vec3('point'), { error: 'points must be a list of [x, y, z]' })
  .max(MAX_MEASUREMENT_POINTS, { error: `points: at most ${MAX_MEASUREMENT_POINTS}` });
const planeNormal = vec3('normal').refine((n) => n[0] !== 0 || n[1] !== 0 || n[2] !== 0, { error: 'normal must not be [0, 0, 0]: it gives the side of the plane that stays' });
const httpUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).max(4096, { error: `${name} must be at most 4096 characters` });

// ---- the functions -----------------------------------------------------------------------------

export interface FunctionSpec<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  group: string;
  summary: string;
  /** 'read' functions change nothing; 'change' functions need a page allowed to change the scene. */
  access: 'read' | 'change';
  /** Built on first use (fn). */
  readonly args: A;
  readonly result: R;
}
/**
 * A function's entry. Its schemas are built on first use (a request for it, the docs), not when
 * this module is evaluated: there are a few hundred, and the embed evaluates this module while its
 * scene loads (tens of milliseconds of a weak device's main thread; bench/LOAD-PROFILE.md).
 */
const fn = <A extends z.ZodType, R extends z.ZodType>(group: string, access: 'read' | 'change', summary: string, a: () => A, r: () => R): FunctionSpec<A, R> => {
  let args: A | undefined;
  let result: R | undefined;
  return {
    group,
    summary,
    access,
    get args() {
      return (args ??= a());
    },
    get result() {
      return (result ??= r());
    },
  };
};

const animationRef = { modelId: id('modelId'), animation: id('animation') };
const settingsPart = <K extends keyof typeof SceneSettingsValues.shape>(keys: K[]) =>
  args(Object.fromEntries(keys.map((k) => [k, SceneSettingsValues.shape[k].optional()])) as { [P in K]: z.ZodOptional<(typeof SceneSettingsValues.shape)[P]> });

export const HOST_FUNCTIONS = {
  // models
  listModels: fn('Models', 'read', 'The loaded models.', () => none, () => z.array(ModelInfo)),
  setModelVisibility: fn('Models', 'change', 'Shows or hides a whole model.', () => args({ modelId: id('modelId'), visible: bool('visible') }), () => ModelInfo),
  // camera
  getCamera: fn('Camera', 'read', 'Where the camera is and how it projects.', () => none, () => CameraState),
  setCamera: fn(
    'Camera',
    'change',
    'Moves the camera; with `transition` (default true) it glides there and the promise resolves when it arrives.',
    () => args({ position: vec3('position').optional(), target: vec3('target').optional(), fov: finite('fov').refine((v) => v > 0 && v < 180, { error: 'fov must be between 0 and 180 degrees' }).optional(), transition: bool('transition').optional() }),
    () => CameraState,
  ),
  fitCamera: fn('Camera', 'change', 'Frames every visible model.', () => args({ transition: bool('transition').optional() }), () => CameraState),
  setCameraConfig: fn(
    'Camera',
    'change',
    'Camera config per field given (editor specification section 5): fov, near, far, and the controls ("simple" or "editor" mouse mapping).',
    () => args({ fov: finite('fov').refine((v) => v > 0 && v < 180, { error: 'fov must be between 0 and 180 degrees' }).optional(), near: positive('near').optional(), far: positive('far').optional(), controls: z.enum(['simple', 'editor'], { error: "controls must be 'simple' or 'editor'" }).optional() }),
    () => CameraState,
  ),
  setNavigationMode: fn('Camera', 'change', 'Orbit, FirstPerson or Plan.', () => args({ mode: z.enum(NAVIGATION_MODE_NAMES, { error: `mode must be one of ${NAVIGATION_MODE_NAMES.join(', ')}` }) }), () => CameraState),
  setProjection: fn('Camera', 'change', 'Perspective or Orthographic.', () => args({ projection: z.enum(PROJECTION_NAMES, { error: `projection must be one of ${PROJECTION_NAMES.join(', ')}` }) }), () => CameraState),
  // objects
  getObjectByName: fn('Objects', 'read', 'The first node with this name (in `modelId` if given), or null.', () => args({ name: text('name'), modelId: id('modelId').optional() }), () => NodeInfo.nullable()),
  getNode: fn('Objects', 'read', 'One node by its stable id.', () => args(nodeRef), () => NodeInfo),
  getNodeTree: fn('Objects', 'read', "A model's node tree (every node with a nodeId, parents before children).", () => args({ modelId: id('modelId') }), () => z.array(NodeTreeEntry)),
  setObjectTranslation: fn('Objects', 'change', 'Local translation of a node.', () => args({ ...nodeRef, translation: vec3('translation') }), () => NodeInfo),
  setObjectRotation: fn('Objects', 'change', 'Local rotation of a node: XYZ Euler angles in degrees.', () => args({ ...nodeRef, rotation: vec3('rotation') }), () => NodeInfo),
  setObjectScale: fn('Objects', 'change', 'Local scale of a node (no component 0).', () => args({ ...nodeRef, scale: vec3('scale') }), () => NodeInfo),
  setObjectVisibility: fn('Objects', 'change', 'Shows or hides a node and what is below it.', () => args({ ...nodeRef, visible: bool('visible') }), () => NodeInfo),
  highlightObject: fn(
    'Objects',
    'change',
    'Draws a box around a node (null nodeId clears it); one highlight at a time.',
    () => args({ modelId: id('modelId').optional(), nodeId: id('nodeId').nullable(), color: z.string().regex(/^#?[0-9a-fA-F]{6}$/, { error: "color must be '#rrggbb'" }).optional() }),
    () => Ok,
  ),
  // materials
  listMaterials: fn('Materials', 'read', 'Materials of every model, or of `modelId`.', () => args({ modelId: id('modelId').optional() }), () => z.array(MaterialSummary)),
  getMaterial: fn('Materials', 'read', "A material's properties.", () => args({ modelId: id('modelId'), materialId: id('materialId') }), () => MaterialInfo),
  setMaterial: fn(
    'Materials',
    'change',
    'Changes material properties (the mutation fields: color, opacity, metalness, roughness, emissive, maps by textureId, ...).',
    () => args({ modelId: id('modelId'), materialId: id('materialId'), properties: MaterialProperties }),
    () => MaterialInfo,
  ),
  // textures
  addTexture: fn(
    'Textures',
    'change',
    `Loads an image (http(s) URL, CORS-enabled) as a texture usable in setMaterial maps of every model (\`{ map: { textureId } }\`). At most ${MAX_ADDED_TEXTURES} at once.`,
    () => args({ url: httpUrl('url') }),
    () => z.object({ textureId: z.string() }),
  ),
  listTextures: fn(
    'Textures',
    'read',
    "The textures: addTexture's (modelId null), then each model's own and the uploaded ones its saved edits use (of `modelId` only, if given), each with the material maps that sample it.",
    () => args({ modelId: id('modelId').optional() }),
    () => z.array(TextureInfo),
  ),
  updateTexture: fn(
    'Textures',
    'change',
    "Replaces a texture's image by the one at `url` (CORS-enabled): every map that samples it shows the new image. An addTexture texture by its textureId; a model's texture with its `modelId`. Resolves when the image is in place; an image that cannot be loaded leaves the old one.",
    () => args({ textureId: id('textureId'), url: httpUrl('url'), modelId: id('modelId').optional() }),
    () => TextureInfo,
  ),
  removeTexture: fn(
    'Textures',
    'change',
    "Removes a texture made by addTexture and frees its memory. Refused while a material map uses it (set that map to another texture or null first); a model's own textures stay.",
    () => args({ textureId: id('textureId') }),
    () => Ok,
  ),
  // post-processing and quality
  getPostProcessing: fn('Rendering', 'read', 'The render config (effects); an error on the low tier, which draws no effects.', () => none, () => RenderConfig),
  setPostProcessing: fn(
    'Rendering',
    'change',
    'Changes the fields given of the render config (the sections and fields of getPostProcessing, each optional); the others stay. An error on the low tier, which draws no effects.',
    () => args({ config: RenderConfigChange }),
    () => RenderConfig,
  ),
  getQuality: fn('Rendering', 'read', 'The quality tier in use.', () => none, () => QualityInfo),
  setQuality: fn('Rendering', 'change', "Switches the quality tier ('auto': the detected one).", () => args({ tier: z.enum(QUALITY_NAMES, { error: `tier must be one of ${QUALITY_NAMES.join(', ')}` }) }), () => QualityInfo),
  // scene settings
  getSceneSettings: fn('Scene', 'read', 'Every scene setting as applied.', () => none, () => SceneSettingsValues),
  setSceneSettings: fn('Scene', 'change', 'Applies the scene settings given (editor specification section 3); the others stay.', () => args({ settings: SceneSettings }), () => SceneSettingsValues),
  setSun: fn('Scene', 'change', 'The sun and ambient light.', () => settingsPart(['sunAzimuth', 'sunElevation', 'sunColor', 'directionalLightIntensity', 'ambientLightIntensity']), () => SceneSettingsValues),
  setFog: fn('Scene', 'change', 'Fog (exponential): on or off, density and colour.', () => settingsPart(['fogEnabled', 'fogDensity', 'fogColor']), () => SceneSettingsValues),
  setShadowPlane: fn('Scene', 'change', 'The shadow plane: on or off, height and opacity.', () => settingsPart(['shadowPlaneEnabled', 'shadowPlaneY', 'shadowPlaneOpacity']), () => SceneSettingsValues),
  setWater: fn('Scene', 'change', 'The water plane: on or off, colour, distortion, size, height and wave speed.', () => settingsPart(['waterEnabled', 'waterColor', 'waterDistortionScale', 'waterSize', 'waterYOffset', 'waterWaveSpeed']), () => SceneSettingsValues),
  setBackground: fn('Scene', 'change', 'The background: type, colours, gradient rotation, blurriness.', () => settingsPart(['backgroundType', 'backgroundColor1', 'backgroundColor2', 'backgroundRotation', 'backgroundBlurriness']), () => SceneSettingsValues),
  setEnvironment: fn('Scene', 'change', 'The environment (a catalog id, or null).', () => settingsPart(['environment']), () => SceneSettingsValues),
  // animations
  listAnimations: fn('Animations', 'read', 'Every animation of the loaded models.', () => none, () => z.array(AnimationInfo)),
  playAnimation: fn('Animations', 'change', 'Starts an animation (by id or name) from `time`, looping unless `loop` is false.', () => args({ ...animationRef, loop: bool('loop').optional(), time: finite('time').optional() }), () => AnimationInfo),
  pauseAnimation: fn('Animations', 'change', 'Pauses an animation.', () => args(animationRef), () => AnimationInfo),
  resumeAnimation: fn('Animations', 'change', 'Resumes a paused animation.', () => args(animationRef), () => AnimationInfo),
  stopAnimation: fn('Animations', 'change', 'Stops an animation.', () => args(animationRef), () => AnimationInfo),
  seekAnimation: fn('Animations', 'change', 'Moves an animation to `time` seconds (shown at once, also when paused).', () => args({ ...animationRef, time: finite('time') }), () => AnimationInfo),
  setAnimationSpeed: fn('Animations', 'change', 'The global speed (at least 0.1).', () => args({ speed: positive('speed') }), () => z.object({ speed: z.number() })),
  // tools
  activateTool: fn('Tools', 'change', 'Turns a tool on, or every tool off (null).', () => args({ tool: z.enum(TOOL_NAMES, { error: `tool must be one of ${TOOL_NAMES.join(', ')} or null` }).nullable() }), () => z.object({ tool: z.enum(TOOL_NAMES).nullable() })),
  listMeasurements: fn('Tools', 'read', 'The measurements made (with the tools or the API).', () => none, () => z.array(MeasurementInfo)),
  createMeasurement: fn(
    'Tools',
    'change',
    `Makes a finished measurement from world points, drawn and labelled as the tools draw theirs: a length (2 points), an angle (3, the vertex in the middle) or an area (3 or more on one plane, at most ${MAX_MEASUREMENT_POINTS}). The 'measurement' event tells it as created.`,
    () => args({ kind: z.enum(MEASUREMENT_KINDS, { error: `kind must be one of ${MEASUREMENT_KINDS.join(', ')}` }), points: measurementPoints }).superRefine((a, ctx) => {
      const problem = measurementProblem(a.kind, a.points);
      if (problem) ctx.addIssue({ code: 'custom', path: problem.index === null ? ['points'] : ['points', problem.index], message: problem.message });
    }),
    () => MeasurementInfo,
  ),
  updateMeasurement: fn(
    'Tools',
    'change',
    "Moves a measurement's points (as many as it has, by the same rules as createMeasurement); its value and label follow.",
    () => args({ id: measurementId, points: measurementPoints }),
    () => MeasurementInfo,
  ),
  removeMeasurement: fn('Tools', 'change', 'Deletes a measurement (one made with the tools or the API).', () => args({ id: measurementId }), () => Ok),
  listSectionPlanes: fn('Tools', 'read', 'The section planes made (with the tool or the API).', () => none, () => z.array(SectionInfo)),
  createSectionPlane: fn(
    'Tools',
    'change',
    `Cuts the scene with a plane through \`point\`: what lies on the side \`normal\` points to stays, the rest is cut away (closed meshes get caps). At most ${MAX_SECTION_PLANES} planes.`,
    () => args({ point: vec3('point'), normal: planeNormal }),
    () => SectionInfo,
  ),
  moveSectionPlane: fn(
    'Tools',
    'change',
    "Moves a section plane through a new `point`, turns it to a new `normal`, or both; what is not given stays.",
    () => args({ id: sectionId, point: vec3('point').optional(), normal: planeNormal.optional() }).refine((a) => a.point !== undefined || a.normal !== undefined, {
      error: 'give point, normal or both',
    }),
    () => SectionInfo,
  ),
  removeSectionPlane: fn('Tools', 'change', 'Removes a section plane: what it cut away is shown again.', () => args({ id: sectionId }), () => Ok),
  // picking and projection
  pickFromScreen: fn('Picking', 'read', 'What is under a point of the viewer (CSS pixels from its top left), or null.', () => args({ x: finite('x'), y: finite('y') }), () => Hit.nullable()),
  getWorldToScreenCoordinates: fn('Picking', 'read', 'Where a 3D point is on the viewer (CSS pixels).', () => args({ position: vec3('position') }), () => ScreenPoint),
  registerHotspots: fn(
    'Picking',
    'change',
    "Registers 3D points whose screen positions are sent as the 'hotspots' event each time the camera moves (replaces points with the same ids).",
    () => args({ points: z.array(z.strictObject({ id: id('points[].id'), position: vec3('points[].position') }), { error: 'points must be a list of { id, position }' }).max(MAX_HOTSPOTS, { error: `points: at most ${MAX_HOTSPOTS}` }) }),
    () => z.object({ count: z.number() }),
  ),
  unregisterHotspots: fn('Picking', 'change', 'Removes hotspots by id (every one without `ids`).', () => args({ ids: z.array(id('ids[]')).max(MAX_HOTSPOTS).optional() }), () => z.object({ count: z.number() })),
  // pictures
  screenshot: fn('Pictures', 'read', 'A picture of the current view (without helpers), as a data URL.', () => args(imageArgs), () => Image),
  renderOffscreenFrame: fn(
    'Pictures',
    'read',
    'A picture from another camera without moving the view: `position`/`target`/`fov`, or `fit` to frame every model from that direction with `fitPaddingFactor` (default 1.1); `transparent` clears the background.',
    () => args({
      ...imageArgs,
      width: side('width'),
      height: side('height'),
      position: vec3('position').optional(),
      target: vec3('target').optional(),
      fov: finite('fov').refine((v) => v > 0 && v < 180, { error: 'fov must be between 0 and 180 degrees' }).optional(),
      fit: bool('fit').optional(),
      fitPaddingFactor: finite('fitPaddingFactor').refine((v) => v >= 1 && v <= 10, { error: 'fitPaddingFactor must be between 1 and 10' }).optional(),
      transparent: bool('transparent').optional(),
    }),
    () => Image,
  ),
  // signing in
  setAuthToken: fn(
    'Sign-in',
    'change',
    "Hands the viewer a signed-in person's bearer token, so that what the viewer saves (annotations, comments) is saved as that person: a viewer framed by another site cannot read the person's own sign-in. The token is a JWT of the viewer's identity provider (audience 'parametricos', as `npm run token` prints); the model service checks it before it is kept (a refused or expired one is not kept, the one before stays). It is kept in the viewer's memory only (a reload forgets it), sent only to the viewer's model service, and never posted back. `null` forgets it (the viewer's own sign-in, if any, is used again). Only pages the scene's hostOrigins lets change the scene may call it; call it again with a fresh token before `expiresAt`.",
    () => args({
      token: z
        .string({ error: (issue) => (issue.input === undefined ? 'token undefined.' : 'token must be a string (a JWT) or null') })
        .max(MAX_TOKEN_LENGTH, { error: `token must be at most ${MAX_TOKEN_LENGTH} characters` })
        .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, { error: 'token must be a JWT: three base64url parts joined by dots' })
        .nullable(),
    }),
    () => AuthInfo,
  ),
  // annotations
  listAnnotations: fn('Annotations', 'read', "The annotations: the scene's comment threads, as stored by the model service (read by whoever may read the scene).", () => none, () => z.array(AnnotationInfo)),
  getAnnotation: fn('Annotations', 'read', "One annotation by its id; an error when there is none.", () => args({ id: id('id') }), () => AnnotationInfo),
  createAnnotation: fn(
    'Annotations',
    'change',
    "Pins an annotation at a 3D point; `eye`/`target` default to the current camera. Saved at once as a comment thread of the scene (with the whole current view: camera, section planes, measurements), so it is there after a reload and for everyone. Saved as the signed-in person: the viewer's own sign-in (a page of the viewer's site), or the token a host page handed over with setAuthToken. Refused with the service's reason when there is neither or the owner turned comments off; an annotation needs a title or a text.",
    () => args({ position: vec3('position'), title: text('title'), text: text('text').optional(), eye: vec3('eye').optional(), target: vec3('target').optional() }),
    () => AnnotationInfo,
  ),
  updateAnnotation: fn(
    'Annotations',
    'change',
    "Changes what is given, saved at once: the title and text, the pin's `position`, and the view's camera `eye`/`target` (the rest of its view stays: projection, field of view, section planes, measurements). Only the comment's author may (the service refuses others). An empty text keeps the title as the text; eye and target must differ.",
    () => args({ id: id('id'), title: text('title').optional(), text: text('text').optional(), position: vec3('position').optional(), eye: vec3('eye').optional(), target: vec3('target').optional() }),
    () => AnnotationInfo,
  ),
  removeAnnotation: fn('Annotations', 'change', "Deletes an annotation's comment thread on the service: the author's own, or any for the scene's owner (others are refused).", () => args({ id: id('id') }), () => Ok),
  gotoAnnotation: fn('Annotations', 'change', "Opens an annotation's view: the camera flies to its eye and target, its projection and field of view, and its section planes and measurements replace the present ones.", () => args({ id: id('id'), transition: bool('transition').optional() }), () => CameraState),
} as const;

export type HostFunctionName = keyof typeof HOST_FUNCTIONS;
export const HOST_FUNCTION_NAMES = Object.keys(HOST_FUNCTIONS) as HostFunctionName[];
export type HostArgs<F extends HostFunctionName> = z.input<(typeof HOST_FUNCTIONS)[F]['args']>;
export type HostParsedArgs<F extends HostFunctionName> = z.output<(typeof HOST_FUNCTIONS)[F]['args']>;
export type HostResult<F extends HostFunctionName> = z.output<(typeof HOST_FUNCTIONS)[F]['result']>;

export function isHostFunction(name: string): name is HostFunctionName {
  return Object.prototype.hasOwnProperty.call(HOST_FUNCTIONS, name);
}

// ---- events ------------------------------------------------------------------------------------

/** An event's entry; its schema is built on first use (the docs), as a function's (fn). */
const ev = <D extends z.ZodType>(summary: string, d: () => D): { summary: string; readonly data: D } => {
  let data: D | undefined;
  return {
    summary,
    get data() {
      return (data ??= d());
    },
  };
};

export const HOST_EVENTS = {
  'annotation.click': ev('A pin was clicked.', () => z.object({ annotationId: z.string() })),
  raycast: ev('A click (not a drag) hit the scene.', () => Hit),
  'background.click': ev('A click hit nothing.', () => z.object({ x: z.number(), y: z.number() })),
  selection: ev('The clicked node (null: the selection was cleared by a click on nothing).', () => z.object({ modelId: z.string().nullable(), nodeId: z.string().nullable() })),
  animation: ev('An animation started, stopped, paused, resumed, finished or looped.', () => z.object({ modelId: z.string(), animationName: z.string(), eventType: z.string(), isPlaying: z.boolean(), time: z.number(), weight: z.number(), duration: z.number(), loop: z.boolean() })),
  camerastart: ev('The camera started moving.', () => CameraState),
  camerastop: ev('The camera came to rest.', () => CameraState),
  hotspots: ev('Screen positions of the registered hotspots, sent in the frame the camera moved (and when they are registered).', () => z.object({ points: z.array(ScreenPoint.extend({ id: z.string() })) })),
  loadprogress: ev('Loading progress (bytes and models). A page whose api.init is answered during the load is sent the progress so far at once.', () => z.object({ loaded: z.number(), total: z.number(), modelsDone: z.number(), modelsTotal: z.number() })),
  measurement: ev('A measurement was created, changed or deleted.', () => MeasurementInfo.extend({ action: z.enum(['created', 'updated', 'deleted']) })),
  section: ev('A section plane was created, moved or deleted.', () => SectionInfo.extend({ action: z.enum(['created', 'updated', 'deleted']) })),
  tool: ev('The active tool changed.', () => z.object({ tool: z.enum(TOOL_NAMES).nullable(), previous: z.enum(TOOL_NAMES).nullable() })),
  navigation: ev('Navigation mode, projection or camera controls changed.', () => z.object({ mode: z.string(), projection: z.string(), cameraConfig: z.string() })),
} as const;
export type HostEventName = keyof typeof HOST_EVENTS;
export type HostEventData<E extends HostEventName> = z.output<(typeof HOST_EVENTS)[E]['data']>;

/** One line naming the argument at fault: "arguments.position[1]: position[1] must be a number". */
export function describeArgumentsError(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((issue) => {
    let path = 'arguments';
    for (const p of issue.path) path += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
    return `${path}: ${issue.message}`;
  });
  return parts.join('; ') + (error.issues.length > max ? ` (and ${error.issues.length - max} more)` : '');
}
