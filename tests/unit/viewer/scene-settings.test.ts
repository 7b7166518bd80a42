import {
  ACESFilmicToneMapping,
  AgXToneMapping,
  AmbientLight,
  Color,
  DataTexture,
  DirectionalLight,
  FogExp2,
  HalfFloatType,
  Mesh,
  NeutralToneMapping,
  PerspectiveCamera,
  PlaneGeometry,
  RGBAFormat,
  Scene,
  ShadowMaterial,
  Texture,
  Vector3,
  WebGLRenderTarget,
  type WebGLRenderer,
} from 'three';
import { Water } from 'three/examples/jsm/objects/Water.js';
import { hasComponent } from 'bitecs';
import { describe, expect, it, vi } from 'vitest';
import { Light, ShadowFollow, WaterSurface } from '../../../components';
import { createViewerWorld } from '../../../src/engine/world';
import type { EnvironmentEntry } from '../../../src/protocol/environment';
import {
  SCENE_SETTINGS_DEFAULTS,
  SceneSettingsValues,
  SHADOW_CAMERA_HALF_EXTENT,
  SHADOW_MAP_SIZE,
  type EnvironmentRef,
} from '../../../src/protocol/scene-settings';
import type { LoadedEnvironment } from '../../../src/scene/environments';
import {
  applySceneSettings,
  currentEnvironment,
  disposeSceneSettings,
  gradientTexture,
  readSceneSettings,
  type ApplySceneSettingsOptions,
  type SceneSettingsHost,
} from '../../../src/viewer/scene-settings';
import { waterSystem } from '../../../systems/waterSystem';

const DARK_BLUE = 0x0d1b2e;

/** A viewer's render context as createRenderContext makes it, with a stand-in renderer (no WebGL in Node). */
function makeHost(extra: Partial<SceneSettingsHost> = {}) {
  const world = createViewerWorld();
  const scene = new Scene();
  scene.background = new Color(DARK_BLUE);
  const room = new Texture();
  scene.environment = room;
  scene.environmentIntensity = 0.8;
  const camera = new PerspectiveCamera(45, 1.5, 0.1, 2000);
  camera.position.set(0, 2, 10);
  const sun = new DirectionalLight(0xffffff, 1);
  sun.castShadow = true;
  sun.shadow.bias = -0.001;
  const ambient = new AmbientLight(0xffffff, 0.5);
  scene.add(ambient, sun, sun.target);
  const renderer = {
    toneMapping: ACESFilmicToneMapping as number,
    toneMappingExposure: 1,
    setClearColor: vi.fn(),
    capabilities: { maxTextureSize: 16384 },
  };
  world.render.renderer = renderer as unknown as WebGLRenderer;
  world.render.scene = scene;
  world.render.camera = camera;
  const host: SceneSettingsHost = { world, context: { renderer: renderer as unknown as WebGLRenderer, scene, camera, sun, ambient }, ...extra };
  return { host, world, scene, camera, sun, ambient, renderer, room };
}

function fakeEnvironment(entry: EnvironmentEntry): LoadedEnvironment {
  const texture = new DataTexture(new Uint16Array(8 * 4 * 4), 8, 4, RGBAFormat, HalfFloatType);
  const target = new WebGLRenderTarget(4, 4);
  return { entry, texture, target, dispose: vi.fn() };
}

/** Environments by id: the known ones load, anything else fails like a missing file. */
function environmentOptions(known = ['sky_noon', 'studio']): ApplySceneSettingsOptions & { warnings: string[]; loaded: LoadedEnvironment[] } {
  const warnings: string[] = [];
  const loaded: LoadedEnvironment[] = [];
  return {
    warnings,
    loaded,
    onWarning: (m) => warnings.push(m),
    loadTexture: () => new DataTexture(new Uint8Array(4), 1, 1),
    loadEnvironment: async (ref: Exclude<EnvironmentRef, null>) => {
      const id = typeof ref === 'string' ? ref : ref.id;
      if (!known.includes(id)) throw new Error(`/assets/environments/${id}.jpg could not be loaded: HTTP 404.`);
      const env = fakeEnvironment({ id, name: id, path: `${id}.jpg`, format: 'hdrjpeg' });
      loaded.push(env);
      return env;
    },
  };
}

