import { addComponent, removeEntity } from 'bitecs';
import {
  ACESFilmicToneMapping,
  AgXToneMapping,
  CineonToneMapping,
  Color,
  DataTexture,
  FogExp2,
  LinearFilter,
  LinearToneMapping,
  Mesh,
  NeutralToneMapping,
  NoToneMapping,
  PlaneGeometry,
  ReinhardToneMapping,
  RepeatWrapping,
  RGBAFormat,
  ShadowMaterial,
  SRGBColorSpace,
  TextureLoader,
  UnsignedByteType,
  Vector3,
  type Texture,
  type ToneMapping as ThreeToneMapping,
  type WebGLRenderer,
} from 'three';
import type { Water } from 'three/examples/jsm/objects/Water.js';
import { ShadowFollow, WaterSurface } from '../../components';
import { ensureSunEntity, placeFollowingShadow, setShadowHalfExtent, setSunDirection } from '../engine/lights';
import { bindObject, unbindObject } from '../engine/registry';
import type { RenderContext } from '../engine/renderer';
import { viewFocus } from '../engine/view-pose';
import { addViewerEntity, type ViewerWorld } from '../engine/world';
import {
  SCENE_SETTINGS_DEFAULTS,
  SceneSettings,
  SHADOW_PLANE_SIZE,
  WATER_NORMALS_URL,
  WATER_PLANE_SIZE,
  WATER_TEXTURE_SIZE,
  type EnvironmentRef,
  type SceneSettingsValues,
  type ToneMappingName,
  type Vec3,
} from '../protocol/scene-settings';
import { loadEnvironment, resolveEnvironment, type LoadedEnvironment } from '../scene/environments';

/**
 * Scene settings (editor specification sections 3, 4, 5, 9) applied to a running viewer: sun,
 * shadows, ambient light, background, environment, tone mapping and exposure, camera, fog, water
 * and the shadow plane. Only the fields present are applied; reading the settings back gives what
 * was applied (normalised as the schema normalises it). The state of one viewer lives in a side
 * map keyed by its world.
 */

/** What applySceneSettings needs of the viewer: its world, render context and navigation. */
export interface SceneSettingsHost {
  world: ViewerWorld;
  context: Pick<RenderContext, 'renderer' | 'scene' | 'camera' | 'sun' | 'ambient'>;
  /** The navigation, which moves the camera and writes the view pose (optional: without it the camera is placed directly). */
  navigation?: LookAtNavigation | null;
}

export interface LookAtNavigation {
  setLookAt(px: number, py: number, pz: number, tx: number, ty: number, tz: number, enableTransition?: boolean): unknown;
}

export interface ApplySceneSettingsOptions {
  /**
   * Problems that do not stop the viewer (an environment or the water normals that could not be
   * loaded): each is also logged with console.error.
   */
  onWarning?: (message: string) => void;
  /** Loads an environment (default: the catalog and loaders of src/scene/environments.ts). */
  loadEnvironment?: (ref: Exclude<EnvironmentRef, null>, renderer: WebGLRenderer) => Promise<LoadedEnvironment>;
  /** Loads a texture by URL (default: three's TextureLoader). */
  loadTexture?: (url: string, onError: (error: unknown) => void) => Texture;
}

const TONE_MAPPING: Record<ToneMappingName, ThreeToneMapping> = {
  none: NoToneMapping,
  linear: LinearToneMapping,
  reinhard: ReinhardToneMapping,
  cineon: CineonToneMapping,
  aces: ACESFilmicToneMapping,
  agx: AgXToneMapping,
  neutral: NeutralToneMapping,
};

/** Side of the gradient background texture (the background stretches it over the canvas). */
const GRADIENT_SIZE = 64;

interface WaterState {
  eid: number;
  mesh: Water;
  normals: Texture;
}

