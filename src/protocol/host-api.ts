import { z } from 'zod';
import { RenderConfig, RenderConfigChange } from './render-config.ts';
import { MaterialProperties } from './mutation.ts';
import { SceneSettings, SceneSettingsValues } from './scene-settings.ts';
import {
  args,
  bool,
  finite,
  httpUrl,
  id,
  imageArgs,
  measurementId,
  measurementPoints,
  measurementProblem,
  MEASUREMENT_KINDS,
  NAVIGATION_MODE_NAMES,
  nodeRef,
  none,
  planeNormal,
  positive,
  PROJECTION_NAMES,
  QUALITY_NAMES,
  sectionId,
  side,
  text,
  TOOL_NAMES,
  vec3,
} from './host-api-args.ts';
import { MAX_ADDED_TEXTURES, MAX_HOTSPOTS, MAX_MEASUREMENT_POINTS, MAX_SECTION_PLANES, MAX_TOKEN_LENGTH } from './host-api-envelope.ts';
import {
  AnimationInfo,
  AnnotationInfo,
  AuthInfo,
  CameraState,
  Hit,
  Image,
  MaterialInfo,
  MaterialSummary,
  MeasurementInfo,
  ModelInfo,
  NodeInfo,
  NodeTreeEntry,
  Ok,
  QualityInfo,
  ScreenPoint,
  SectionInfo,
  TextureInfo,
} from './host-api-results.ts';

/**
 * The host-page API (editor specification sections 6-7, DESIGN.md 4.3): the window messages a page
 * that embeds the viewer exchanges with it, and one schema per function. These schemas are the one
 * source of the viewer's validation (src/api/host-api.ts), the typed client's types
 * (src/api/client.ts) and the API reference (docs/host-api.md, scripts/host-api-docs.ts).
 */

// This module is the API's one door: the limits and the envelope (./host-api-envelope.ts), the
// result schemas (./host-api-results.ts) and the shared names and checks (./host-api-args.ts).
export * from './host-api-envelope.ts';
export {
  AnimationInfo,
  AnnotationInfo,
  AuthInfo,
  CameraState,
  Hit,
  Image,
  MaterialInfo,
  MaterialSummary,
  MeasurementInfo,
  ModelInfo,
  NodeInfo,
  NodeTreeEntry,
  QualityInfo,
  ScreenPoint,
  SectionInfo,
  TextureInfo,
} from './host-api-results.ts';
export { clip, IMAGE_FORMATS, MEASUREMENT_KINDS, measurementProblem, NAVIGATION_MODE_NAMES, PROJECTION_NAMES, QUALITY_NAMES, TOOL_NAMES } from './host-api-args.ts';

// ---- the scene's allowlist (src/protocol/host-origins.ts: the scene document's schema uses it,
// and it must not bring these schemas into the embed's first download)

export { accessFor, HostOrigin, HostOrigins, MAX_HOST_ORIGINS, normalizeHostOrigins, type Access } from './host-origins.ts';

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