/** Every field, none of them at the viewer's or the config's default. */
const EVERY_FIELD = {
  sunAzimuth: 120,
  sunElevation: 30,
  sunColor: 'ffeedd',
  directionalLightIntensity: 2.5,
  directionalLightShadowCameraBias: -0.0005,
  directionalLightShadowCameraScale: 80,
  ambientLightIntensity: 0.25,
  backgroundType: 'gradient',
  backgroundColor1: '112233',
  backgroundColor2: 'aabbcc',
  backgroundRotation: 45,
  backgroundBlurriness: 0.3,
  environment: 'sky_noon',
  toneMapping: 'agx',
  toneMappingExposure: 1.5,
  perspectiveCameraFov: 60,
  initialCameraPosition: { x: 10, y: 5, z: -3 },
  initialCameraTarget: { x: 1, y: 0.5, z: 2 },
  fogEnabled: true,
  fogDensity: 0.01,
  fogColor: '334455',
  waterEnabled: true,
  waterColor: '004466',
  waterDistortionScale: 5,
  waterSize: 2,
  waterYOffset: -3,
  waterWaveSpeed: 0.5,
  shadowPlaneEnabled: true,
  shadowPlaneY: -1,
  shadowPlaneOpacity: 0.4,
} as const;

function waterOf(scene: Scene): Water | undefined {
  return scene.children.find((o) => o instanceof Water) as Water | undefined;
}

function shadowPlaneOf(scene: Scene): Mesh<PlaneGeometry, ShadowMaterial> | undefined {
  return scene.children.find((o) => o.name === 'Shadow plane') as Mesh<PlaneGeometry, ShadowMaterial> | undefined;
}