interface SettingsState {
  values: SceneSettingsValues;
  sun: number;
  environment: LoadedEnvironment | null;
  /** What lit the scene before any environment (the room environment), restored on removal. */
  base: { texture: Texture | null; intensity: number };
  backgroundColor: Color;
  gradient: DataTexture | null;
  gradientKey: string;
  water: WaterState | null;
  shadowPlane: Mesh<PlaneGeometry, ShadowMaterial> | null;
  environmentRequest: number;
}

const states = new WeakMap<ViewerWorld, SettingsState>();
const scratch = new Vector3();

/**
 * Applies the fields present in `input` (a scene's viewerConfig.scene) and resolves with the
 * complete settings afterwards. Invalid settings throw (the embedded viewer shows its failure
 * overlay); an environment that cannot be loaded is ignored as the specification says, but
 * reported through onWarning and console.error, and the background stays as it was.
 */
export async function applySceneSettings(host: SceneSettingsHost, input: unknown, options: ApplySceneSettingsOptions = {}): Promise<SceneSettingsValues> {
  const parsed = SceneSettings.safeParse(input ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; ');
    throw new Error(`The scene settings are not valid: ${problems}.`);
  }
  const s = parsed.data;
  const has = <K extends keyof SceneSettingsValues>(key: K): boolean => key in s && s[key] !== undefined;
  const { world, context } = host;
  const { renderer, scene, camera, sun, ambient } = context;
  const state = stateOf(host);
  const v = state.values;
  const warn = (message: string, error?: unknown) => {
    console.error(message, error ?? '');
    options.onWarning?.(message);
  };

  // Sun and its shadow.
  if (has('sunAzimuth') || has('sunElevation')) {
    v.sunAzimuth = s.sunAzimuth ?? v.sunAzimuth;
    v.sunElevation = s.sunElevation ?? v.sunElevation;
    setSunDirection(world, state.sun, v.sunAzimuth, v.sunElevation);
  }
  if (has('sunColor')) {
    v.sunColor = s.sunColor!;
    sun.color.set(`#${v.sunColor}`);
  }
  if (has('directionalLightIntensity')) sun.intensity = v.directionalLightIntensity = s.directionalLightIntensity!;
  if (has('directionalLightShadowCameraBias')) sun.shadow.bias = v.directionalLightShadowCameraBias = s.directionalLightShadowCameraBias!;
  if (has('directionalLightShadowCameraScale')) {
    v.directionalLightShadowCameraScale = s.directionalLightShadowCameraScale!;
    setShadowHalfExtent(world, state.sun, v.directionalLightShadowCameraScale);
  }
  if (has('ambientLightIntensity')) ambient.intensity = v.ambientLightIntensity = s.ambientLightIntensity!;

  // Tone mapping and exposure (the post-processing composer reads these from the renderer).
  if (has('toneMapping')) {
    v.toneMapping = s.toneMapping!;
    renderer.toneMapping = TONE_MAPPING[v.toneMapping];
  }
  if (has('toneMappingExposure')) {
    v.toneMappingExposure = s.toneMappingExposure!;
    renderer.toneMappingExposure = 2 ** v.toneMappingExposure;
  }

  // Camera.
  if (has('perspectiveCameraFov')) {
    camera.fov = v.perspectiveCameraFov = s.perspectiveCameraFov!;
    camera.updateProjectionMatrix();
  }
  if ('initialCameraPosition' in s || 'initialCameraTarget' in s) {
    if (s.initialCameraPosition !== undefined) v.initialCameraPosition = copyVec3(s.initialCameraPosition);
    if (s.initialCameraTarget !== undefined) v.initialCameraTarget = copyVec3(s.initialCameraTarget);
    placeCamera(host, v.initialCameraPosition, v.initialCameraTarget);
  }

  // Fog.
  if (has('fogEnabled') || has('fogDensity') || has('fogColor')) {
    v.fogEnabled = s.fogEnabled ?? v.fogEnabled;
    v.fogDensity = s.fogDensity ?? v.fogDensity;
    v.fogColor = s.fogColor ?? v.fogColor;
    if (!v.fogEnabled) scene.fog = null;
    else if (scene.fog instanceof FogExp2) {
      scene.fog.color.set(`#${v.fogColor}`);
      scene.fog.density = v.fogDensity;
    } else scene.fog = new FogExp2(`#${v.fogColor}`, v.fogDensity);
  }

  // Environment (before the background, which may show it).
  let backgroundChanged = false;
  if ('environment' in s && s.environment !== undefined) {
    const ref = s.environment;
    if (ref === null) {
      removeEnvironment(host, state);
      if (v.backgroundType === 'environment') v.backgroundType = 'color';
      backgroundChanged = true;
    } else if (!state.environment || !sameEnvironment(ref, v.environment)) {
      const request = ++state.environmentRequest;
      try {
        const load = options.loadEnvironment ?? defaultLoadEnvironment;
        const loaded = await load(ref, renderer);
        if (request !== state.environmentRequest) loaded.dispose(); // a later call chose another
        else {
          state.environment?.dispose();
          state.environment = loaded;
          scene.environment = loaded.target.texture;
          scene.environmentIntensity = 1;
          v.environment = copyEnvironmentRef(ref);
          backgroundChanged = true;
        }
      } catch (error) {
        warn(`The environment '${typeof ref === 'string' ? ref : ref.id}' could not be loaded, so it is left out: ${messageOf(error)}`, error);
      }
    }
  }

  // Background.
  if (has('backgroundType') || has('backgroundColor1') || has('backgroundColor2') || has('backgroundRotation') || has('backgroundBlurriness') || backgroundChanged) {
    const type = s.backgroundType ?? v.backgroundType;
    // Choosing environment with no environment loaded changes nothing.
    if (type !== 'environment' || state.environment) v.backgroundType = type;
    v.backgroundColor1 = s.backgroundColor1 ?? v.backgroundColor1;
    v.backgroundColor2 = s.backgroundColor2 ?? v.backgroundColor2;
    v.backgroundRotation = s.backgroundRotation ?? v.backgroundRotation;
    v.backgroundBlurriness = s.backgroundBlurriness ?? v.backgroundBlurriness;
    applyBackground(host, state);
  }

  // Water.
  if (has('waterEnabled') || has('waterColor') || has('waterDistortionScale') || has('waterSize') || has('waterYOffset') || has('waterWaveSpeed')) {
    v.waterEnabled = s.waterEnabled ?? v.waterEnabled;
    v.waterColor = s.waterColor ?? v.waterColor;
    v.waterDistortionScale = s.waterDistortionScale ?? v.waterDistortionScale;
    v.waterSize = s.waterSize ?? v.waterSize;
    v.waterYOffset = s.waterYOffset ?? v.waterYOffset;
    v.waterWaveSpeed = s.waterWaveSpeed ?? v.waterWaveSpeed;
    if (v.waterEnabled && !state.water) {
      // three's Water is a chunk of its own: few scenes have water, and the embed's first download
      // stays small. A call made meanwhile may have turned it off or made it: `v` is the latest.
      try {
        const { Water: WaterMesh } = await import('three/examples/jsm/objects/Water.js');
        // Not for settings disposed meanwhile (a viewer that closed).
        if (v.waterEnabled && !state.water && states.get(host.world) === state) state.water = createWater(WaterMesh, host, options, warn);
      } catch (error) {
        warn(`The water could not be loaded, so it is left out: ${messageOf(error)}`, error);
      }
    } else if (!v.waterEnabled && state.water) {
      removeWater(host, state.water);
      state.water = null;
    }
    if (state.water) updateWater(state.water, v);
  }
  if (state.water) updateWaterSun(state);

  // Shadow plane.
  if (has('shadowPlaneEnabled') || has('shadowPlaneY') || has('shadowPlaneOpacity')) {
    v.shadowPlaneEnabled = s.shadowPlaneEnabled ?? v.shadowPlaneEnabled;
    v.shadowPlaneY = s.shadowPlaneY ?? v.shadowPlaneY;
    v.shadowPlaneOpacity = s.shadowPlaneOpacity ?? v.shadowPlaneOpacity;
    if (v.shadowPlaneEnabled && !state.shadowPlane) {
      const plane = new Mesh(new PlaneGeometry(SHADOW_PLANE_SIZE, SHADOW_PLANE_SIZE), new ShadowMaterial());
      plane.name = 'Shadow plane';
      plane.rotation.x = -Math.PI / 2;
      plane.receiveShadow = true;
      scene.add(plane);
      state.shadowPlane = plane;
    } else if (!v.shadowPlaneEnabled && state.shadowPlane) {
      removeShadowPlane(state.shadowPlane);
      state.shadowPlane = null;
    }
    if (state.shadowPlane) {
      state.shadowPlane.position.y = v.shadowPlaneY;
      state.shadowPlane.material.opacity = v.shadowPlaneOpacity;
    }
  }

  world.render.needsRender = true;
  return readSceneSettings(host);
}

/** The complete settings now: what was applied, and the viewer's own state for the rest. */
export function readSceneSettings(host: SceneSettingsHost): SceneSettingsValues {
  const v = stateOf(host).values;
  return {
    ...v,
    initialCameraPosition: copyVec3(v.initialCameraPosition),
    initialCameraTarget: copyVec3(v.initialCameraTarget),
    environment: copyEnvironmentRef(v.environment),
  };
}

/** Removes what the settings added (water, shadow plane, environment, gradient) and forgets them. */
export function disposeSceneSettings(host: SceneSettingsHost): void {
  const state = states.get(host.world);
  if (!state) return;
  if (state.water) removeWater(host, state.water);
  if (state.shadowPlane) removeShadowPlane(state.shadowPlane);
  removeEnvironment(host, state);
  state.gradient?.dispose();
  states.delete(host.world);
}

/** The loaded environment's equirectangular image and prefiltered texture, if any (for tests and the editor). */
export function currentEnvironment(host: SceneSettingsHost): LoadedEnvironment | null {
  return states.get(host.world)?.environment ?? null;
}

function stateOf(host: SceneSettingsHost): SettingsState {
  let state = states.get(host.world);
  if (state) return state;
  const { world, context } = host;
  const { renderer, scene, camera, sun, ambient } = context;
  const eid = ensureSunEntity(world, sun);
  const o = eid * 3;
  const d = ShadowFollow.direction;
  const background = scene.background;
  const fog = scene.fog instanceof FogExp2 ? scene.fog : null;
  const values: SceneSettingsValues = {
    ...SCENE_SETTINGS_DEFAULTS,
    // From the stored (float32) direction: to 1e-4 degrees.
    sunAzimuth: round4((Math.atan2(d[o], d[o + 2]) * 180) / Math.PI),
    sunElevation: round4((Math.asin(Math.min(1, Math.max(-1, d[o + 1]))) * 180) / Math.PI),
    sunColor: sun.color.getHexString(),
    directionalLightIntensity: sun.intensity,
    directionalLightShadowCameraBias: sun.shadow.bias,
    directionalLightShadowCameraScale: ShadowFollow.halfExtent[eid],
    ambientLightIntensity: ambient.intensity,
    backgroundType: background === null ? 'transparent' : 'color',
    backgroundColor1: background instanceof Color ? background.getHexString() : SCENE_SETTINGS_DEFAULTS.backgroundColor1,
    toneMapping: toneMappingName(renderer.toneMapping),
    toneMappingExposure: Math.log2(renderer.toneMappingExposure),
    perspectiveCameraFov: camera.fov,
    fogEnabled: fog !== null,
    fogDensity: fog ? fog.density : SCENE_SETTINGS_DEFAULTS.fogDensity,
    fogColor: fog ? fog.color.getHexString() : SCENE_SETTINGS_DEFAULTS.fogColor,
  };
  state = {
    values,
    sun: eid,
    environment: null,
    base: { texture: scene.environment, intensity: scene.environmentIntensity },
    backgroundColor: background instanceof Color ? background : new Color(`#${values.backgroundColor1}`),
    gradient: null,
    gradientKey: '',
    water: null,
    shadowPlane: null,
    environmentRequest: 0,
  };
  states.set(world, state);
  return state;
}