describe('applySceneSettings', () => {
  it("reads the viewer's own state before any settings (150 half-extent, ambient 0.5, intensity 1, bias -0.001)", () => {
    const { host, sun } = makeHost();
    const values = readSceneSettings(host);
    expect(values).toEqual({
      ...SCENE_SETTINGS_DEFAULTS,
      backgroundColor1: '0d1b2e',
      directionalLightShadowCameraScale: SHADOW_CAMERA_HALF_EXTENT,
    });
    expect(values.ambientLightIntensity).toBe(0.5);
    expect(values.directionalLightIntensity).toBe(1);
    expect(values.directionalLightShadowCameraBias).toBe(-0.001);
    // The sun became an entity with the 4192 x 4192 shadow map.
    expect(sun.shadow.mapSize.toArray()).toEqual([SHADOW_MAP_SIZE, SHADOW_MAP_SIZE]);
    expect(hasComponent(host.world, sun.userData.eid, Light)).toBe(true);
  });

  it('clamps the shadow map to the GPU maximum texture size', () => {
    const { host, sun, renderer } = makeHost();
    renderer.capabilities.maxTextureSize = 4096;
    readSceneSettings(host);
    expect(sun.shadow.mapSize.toArray()).toEqual([4096, 4096]);
  });

  it('applies every setting and reads back what was applied', async () => {
    const { host, world, scene, camera, sun, ambient, renderer } = makeHost();
    const options = environmentOptions();
    const values = await applySceneSettings(host, EVERY_FIELD, options);
    expect(values).toEqual(SceneSettingsValues.parse(EVERY_FIELD));
    expect(readSceneSettings(host)).toEqual(values);
    expect(options.warnings).toEqual([]);

    const eid = sun.userData.eid as number;
    const d = ShadowFollow.direction.subarray(eid * 3, eid * 3 + 3);
    const a = (120 * Math.PI) / 180, e = (30 * Math.PI) / 180;
    expect(d[0]).toBeCloseTo(Math.cos(e) * Math.sin(a), 6);
    expect(d[1]).toBeCloseTo(Math.sin(e), 6);
    expect(d[2]).toBeCloseTo(Math.cos(e) * Math.cos(a), 6);
    expect(sun.color.getHexString()).toBe('ffeedd');
    expect(sun.intensity).toBe(2.5);
    expect(sun.shadow.bias).toBe(-0.0005);
    expect(ShadowFollow.halfExtent[eid]).toBe(80);
    expect(ambient.intensity).toBe(0.25);
    expect(renderer.toneMapping).toBe(AgXToneMapping);
    expect(renderer.toneMappingExposure).toBe(2 ** 1.5);
    expect(camera.fov).toBe(60);
    expect(camera.position.toArray()).toEqual([10, 5, -3]);
    const forward = camera.getWorldDirection(new Vector3());
    const toTarget = new Vector3(1, 0.5, 2).sub(camera.position).normalize();
    expect(forward.dot(toTarget)).toBeCloseTo(1, 6);
    expect(scene.fog).toBeInstanceOf(FogExp2);
    expect((scene.fog as FogExp2).density).toBe(0.01);
    expect((scene.fog as FogExp2).color.getHexString()).toBe('334455');
    expect(scene.background).toBeInstanceOf(DataTexture);
    expect(scene.backgroundBlurriness).toBe(0.3);
    expect(scene.environment).toBe(options.loaded[0].target.texture);
    expect(scene.environmentIntensity).toBe(1);

    const water = waterOf(scene)!;
    expect(water.material.uniforms.waterColor.value.getHexString()).toBe('004466');
    expect(water.material.uniforms.distortionScale.value).toBe(5);
    expect(water.material.uniforms.size.value).toBe(2);
    expect(water.position.y).toBe(-3);
    expect(WaterSurface.speed[water.userData.eid]).toBe(0.5);
    expect((water.material.uniforms.sunDirection.value as Vector3).toArray().map((x) => +x.toFixed(6))).toEqual([...d].map((x) => +x.toFixed(6)));
    expect(water.material.uniforms.sunColor.value.getHexString()).toBe('ffeedd');

    const plane = shadowPlaneOf(scene)!;
    expect(plane.position.y).toBe(-1);
    expect(plane.material).toBeInstanceOf(ShadowMaterial);
    expect(plane.material.opacity).toBe(0.4);
    expect(plane.receiveShadow).toBe(true);
    expect(world.render.needsRender).toBe(true);
  });

  it('applies only the fields present', async () => {
    const { host, scene, sun, renderer, camera } = makeHost();
    const before = readSceneSettings(host);
    const background = scene.background;
    const after = await applySceneSettings(host, { ambientLightIntensity: 0.7 });
    expect(after).toEqual({ ...before, ambientLightIntensity: 0.7 });
    expect(scene.background).toBe(background);
    expect((scene.background as Color).getHex()).toBe(DARK_BLUE);
    expect(sun.color.getHex()).toBe(0xffffff);
    expect(renderer.toneMappingExposure).toBe(1);
    expect(camera.fov).toBe(45);
    expect(scene.fog).toBeNull();
    expect(waterOf(scene)).toBeUndefined();
    // An empty object or none at all changes nothing.
    expect(await applySceneSettings(host, {})).toEqual(after);
    expect(await applySceneSettings(host, undefined)).toEqual(after);
  });

  it('water turned off while its code still loads is never made; turned on twice, it is made once', async () => {
    const { host, scene } = makeHost();
    const options = environmentOptions();
    const on = applySceneSettings(host, { waterEnabled: true }, options);
    const off = applySceneSettings(host, { waterEnabled: false }, options);
    await Promise.all([on, off]);
    expect(waterOf(scene)).toBeUndefined();
    expect(readSceneSettings(host).waterEnabled).toBe(false);
    await Promise.all([applySceneSettings(host, { waterEnabled: true }, options), applySceneSettings(host, { waterEnabled: true, waterColor: '112233' }, options)]);
    expect(scene.children.filter((o) => o instanceof Water)).toHaveLength(1);
    expect(options.warnings).toEqual([]);
    expect(waterOf(scene)!.material.uniforms.waterColor.value.getHexString()).toBe('112233');
  });

  it('water whose code arrives after the settings were disposed (the viewer closed) is not made', async () => {
    const { host, scene } = makeHost();
    const on = applySceneSettings(host, { waterEnabled: true }, environmentOptions());
    disposeSceneSettings(host);
    await on;
    expect(scene.children.filter((o) => o instanceof Water)).toHaveLength(0);
  });

  it('keeps earlier settings when later ones name other fields', async () => {
    const { host } = makeHost();
    await applySceneSettings(host, { sunAzimuth: 200, fogEnabled: true });
    const values = await applySceneSettings(host, { sunElevation: 10, fogDensity: 0.05 });
    expect(values).toMatchObject({ sunAzimuth: 200, sunElevation: 10, fogEnabled: true, fogDensity: 0.05 });
  });

  it.each([-2, -0.5, 0, 1, 3])('sets the exposure to 2 to the power of %s', async (value) => {
    const { host, renderer } = makeHost();
    await applySceneSettings(host, { toneMappingExposure: value });
    expect(renderer.toneMappingExposure).toBe(2 ** value);
    expect(readSceneSettings(host).toneMappingExposure).toBe(value);
  });

  it('takes three.js tone mapping constants and colours in any usual form, and reads them back normalised', async () => {
    const { host, renderer, sun } = makeHost();
    const values = await applySceneSettings(host, { toneMapping: NeutralToneMapping, sunColor: '#ABC', fogColor: 0x102030, initialCameraPosition: [1, 2, 3] });
    expect(renderer.toneMapping).toBe(NeutralToneMapping);
    expect(values.toneMapping).toBe('neutral');
    expect(values.sunColor).toBe('aabbcc');
    expect(sun.color.getHexString()).toBe('aabbcc');
    expect(values.fogColor).toBe('102030');
    expect(values.initialCameraPosition).toEqual({ x: 1, y: 2, z: 3 });
  });

  it('refuses invalid settings naming the fields, and ignores unknown fields', async () => {
    const { host } = makeHost();
    await expect(applySceneSettings(host, { sunColor: 'red', shadowPlaneOpacity: 2 })).rejects.toThrow(/The scene settings are not valid: sunColor: .*; shadowPlaneOpacity/);
    await expect(applySceneSettings(host, { backgroundType: 'image' })).rejects.toThrow(/backgroundType/);
    const before = readSceneSettings(host);
    expect(await applySceneSettings(host, { somethingElse: 1 })).toEqual(before);
  });

  it('places the camera through the navigation when there is one', async () => {
    const navigation = { setLookAt: vi.fn() };
    const { host } = makeHost({ navigation });
    // The view pose as the navigation wrote it: the current target (where a move ends).
    host.world.view.targetEnd.set(0, -2, 1);
    host.world.view.version++;
    await applySceneSettings(host, { initialCameraPosition: { x: 3, y: 4, z: 5 }, initialCameraTarget: { x: 0, y: 1, z: 0 } });
    expect(navigation.setLookAt).toHaveBeenCalledWith(3, 4, 5, 0, 1, 0, false);
    // A position alone keeps the current target.
    await applySceneSettings(host, { initialCameraTarget: null });
    await applySceneSettings(host, { initialCameraPosition: { x: 7, y: 7, z: 7 } });
    expect(navigation.setLookAt).toHaveBeenLastCalledWith(7, 7, 7, 0, -2, 1, false);
  });
});