function toneMappingName(value: number): ToneMappingName {
  for (const [name, constant] of Object.entries(TONE_MAPPING)) if (constant === value) return name as ToneMappingName;
  return SCENE_SETTINGS_DEFAULTS.toneMapping;
}

function placeCamera(host: SceneSettingsHost, position: Vec3 | null, target: Vec3 | null): void {
  const { world, context, navigation } = host;
  const camera = context.camera;
  if (!position && !target) return;
  // A position alone keeps the view's target (where a move ends: the view pose's).
  const t = target ?? (navigation ? viewFocus(world, scratch) : camera.getWorldDirection(scratch).add(camera.position));
  const tx = t.x, ty = t.y, tz = t.z;
  const p = position ?? camera.position;
  if (navigation) void navigation.setLookAt(p.x, p.y, p.z, tx, ty, tz, false);
  else {
    camera.position.set(p.x, p.y, p.z);
    camera.lookAt(tx, ty, tz);
    camera.updateMatrixWorld();
  }
  placeFollowingShadow(world, stateOf(host).sun);
}

function applyBackground(host: SceneSettingsHost, state: SettingsState): void {
  const { scene, renderer } = host.context;
  const v = state.values;
  scene.backgroundBlurriness = v.backgroundBlurriness;
  switch (v.backgroundType) {
    case 'color':
      scene.background = state.backgroundColor.set(`#${v.backgroundColor1}`);
      break;
    case 'gradient': {
      const key = `${v.backgroundColor1}/${v.backgroundColor2}/${v.backgroundRotation}`;
      if (!state.gradient || state.gradientKey !== key) {
        state.gradient?.dispose();
        state.gradient = gradientTexture(v.backgroundColor1, v.backgroundColor2, v.backgroundRotation);
        state.gradientKey = key;
      }
      scene.background = state.gradient;
      break;
    }
    case 'environment':
      scene.background = state.environment ? state.environment.texture : state.backgroundColor.set(`#${v.backgroundColor1}`);
      break;
    case 'transparent':
      scene.background = null;
      renderer.setClearColor(0x000000, 0);
      break;
  }
}