describe('background and environment', () => {
  it('color: the background colour', async () => {
    const { host, scene } = makeHost();
    await applySceneSettings(host, { backgroundType: 'color', backgroundColor1: 'ececec' });
    expect((scene.background as Color).getHexString()).toBe('ececec');
  });

  it('transparent: no background and a clear alpha of 0; back to colour after', async () => {
    const { host, scene, renderer } = makeHost();
    await applySceneSettings(host, { backgroundType: 'transparent' });
    expect(scene.background).toBeNull();
    expect(renderer.setClearColor).toHaveBeenCalledWith(0x000000, 0);
    await applySceneSettings(host, { backgroundType: 'color' });
    expect((scene.background as Color).getHex()).toBe(DARK_BLUE);
  });

  it('gradient: colour 1 at the top and colour 2 at the bottom, turned by the rotation', async () => {
    const { host, scene } = makeHost();
    await applySceneSettings(host, { backgroundType: 'gradient', backgroundColor1: 'ff0000', backgroundColor2: '0000ff' });
    const texture = scene.background as DataTexture;
    const { data, width, height } = texture.image as { data: Uint8Array; width: number; height: number };
    const at = (x: number, y: number) => [...data.subarray((y * width + x) * 4, (y * width + x) * 4 + 3)];
    // Rows run bottom-up (v up): the top row is red, the bottom row blue.
    expect(at(width / 2, height - 1)[0]).toBeGreaterThan(240);
    expect(at(width / 2, 0)[2]).toBeGreaterThan(240);
    const turned = gradientTexture('ff0000', '0000ff', 90, 16).image as { data: Uint8Array };
    // Turned a quarter clockwise: colour 1 on the right, colour 2 on the left.
    expect(turned.data[(8 * 16 + 15) * 4]).toBeGreaterThan(240);
    expect(turned.data[(8 * 16 + 0) * 4 + 2]).toBeGreaterThan(240);
    // The same gradient is not rebuilt; a new colour makes a new texture.
    await applySceneSettings(host, { backgroundRotation: 0 });
    expect(scene.background).toBe(texture);
    await applySceneSettings(host, { backgroundColor2: '00ff00' });
    expect(scene.background).not.toBe(texture);
  });

  it('environment as background with no environment loaded changes nothing', async () => {
    const { host, scene } = makeHost();
    const background = scene.background;
    const values = await applySceneSettings(host, { backgroundType: 'environment' });
    expect(values.backgroundType).toBe('color');
    expect(scene.background).toBe(background);
  });

  it('environment as background shows the loaded environment, blurred as set', async () => {
    const { host, scene } = makeHost();
    const options = environmentOptions();
    const values = await applySceneSettings(host, { environment: 'sky_noon', backgroundType: 'environment', backgroundBlurriness: 0.5 }, options);
    expect(values.backgroundType).toBe('environment');
    expect(scene.background).toBe(options.loaded[0].texture);
    expect(scene.backgroundBlurriness).toBe(0.5);
    expect(currentEnvironment(host)).toBe(options.loaded[0]);
  });

  it('removing the environment while it is the background reverts to colour and to the room lighting', async () => {
    const { host, scene, room } = makeHost();
    const options = environmentOptions();
    await applySceneSettings(host, { environment: 'studio', backgroundType: 'environment' }, options);
    const values = await applySceneSettings(host, { environment: null }, options);
    expect(values.environment).toBeNull();
    expect(values.backgroundType).toBe('color');
    expect(scene.background).toBeInstanceOf(Color);
    expect(scene.environment).toBe(room);
    expect(scene.environmentIntensity).toBe(0.8);
    expect(options.loaded[0].dispose).toHaveBeenCalled();
  });

  it('a new environment replaces the old one (disposed); the same one is not loaded again', async () => {
    const { host, scene } = makeHost();
    const options = environmentOptions();
    await applySceneSettings(host, { environment: 'studio' }, options);
    await applySceneSettings(host, { environment: 'studio' }, options);
    expect(options.loaded).toHaveLength(1);
    await applySceneSettings(host, { environment: 'sky_noon' }, options);
    expect(options.loaded).toHaveLength(2);
    expect(options.loaded[0].dispose).toHaveBeenCalled();
    expect(scene.environment).toBe(options.loaded[1].target.texture);
  });

  it('a failed environment load is ignored but reported, and the background falls back', async () => {
    const { host, scene } = makeHost();
    const options = environmentOptions();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const background = scene.background;
      const values = await applySceneSettings(host, { environment: 'missing', backgroundType: 'environment', ambientLightIntensity: 0.3 }, options);
      expect(options.warnings).toEqual(["The environment 'missing' could not be loaded, so it is left out: /assets/environments/missing.jpg could not be loaded: HTTP 404."]);
      expect(errors).toHaveBeenCalledWith(options.warnings[0], expect.any(Error));
      // Ignored: no environment, the colour background stays, the other fields still apply.
      expect(values.environment).toBeNull();
      expect(values.backgroundType).toBe('color');
      expect(scene.background).toBe(background);
      expect(values.ambientLightIntensity).toBe(0.3);
    } finally {
      // Restored even when an expectation fails: the file shares its worker with others.
      errors.mockRestore();
    }
  });

  it('a failed load keeps the environment that was there', async () => {
    const { host, scene } = makeHost();
    const options = environmentOptions();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await applySceneSettings(host, { environment: 'studio', backgroundType: 'environment' }, options);
      const values = await applySceneSettings(host, { environment: 'missing' }, options);
      expect(values.environment).toBe('studio');
      expect(values.backgroundType).toBe('environment');
      expect(scene.background).toBe(options.loaded[0].texture);
    } finally {
      errors.mockRestore();
    }
  });
});