/**
 * A linear gradient from colour 1 to colour 2 (interpolated in sRGB, as CSS does), rotated
 * clockwise by `rotationDeg` from top-to-bottom. The background stretches it over the canvas.
 */
export function gradientTexture(color1: string, color2: string, rotationDeg: number, size = GRADIENT_SIZE): DataTexture {
  const a = hexBytes(color1);
  const b = hexBytes(color2);
  const r = (rotationDeg * Math.PI) / 180;
  // Direction from colour 1 to colour 2 in texture space (u right, v up): down at 0 degrees.
  const dx = -Math.sin(r);
  const dy = -Math.cos(r);
  const half = (Math.abs(dx) + Math.abs(dy)) / 2;
  const data = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = (x + 0.5) / size - 0.5;
      const w = (y + 0.5) / size - 0.5;
      const t = Math.min(1, Math.max(0, ((u * dx + w * dy) / half + 1) / 2));
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) data[i + c] = Math.round(a[c] + (b[c] - a[c]) * t);
      data[i + 3] = 255;
    }
  }
  const texture = new DataTexture(data, size, size, RGBAFormat, UnsignedByteType);
  texture.colorSpace = SRGBColorSpace;
  texture.minFilter = texture.magFilter = LinearFilter;
  texture.name = 'Background gradient';
  texture.needsUpdate = true;
  return texture;
}