describe('water', () => {
  it('is created when enabled with the specification defaults, animated by the water system, and removed when disabled', async () => {
    const { host, world, scene } = makeHost();
    const options = environmentOptions();
    await applySceneSettings(host, { waterEnabled: true }, options);
    const water = waterOf(scene)!;
    expect(water).toBeInstanceOf(Water);
    const geometry = water.geometry as PlaneGeometry;
    expect([geometry.parameters.width, geometry.parameters.height]).toEqual([10000, 10000]);
    expect(water.material.uniforms.mirrorSampler.value.image.width).toBe(512);
    expect(water.material.uniforms.distortionScale.value).toBe(3.7);
    expect(water.material.uniforms.size.value).toBe(1);
    expect(water.position.y).toBe(-5);
    expect(water.material.uniforms.waterColor.value.getHexString()).toBe('001e0f');
    expect(water.material.uniforms.normalSampler.value).toBeInstanceOf(Texture);
    const eid = water.userData.eid as number;
    expect(world.objects[eid]).toBe(water);
    expect(WaterSurface.speed[eid]).toBe(1);

    world.time.delta = 0.5;
    world.render.needsRender = false;
    waterSystem(world);
    expect(water.material.uniforms.time.value).toBeCloseTo(0.5, 6);
    // A picture, not a changed scene: the waves cast no shadow, the shadow maps are kept.
    expect(world.render.needsPicture).toBe(true);
    expect(world.render.needsRender).toBe(false);
    await applySceneSettings(host, { waterWaveSpeed: 2 });
    waterSystem(world);
    expect(water.material.uniforms.time.value).toBeCloseTo(1.5, 6);

    const disposeGeometry = vi.spyOn(water.geometry, 'dispose');
    const disposeMaterial = vi.spyOn(water.material, 'dispose');
    await applySceneSettings(host, { waterEnabled: false });
    expect(waterOf(scene)).toBeUndefined();
    expect(world.objects[eid]).toBeUndefined();
    expect(disposeGeometry).toHaveBeenCalled();
    expect(disposeMaterial).toHaveBeenCalled();
    // The water system has nothing to do now.
    world.render.needsRender = false;
    world.render.needsPicture = false;
    waterSystem(world);
    expect(world.render).toMatchObject({ needsRender: false, needsPicture: false });
    // Enabled again: a new surface, keeping the settings.
    await applySceneSettings(host, { waterEnabled: true }, options);
    const again = waterOf(scene)!;
    expect(again).not.toBe(water);
    expect(WaterSurface.speed[again.userData.eid]).toBe(2);
  });

  it('changing water fields while it is off only records them', async () => {
    const { host, scene } = makeHost();
    const values = await applySceneSettings(host, { waterColor: '123456' });
    expect(values.waterColor).toBe('123456');
    expect(waterOf(scene)).toBeUndefined();
  });
});