function hexBytes(hex: string): [number, number, number] {
  const n = parseInt(hex, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function removeEnvironment(host: SceneSettingsHost, state: SettingsState): void {
  const { scene } = host.context;
  if (state.environment) {
    if (scene.background === state.environment.texture) scene.background = state.backgroundColor.set(`#${state.values.backgroundColor1}`);
    state.environment.dispose();
    state.environment = null;
  }
  state.environmentRequest++;
  scene.environment = state.base.texture;
  scene.environmentIntensity = state.base.intensity;
  state.values.environment = null;
}

async function defaultLoadEnvironment(ref: Exclude<EnvironmentRef, null>, renderer: WebGLRenderer): Promise<LoadedEnvironment> {
  return loadEnvironment(renderer, await resolveEnvironment(ref));
}

function sameEnvironment(a: Exclude<EnvironmentRef, null>, b: EnvironmentRef): boolean {
  if (b === null) return false;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.id === b.id && a.path === b.path && a.format === b.format;
}

function createWater(WaterMesh: typeof Water, host: SceneSettingsHost, options: ApplySceneSettingsOptions, warn: (message: string, error?: unknown) => void): WaterState {
  const { world, context } = host;
  const load =
    options.loadTexture ??
    ((url: string, onError: (error: unknown) => void) =>
      new TextureLoader().load(
        url,
        () => {
          world.render.needsRender = true;
        },
        undefined,
        onError,
      ));
  const normals = load(WATER_NORMALS_URL, (error) => warn(`The water normal map ${WATER_NORMALS_URL} could not be loaded: ${messageOf(error)}`, error));
  normals.wrapS = normals.wrapT = RepeatWrapping;
  const mesh = new WaterMesh(new PlaneGeometry(WATER_PLANE_SIZE, WATER_PLANE_SIZE), {
    textureWidth: WATER_TEXTURE_SIZE,
    textureHeight: WATER_TEXTURE_SIZE,
    waterNormals: normals,
    fog: true,
  });
  mesh.name = 'Water';
  mesh.rotation.x = -Math.PI / 2;
  context.scene.add(mesh);
  const eid = addViewerEntity(world);
  addComponent(world, eid, WaterSurface);
  WaterSurface.speed[eid] = 0;
  bindObject(world, eid, mesh);
  return { eid, mesh, normals };
}

function updateWater(water: WaterState, v: SceneSettingsValues): void {
  const u = water.mesh.material.uniforms;
  (u.waterColor.value as Color).set(`#${v.waterColor}`);
  u.distortionScale.value = v.waterDistortionScale;
  u.size.value = v.waterSize;
  water.mesh.position.y = v.waterYOffset;
  WaterSurface.speed[water.eid] = v.waterWaveSpeed;
}

function updateWaterSun(state: SettingsState): void {
  if (!state.water) return;
  const u = state.water.mesh.material.uniforms;
  const d = ShadowFollow.direction;
  const o = state.sun * 3;
  (u.sunDirection.value as Vector3).set(d[o], d[o + 1], d[o + 2]);
  (u.sunColor.value as Color).set(`#${state.values.sunColor}`);
}

function removeWater(host: SceneSettingsHost, water: WaterState): void {
  water.mesh.removeFromParent();
  unbindObject(host.world, water.eid);
  removeEntity(host.world, water.eid);
  const mirror = water.mesh.material.uniforms.mirrorSampler.value as Texture | null;
  mirror?.renderTarget?.dispose();
  water.mesh.geometry.dispose();
  water.mesh.material.dispose();
  water.normals.dispose();
}

function removeShadowPlane(plane: Mesh<PlaneGeometry, ShadowMaterial>): void {
  plane.removeFromParent();
  plane.geometry.dispose();
  plane.material.dispose();
}

function copyVec3(v: Vec3 | null): Vec3 | null {
  return v ? { x: v.x, y: v.y, z: v.z } : null;
}

function copyEnvironmentRef(ref: EnvironmentRef): EnvironmentRef {
  return ref === null || typeof ref === 'string' ? ref : { ...ref };
}

function round4(n: number): number {
  return Math.round(n * 1e4) / 1e4;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