describe('shadow plane', () => {
  it('is a 2000 x 2000 shadow-receiving plane of opacity 0.2 at y, removed when disabled', async () => {
    const { host, scene } = makeHost();
    await applySceneSettings(host, { shadowPlaneEnabled: true, shadowPlaneY: 0.5 });
    const plane = shadowPlaneOf(scene)!;
    expect([plane.geometry.parameters.width, plane.geometry.parameters.height]).toEqual([2000, 2000]);
    expect(plane.material.opacity).toBe(0.2);
    expect(plane.position.y).toBe(0.5);
    expect(plane.rotation.x).toBeCloseTo(-Math.PI / 2, 9);
    await applySceneSettings(host, { shadowPlaneEnabled: false });
    expect(shadowPlaneOf(scene)).toBeUndefined();
  });
});

describe('disposeSceneSettings', () => {
  it('removes the water, the shadow plane and the environment', async () => {
    const { host, scene, room } = makeHost();
    const options = environmentOptions();
    await applySceneSettings(host, { waterEnabled: true, shadowPlaneEnabled: true, environment: 'studio' }, options);
    disposeSceneSettings(host);
    expect(waterOf(scene)).toBeUndefined();
    expect(shadowPlaneOf(scene)).toBeUndefined();
    expect(scene.environment).toBe(room);
    expect(options.loaded[0].dispose).toHaveBeenCalled();
  });
});
