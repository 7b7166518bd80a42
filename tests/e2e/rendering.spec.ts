import { Document, NodeIO, type Buffer as GltfBuffer, type Material, type Node } from '@gltf-transform/core';
import { KHRMaterialsEmissiveStrength } from '@gltf-transform/extensions';
import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RenderConfig, type RenderConfigPatch } from '../../src/protocol/render-config';
import { importModel } from '../../src/server/import';
import { box, sphere, type Geometry } from '../../src/server/demo';
import { canvasPixels, canvasScreenshot, importFilesIntoScene, importIntoScene, MODELS, sceneIdFor, settled, showAlone, store, underLock } from './helpers';
import { PICTURE_AS_DRAWN } from './picture';
import { decodePng, type Picture } from './png';

/**
 * Rendering quality in headless Chromium (SwiftShader): reference pictures of a generated test
 * scene for each quality tier (`?quality=`) and each main effect (ambient occlusion, bloom,
 * vignette, chromatic aberration, SMAA, reflections, tone mapping), compared within a tolerance;
 * each effect shown to change the picture where it should and to leave no trace when turned off
 * again; the saved render config applied from the scene and read back; helpers (layer 15) kept
 * out of the effects.
 *
 * References live in tests/e2e/references/. After a deliberate change to the picture, regenerate
 * them and look at every one before committing:
 *
 *   UPDATE_REFERENCES=1 CHROMIUM_PATH=/usr/bin/chromium npx playwright test tests/e2e/rendering.spec.ts
 *
 * A picture matches its reference when at most MAX_DIFFERING_SHARE of its pixels differ by more
 * than PIXEL_TOLERANCE in some channel (SwiftShader is deterministic on one machine; the margin
 * covers other CPUs).
 */

const REFERENCES = join(import.meta.dirname, 'references');
const UPDATE = process.env.UPDATE_REFERENCES === '1';
const VIEWPORT = { width: 480, height: 320 };
/** A channel difference above this (of 255) makes a pixel differ. */
const PIXEL_TOLERANCE = 24;
/** Share of differing pixels a match allows. */
const MAX_DIFFERING_SHARE = 0.01;
const SCENE = 'rendering-test';

// Judged against reference pictures: drawn as a visitor's browser draws (tests/e2e/picture.ts).
test.use({ viewport: VIEWPORT, ...PICTURE_AS_DRAWN });

// ---- the test scene ------------------------------------------------------------------------

/** A node with one indexed mesh of `geometry` (positions, normals, uvs) drawn with `material`. */
function meshNode(doc: Document, buffer: GltfBuffer, name: string, geometry: Geometry, material: Material): Node {
  const accessor = (type: 'VEC3' | 'VEC2' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(geometry.positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(geometry.normals)))
    .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array(geometry.uvs)))
    .setIndices(accessor('SCALAR', new Uint32Array(geometry.indices)))
    .setMaterial(material);
  return doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(primitive));
}

/**
 * A floor with, on it: a tall box (AO in its corners, a reflection on the floor), a box turned
 * 30 degrees (long diagonal edges for SMAA), a sphere touching the floor (a contact crease) and a
 * small very bright emissive sphere (emissive strength 8: bloom).
 */
async function buildTestScene(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const emissiveStrength = doc.createExtension(KHRMaterialsEmissiveStrength);
  const material = (name: string, color: [number, number, number], roughness: number, metallic = 0): Material =>
    doc.createMaterial(name).setBaseColorFactor([...color, 1]).setRoughnessFactor(roughness).setMetallicFactor(metallic);
  const addMesh = (name: string, geometry: Geometry, mat: Material, translation: [number, number, number] = [0, 0, 0], rotation: [number, number, number, number] = [0, 0, 0, 1]) =>
    meshNode(doc, buffer, name, geometry, mat).setTranslation(translation).setRotation(rotation);
  const glow = material('Glow', [1, 0.9, 0.6], 0.5);
  glow.setEmissiveFactor([1, 0.8, 0.4]).setExtension('KHR_materials_emissive_strength', emissiveStrength.createEmissiveStrength().setEmissiveStrength(8));
  const turn = Math.sin(Math.PI / 12);
  const root = doc
    .createNode('Test scene')
    .addChild(addMesh('Floor', box([6, 0.1, 4], [0, -0.05, 0]), material('Floor', [0.45, 0.45, 0.45], 0.35)))
    .addChild(addMesh('Tower', box([0.8, 1.6, 0.8], [0, 0.8, 0]), material('Tower', [0.8, 0.15, 0.1], 0.6), [-1.4, 0, -0.4]))
    .addChild(addMesh('Turned box', box([1.4, 0.6, 0.8], [0, 0.3, 0]), material('Turned', [0.15, 0.35, 0.8], 0.5), [0.4, 0, -0.7], [0, turn, 0, Math.cos(Math.PI / 12)]))
    .addChild(addMesh('Ball', sphere(0.5, [0, 0.5, 0], 32, 24), material('Ball', [0.9, 0.85, 0.3], 0.4), [1.7, 0, 0.5]))
    .addChild(addMesh('Lamp', sphere(0.15, [0, 0, 0], 16, 12), glow, [-0.3, 0.4, 0.9]));
  doc.createScene('Test scene').addChild(root);
  return new NodeIO().registerExtensions([KHRMaterialsEmissiveStrength]).writeBinary(doc);
}

/** The test scene as `sceneId` (with a saved render config, if given); once, whichever worker asks first. */
async function ensureScene(sceneId: string, postprocessing?: unknown): Promise<void> {
  const s = await store();
  if (await s.getScene(sceneId)) return;
  await underLock(`scene-${sceneId}`, async () => {
    if (await s.getScene(sceneId)) return;
    const { scene } = await importModel(s, { bytes: await buildTestScene(), fileName: 'rendering-test.glb' }, { sceneId, name: sceneId });
    if (postprocessing !== undefined) await s.putScene({ ...scene, viewerConfig: { ...scene.viewerConfig, postprocessing: postprocessing as Record<string, unknown> } });
  });
}

// ---- pictures ------------------------------------------------------------------------------

const luminance = (d: Uint8Array, i: number) => 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];

interface Diff {
  /** Share of pixels differing by more than PIXEL_TOLERANCE in some channel. */
  share: number;
  /** Mask of those pixels (1 = differs). */
  mask: Uint8Array;
  /** Sum over all pixels of the luminance change b - a, divided by the pixel count. */
  meanLuminanceChange: number;
  /** Largest difference of each channel. */
  maxChannel: [number, number, number];
  /** Sum of the absolute differences of each channel. */
  sumChannel: [number, number, number];
}

function diff(a: Picture, b: Picture): Diff {
  expect(b.width, 'picture size').toBe(a.width);
  expect(b.height, 'picture size').toBe(a.height);
  const n = a.width * a.height;
  const mask = new Uint8Array(n);
  let count = 0;
  let lum = 0;
  const maxChannel: [number, number, number] = [0, 0, 0];
  const sumChannel: [number, number, number] = [0, 0, 0];
  for (let p = 0; p < n; p++) {
    const i = p * 4;
    let m = 0;
    for (let k = 0; k < 3; k++) {
      const d = Math.abs(a.data[i + k] - b.data[i + k]);
      sumChannel[k] += d;
      if (d > maxChannel[k]) maxChannel[k] = d;
      if (d > m) m = d;
    }
    if (m > PIXEL_TOLERANCE) {
      mask[p] = 1;
      count++;
    }
    lum += luminance(b.data, i) - luminance(a.data, i);
  }
  return { share: count / n, mask, meanLuminanceChange: lum / n, maxChannel, sumChannel };
}

/** Pixels of the background colour (the most common colour) of a picture. */
function backgroundMask(p: Picture): Uint8Array {
  const counts = new Map<number, number>();
  for (let i = 0; i < p.data.length; i += 4) {
    const key = (p.data[i] << 16) | (p.data[i + 1] << 8) | p.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const bg = [...counts.entries()].sort((x, y) => y[1] - x[1])[0][0];
  const mask = new Uint8Array(p.width * p.height);
  for (let i = 0; i < p.data.length; i += 4) {
    const key = (p.data[i] << 16) | (p.data[i + 1] << 8) | p.data[i + 2];
    mask[i / 4] = key === bg ? 1 : 0;
  }
  return mask;
}

function countWhere(mask: Uint8Array, where: (index: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] && where(i)) n++;
  return n;
}

function meanLuminanceIn(p: Picture, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) sum += luminance(p.data, (y * p.width + x) * 4);
  return sum / ((x1 - x0) * (y1 - y0));
}

/** Compares with tests/e2e/references/NAME.png, or writes it with UPDATE_REFERENCES=1. */
function expectReference(picture: Picture, name: string): void {
  const file = join(REFERENCES, `${name}.png`);
  if (UPDATE) {
    mkdirSync(REFERENCES, { recursive: true });
    writeFileSync(file, picture.png);
    return;
  }
  expect(existsSync(file), `reference ${name}.png is missing: run with UPDATE_REFERENCES=1 and look at it`).toBe(true);
  const d = diff(decodePng(readFileSync(file)), picture);
  if (d.share > MAX_DIFFERING_SHARE) {
    mkdirSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering'), { recursive: true });
    writeFileSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering', `${name}.actual.png`), picture.png);
  }
  expect(d.share, `${name}: share of pixels differing from the reference (actual picture in test-results/rendering/)`).toBeLessThanOrEqual(MAX_DIFFERING_SHARE);
}

// ---- the page ------------------------------------------------------------------------------

async function open(page: Page, query: string, sceneId = SCENE): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/embed/${sceneId}?uiWatermark=false&${query}`);
  expect(await settled(page)).toBe('ready');
  expect(errors).toEqual([]);
}

/** Draws until the picture is complete (shaders compiled, SMAA's lookup images loaded, nothing pending). */
async function drawn(page: Page): Promise<void> {
  // Polled with page.evaluate, which awaits the check: page.waitForFunction takes the promise an
  // async check returns for a truthy answer and returned at once (it did here until 2026-11-27).
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          const v = (window as any).__viewer.viewer;
          await v.nextFrame();
          await v.nextFrame();
          let smaaReady = true;
          try {
            smaaReady = v.postprocessing.effects.smaa.weightsMaterial.searchTexture !== null;
          } catch {
            /* no post-processing */
          }
          // Settled: nothing asked for a picture, and the shadows' arrival after the first picture
          // is over (its 200 ms wait asks for none).
          return smaaReady && !v.world.render.needsRender && !v.world.render.needsPicture && v.world.shadows.reveal.phase === 0;
        }),
      { timeout: 60_000, intervals: [100] },
    )
    .toBe(true);
}

async function picture(page: Page): Promise<Picture> {
  await drawn(page);
  return decodePng(await canvasScreenshot(page));
}

async function configure(page: Page, patch: RenderConfigPatch): Promise<void> {
  await page.evaluate((p) => (window as any).__viewer.viewer.setRenderConfig(p), patch);
}

/** Everything off (tone mapping aside): the picture each effect is compared against. */
const ALL_OFF: RenderConfigPatch & Required<Pick<RenderConfigPatch, 'smaa' | 'ssao' | 'bloom' | 'chromaticAberration' | 'vignette' | 'ssr'>> = {
  multisampling: 0,
  smaa: { enabled: false },
  ssao: { enabled: false },
  bloom: { enabled: false },
  chromaticAberration: { enabled: false },
  vignette: { enabled: false },
  ssr: { enabled: false },
};

// ---- tests ---------------------------------------------------------------------------------

test.beforeAll(async () => {
  await ensureScene(SCENE);
});


test('each quality tier: settings, reference picture, post-processing only above low', async ({ page }) => {
  test.setTimeout(240_000);
  const pictures: Record<string, Picture> = {};
  for (const tier of ['low', 'medium', 'high'] as const) {
    await open(page, `quality=${tier}`);
    const q = await page.evaluate(() => (window as any).__viewer.viewer.quality);
    expect(q.forced).toBe(true);
    expect(q.settings).toEqual({
      tier,
      pixelRatio: tier === 'medium' ? 1.5 : 1,
      antialias: tier === 'low',
      postProcessing: tier !== 'low',
      environmentSize: tier === 'low' ? 128 : 256,
      textureLimit: tier === 'low' ? 1024 : null,
      shadowMapSize: { low: 1024, medium: 2048, high: 4192 }[tier],
      pointLightShadows: tier !== 'low',
    });
    const canvas = await page.getByTestId('viewer-canvas').evaluate((c: HTMLCanvasElement) => ({ width: c.width, height: c.height, aa: (c.getContext('webgl2') as WebGL2RenderingContext).getContextAttributes()!.antialias }));
    expect(canvas).toEqual({ width: VIEWPORT.width * q.settings.pixelRatio, height: VIEWPORT.height * q.settings.pixelRatio, aa: tier === 'low' });
    if (tier === 'low') {
      const error = await page.evaluate(() => {
        try {
          (window as any).__viewer.viewer.getRenderConfig();
          return null;
        } catch (e) {
          return (e as Error).message;
        }
      });
      expect(error).toBe('Custom effects not initialized!');
    } else {
      const passes = await page.evaluate(() => (window as any).__viewer.viewer.postprocessing.passes());
      expect(passes.names).toEqual(['RenderPass', 'N8AOPostPass', 'EffectPass(SMAAEffect, BloomEffect, ToneMappingEffect)']);
    }
    pictures[tier] = await picture(page);
    expectReference(pictures[tier], `tier-${tier}`);
  }
  // Post-processing changes the picture; medium and high differ in resolution and AO resolution.
  expect(diff(pictures.low, pictures.high).share).toBeGreaterThan(0.003);
  expect(diff(pictures.medium, pictures.high).share).toBeGreaterThan(0.002);
  // The background keeps its colour with post-processing (it is not tone mapped).
  const bg = (p: Picture) => Array.from(p.data.subarray(0, 3));
  expect(bg(pictures.high)).toEqual(bg(pictures.low));
});

test('each effect changes the picture where it should, and leaves no trace when off again', async ({ page }) => {
  test.setTimeout(300_000);
  await open(page, 'quality=high');
  await configure(page, ALL_OFF);
  const base = await picture(page);
  expectReference(base, 'effects-baseline');
  const background = backgroundMask(base);
  const { width, height } = base;
  const isBackground = (i: number) => background[i] === 1;

  const effectOn = async (name: string, patch: RenderConfigPatch, off: RenderConfigPatch): Promise<{ on: Picture; d: Diff }> => {
    await configure(page, patch);
    const on = await picture(page);
    expectReference(on, `effect-${name}`);
    const d = diff(base, on);
    await configure(page, off);
    const again = await picture(page);
    expect(diff(base, again).share, `${name} off again equals the baseline`).toBeLessThanOrEqual(MAX_DIFFERING_SHARE);
    return { on, d };
  };

  await test.step('ambient occlusion darkens the model, not the background', async () => {
    const { d } = await effectOn('ao', { ssao: { enabled: true } }, { ssao: { enabled: false } });
    expect(d.share).toBeGreaterThan(0.005);
    expect(d.meanLuminanceChange).toBeLessThan(0);
    expect(countWhere(d.mask, isBackground) / (d.share * width * height)).toBeLessThan(0.05);
  });

  await test.step('bloom brightens the lamp and spills into its surroundings', async () => {
    const { d } = await effectOn('bloom', { bloom: { enabled: true } }, { bloom: { enabled: false } });
    expect(d.share).toBeGreaterThan(0.002);
    expect(d.meanLuminanceChange).toBeGreaterThan(0);
    // The glow reaches pixels that were background.
    expect(countWhere(d.mask, isBackground)).toBeGreaterThan(0);
  });

  await test.step('vignette darkens the corners and leaves the centre', async () => {
    const { on } = await effectOn('vignette', { vignette: { enabled: true } }, { vignette: { enabled: false } });
    const c = 40;
    const corners = (p: Picture) => (meanLuminanceIn(p, 0, 0, c, c) + meanLuminanceIn(p, width - c, 0, width, c) + meanLuminanceIn(p, 0, height - c, c, height) + meanLuminanceIn(p, width - c, height - c, width, height)) / 4;
    expect(corners(on)).toBeLessThan(corners(base) * 0.85);
    const centre = (p: Picture) => meanLuminanceIn(p, width / 2 - 30, height / 2 - 20, width / 2 + 30, height / 2 + 20);
    expect(Math.abs(centre(on) - centre(base))).toBeLessThan(3);
  });

  await test.step('chromatic aberration shifts red and blue at edges, much less green', async () => {
    const { d } = await effectOn('chromatic-aberration', { chromaticAberration: { enabled: true, offset: [0.004, 0.003] } }, { chromaticAberration: { enabled: false } });
    expect(d.share).toBeGreaterThan(0.002);
    expect(d.share).toBeLessThan(0.2);
    // The effect keeps green; only the tone mapping after it (ACES mixes channels) moves it a little.
    expect(d.sumChannel[1], 'green changes far less than red and blue').toBeLessThan(0.5 * Math.min(d.sumChannel[0], d.sumChannel[2]));
    expect(Math.max(d.maxChannel[0], d.maxChannel[2])).toBeGreaterThan(PIXEL_TOLERANCE);
  });

  await test.step('SMAA changes only pixels at edges', async () => {
    const { d } = await effectOn('smaa', { smaa: { enabled: true } }, { smaa: { enabled: false } });
    const changed = d.share * width * height;
    expect(changed).toBeGreaterThan(50);
    expect(d.share).toBeLessThan(0.05);
    // An edge: a neighbour within 1 pixel differs strongly in the baseline.
    const edge = (i: number) => {
      const x = i % width;
      const y = Math.floor(i / width);
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          if (Math.abs(luminance(base.data, i * 4) - luminance(base.data, (ny * width + nx) * 4)) > 20) return true;
        }
      return false;
    };
    expect(countWhere(d.mask, edge) / changed).toBeGreaterThan(0.9);
  });

  await test.step('reflections appear on the floor below the objects, never on the background', async () => {
    const { d } = await effectOn('ssr', { ssr: { enabled: true, intensity: 1 } }, { ssr: { enabled: false, intensity: 0.6 } });
    const changed = d.share * width * height;
    expect(changed).toBeGreaterThan(100);
    expect(countWhere(d.mask, isBackground)).toBe(0);
    expect(countWhere(d.mask, (i) => Math.floor(i / width) > height * 0.45) / changed).toBeGreaterThan(0.7);
  });

  await test.step('tone mapping changes the model, not the colour background', async () => {
    const { d } = await effectOn('tone-mapping-off', { toneMapping: { enabled: false } }, { toneMapping: { enabled: true } });
    expect(d.share).toBeGreaterThan(0.01);
    expect(countWhere(d.mask, isBackground)).toBe(0);
  });
});

test('the full stack: every effect on in three EffectPasses', async ({ page }) => {
  await open(page, 'quality=high');
  const passes = await page.evaluate(() => {
    const v = (window as any).__viewer.viewer;
    v.setRenderConfig({ multisampling: 4, ssr: { enabled: true }, chromaticAberration: { enabled: true }, vignette: { enabled: true } });
    return v.postprocessing.passes();
  });
  expect(passes.names).toEqual([
    'RenderPass',
    'N8AOPostPass',
    'EffectPass(ReflectionEffect, BloomEffect, ToneMappingEffect)',
    'EffectPass(SMAAEffect)',
    'EffectPass(ChromaticAberrationEffect, VignetteEffect)',
  ]);
  expect(passes.fullScreen).toBe(4);
  const full = await picture(page);
  expectReference(full, 'full-stack');
});

test('the saved render config of the scene is applied on load and reads back the same', async ({ page }) => {
  const saved = { vignette: { enabled: true, darkness: 0.8 }, ssao: { quality: 4 }, bloom: { kernelSize: 'small', intensity: 2 }, toneMapping: { mode: 'agx' }, smaa: { edgeDetectionMode: 'luma' } };
  await ensureScene('rendering-saved-config', saved);
  await open(page, 'quality=medium', 'rendering-saved-config');
  const back = await page.evaluate(() => (window as any).__viewer.viewer.getRenderConfig());
  expect(back).toEqual(RenderConfig.parse(saved));
  // What was read back, saved and applied again, reads back the same.
  const again = await page.evaluate((c) => {
    const v = (window as any).__viewer.viewer;
    v.postprocessing.setConfig(c);
    return v.getRenderConfig();
  }, back);
  expect(again).toEqual(back);
});

test('an invalid saved render config fails the scene with the reason', async ({ page }) => {
  await ensureScene('rendering-bad-config', { smaa: { searchSteps: 'many' } });
  await page.goto('/embed/rendering-bad-config?quality=high');
  expect(await settled(page)).toBe('failed');
  await expect(page.getByTestId('failure-overlay')).toContainText('Failed to load the scene.');
  await expect(page.getByTestId('failure-overlay')).toContainText('smaa.searchSteps');
});

test('helpers on layer 15 get no bloom or ambient occlusion, and models still hide them', async ({ page }) => {
  await open(page, 'quality=high');
  await configure(page, { ...ALL_OFF, bloom: { enabled: true, intensity: 3, threshold: 0.5 }, ssao: { enabled: true } });
  const without = await picture(page);
  // A very bright copy of the lamp on the helper layer, in front of the floor: on the scene layer
  // it would glow; as a helper it must be drawn crisp, exactly as without post-processing.
  await page.evaluate(() => {
    const v = (window as any).__viewer.viewer;
    let lamp: any = null;
    v.context.scene.traverse((o: any) => {
      if (o.isMesh && o.material?.name === 'Glow') lamp = o;
    });
    const helper = lamp.clone();
    helper.material = lamp.material.clone();
    helper.material.emissiveIntensity = 50;
    helper.layers.set(15);
    helper.matrixAutoUpdate = true;
    helper.matrixWorldAutoUpdate = true;
    lamp.parent.add(helper);
    helper.position.x += 1.2;
    helper.scale.setScalar(2);
    helper.updateMatrixWorld(true);
    (window as any).__helper = helper;
    v.world.render.needsRender = true;
  });
  const withHelper = await picture(page);
  const d = diff(without, withHelper);
  expect(d.share, 'the helper is drawn').toBeGreaterThan(0.001);
  // Bloom would spread it: the changed area stays the helper's own silhouette (a small disc).
  expect(d.share).toBeLessThan(0.02);
  // The same helper with post-processing off on the scene: identical pixels where it is drawn.
  await configure(page, { bloom: { enabled: false }, ssao: { enabled: false } });
  const plain = await picture(page);
  let same = 0;
  let helperPixels = 0;
  for (let i = 0; i < d.mask.length; i++) {
    if (!d.mask[i]) continue;
    helperPixels++;
    let m = 0;
    for (let k = 0; k < 3; k++) m = Math.max(m, Math.abs(plain.data[i * 4 + k] - withHelper.data[i * 4 + k]));
    if (m <= PIXEL_TOLERANCE) same++;
  }
  expect(same / helperPixels).toBeGreaterThan(0.9);
  // Hidden behind the tower, the helper is not drawn: the picture is the one without it.
  await page.evaluate(() => {
    (window as any).__helper.visible = false;
    (window as any).__viewer.viewer.world.render.needsRender = true;
  });
  const plainWithout = await picture(page);
  await page.evaluate(() => {
    const v = (window as any).__viewer.viewer;
    const helper = (window as any).__helper;
    let tower: any = null;
    v.context.scene.traverse((o: any) => {
      if (o.isMesh && o.material?.name === 'Tower') tower = o;
    });
    const centre = tower.getWorldPosition(tower.position.clone()).setY(0.8);
    const camera = v.context.camera.getWorldPosition(centre.clone());
    const behind = centre.clone().add(centre.clone().sub(camera).normalize());
    helper.position.copy(helper.parent.worldToLocal(behind));
    helper.visible = true;
    helper.updateMatrixWorld(true);
    v.world.render.needsRender = true;
  });
  const hidden = await picture(page);
  expect(diff(plainWithout, hidden).share, 'a helper behind the tower is hidden by it').toBeLessThan(0.0005);
  // The same helper drawn without the depth test shows through: it is on screen, behind the tower.
  await page.evaluate(() => {
    (window as any).__helper.material.depthTest = false;
    (window as any).__viewer.viewer.world.render.needsRender = true;
  });
  const through = await picture(page);
  expect(diff(plainWithout, through).share, 'without the depth test it shows').toBeGreaterThan(0.001);
});

test('a still scene costs no frames with post-processing on', async ({ page }) => {
  // The comments (none in this scene) are read after the first picture; on a busy machine they
  // arrive while the scene is still. Held here until the count is taken, they arrive in the window.
  let releaseComments = () => {};
  const commentsHeld = new Promise<void>((resolve) => (releaseComments = resolve));
  await page.route(/comments-bridge/, async (route) => {
    await commentsHeld;
    await route.continue();
  });
  await open(page, 'quality=high');
  await drawn(page);
  // Whoever asks for a picture from now on is named in the failure: the flags record their writers.
  await page.evaluate(() => {
    const w = window as any;
    const writers: string[] = (w.__pictureWriters = []);
    const watch = (target: any, key: string, name: string) => {
      let value = target[key];
      Object.defineProperty(target, key, {
        configurable: true,
        get: () => value,
        set: (next) => {
          if (next && !value) writers.push(`${name} <- ${(new Error().stack ?? '').split('\n').slice(2, 6).map((l) => l.trim()).join(' < ')}`);
          value = next;
        },
      });
    };
    const world = w.__viewer.viewer.world;
    watch(world.render, 'needsRender', 'needsRender');
    watch(world.render, 'needsPicture', 'needsPicture');
    watch(world.camera, 'moved', 'camera.moved');
  });
  const before = await page.evaluate(() => (window as any).__viewer.stats.renderedFrames);
  const commentsRead = page.waitForResponse((response) => /\/v1\/scenes\/[^/]+\/comments/.test(response.url()));
  releaseComments();
  await commentsRead;
  await page.waitForTimeout(1500);
  const after = await page.evaluate(() => (window as any).__viewer.stats.renderedFrames);
  expect(after, `frames asked for by: ${JSON.stringify(await page.evaluate(() => (window as any).__pictureWriters), null, 1)}`).toBe(before);
});

test('corpus models draw with the full stack (each shown alone, in one scene)', async ({ page }) => {
  test.setTimeout(240_000);
  const files = ['DamagedHelmet.glb', 'ClearCoatTest.glb', 'AnimatedMorphCube.glb'];
  const sceneId = 'render-full-corpus';
  await importFilesIntoScene(files, sceneId);
  const messages: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') messages.push(m.text());
  });
  await open(page, 'quality=high', sceneId);
  await configure(page, { multisampling: 4, ssr: { enabled: true }, chromaticAberration: { enabled: true }, vignette: { enabled: true } });
  for (const file of files) {
    await showAlone(page, file);
    await drawn(page);
    const pixels = await canvasPixels(page);
    expect(pixels.nonBackground, `${file} covers part of the canvas`).toBeGreaterThan(0.003);
    expect(pixels.colours, `${file} draws in more than three colours`).toBeGreaterThan(3);
  }
  expect(messages).toEqual([]);
});

/** Metal spheres from mirror to rough and a white one: the environment's reflections, level by level. */
async function buildSpheresScene(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Spheres');
  const spheres: [string, number, number, [number, number, number]][] = [
    // name, roughness, metallic, colour
    ['Mirror', 0.02, 1, [0.95, 0.95, 0.95]],
    ['Satin', 0.25, 1, [0.95, 0.95, 0.95]],
    ['Rough metal', 0.6, 1, [0.95, 0.95, 0.95]],
    ['Chalk', 0.95, 0, [0.9, 0.9, 0.9]],
  ];
  spheres.forEach(([name, roughness, metallic, color], i) => {
    const material = doc.createMaterial(name).setBaseColorFactor([...color, 1]).setRoughnessFactor(roughness).setMetallicFactor(metallic);
    scene.addChild(meshNode(doc, buffer, name, sphere(0.45, [0, 0, 0], 48, 32), material).setTranslation([(i % 2) - 0.5, 0.5 - Math.floor(i / 2), 0]));
  });
  return new NodeIO().writeBinary(doc);
}

test("the low tier's studio, prefiltered at build time, lights a scene as the studio prefiltered on the GPU does", async ({ page }) => {
  test.setTimeout(180_000);
  const sceneId = 'studio-spheres';
  const s = await store();
  if (!(await s.getScene(sceneId))) await importModel(s, { bytes: await buildSpheresScene(), fileName: 'studio-spheres.glb' }, { sceneId, name: sceneId });
  const environment = () => page.evaluate(() => {
    const texture = (window as any).__viewer.viewer.context.scene.environment;
    return { name: texture?.name ?? null, renderTarget: texture?.isRenderTargetTexture ?? null, pmrem: texture?.isPMREMTexture ?? null };
  });
  // The file: no prefiltering on the device.
  await open(page, 'quality=low', sceneId);
  expect(await environment()).toEqual({ name: 'PMREM (prefiltered at build time)', renderTarget: false, pmrem: true });
  const fromFile = await picture(page);
  // Without the file (it fails to load): a warning, and the studio prefiltered on the GPU.
  const warnings: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
  });
  await page.route('**/assets/environments/studio-128.pmrem', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await open(page, 'quality=low', sceneId);
  expect(await environment()).toEqual({ name: 'PMREM', renderTarget: true, pmrem: true });
  expect(warnings.some((w) => /studio-128\.pmrem could not be loaded: HTTP 404.*prefiltering it on this device instead/.test(w)), warnings.join('\n')).toBe(true);
  const onGpu = await picture(page);
  mkdirSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering'), { recursive: true });
  writeFileSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering', 'studio-file.png'), fromFile.png);
  writeFileSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering', 'studio-gpu.png'), onGpu.png);
  // The same room in the same places: the mirror sphere shows the soft boxes where the GPU's
  // cube has them. Measured: 0% of the spheres' pixels differ by more than the tolerance, the
  // mean by 0.4 of 255; a cube mirrored in x gives 4.4% and 5.8.
  const d = diff(onGpu, fromFile);
  const background = backgroundMask(onGpu);
  const spheres = background.length - countWhere(background, () => true);
  expect(spheres, 'pixels of the spheres').toBeGreaterThan(0.1 * background.length);
  const differing = countWhere(d.mask, (i) => !background[i]) / spheres;
  let sum = 0;
  for (let p = 0; p < background.length; p++) if (!background[p]) sum += Math.abs(onGpu.data[p * 4 + 1] - fromFile.data[p * 4 + 1]);
  expect(differing, "share of the spheres' pixels differing by more than the tolerance").toBeLessThanOrEqual(0.01);
  expect(sum / spheres, "mean difference of the spheres' green channel (of 255)").toBeLessThan(2);
});

test("the low tier's texture limit: DamagedHelmet's 2048 px textures are drawn at 1024 px on low and at 2048 px on medium", async ({ page }) => {
  test.setTimeout(180_000);
  const sceneId = sceneIdFor('texture-limit', 'DamagedHelmet.glb');
  await importIntoScene(join(MODELS, 'DamagedHelmet.glb'), sceneId);
  const sizes = () =>
    page.evaluate(() => {
      const found = new Set<string>();
      (window as any).__viewer.viewer.context.scene.traverse((o: any) => {
        for (const m of [o.material ?? []].flat()) {
          for (const key of ['map', 'normalMap', 'emissiveMap', 'aoMap', 'metalnessMap', 'roughnessMap']) {
            const image = m[key]?.image;
            if (image) found.add(`${key} ${image.width}x${image.height}`);
          }
        }
      });
      return [...found].sort();
    });
  await open(page, 'quality=low', sceneId);
  const low = await sizes();
  expect(low).toContain('map 1024x1024');
  expect(low.every((s) => s.endsWith(' 1024x1024')), low.join(', ')).toBe(true);
  const onLow = await picture(page);
  await open(page, 'quality=medium', sceneId);
  const medium = await sizes();
  expect(medium).toContain('map 2048x2048');
  expect(medium.every((s) => s.endsWith(' 2048x2048')), medium.join(', ')).toBe(true);
  // The helmet is drawn, textured, on low (not a grey or black silhouette).
  let coloured = 0;
  for (let i = 0; i < onLow.data.length; i += 4) if (Math.max(onLow.data[i], onLow.data[i + 1], onLow.data[i + 2]) - Math.min(onLow.data[i], onLow.data[i + 1], onLow.data[i + 2]) > 30) coloured++;
  expect(coloured / (onLow.width * onLow.height)).toBeGreaterThan(0.02);
  mkdirSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering'), { recursive: true });
  writeFileSync(join(REFERENCES, '..', '..', '..', 'test-results', 'rendering', 'helmet-low.png'), onLow.png);
});

test('the tier can be switched at run time (for the host API); the render config survives', async ({ page }) => {
  await open(page, 'quality=low');
  const result = await page.evaluate(async () => {
    const v = (window as any).__viewer.viewer;
    const errorOf = (f: () => unknown) => {
      try {
        f();
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    };
    const steps: unknown[] = [];
    steps.push(errorOf(() => v.getRenderConfig()));
    // The effects' code is its own chunk: setQuality resolves once the stack is in place.
    steps.push(await v.setQuality('medium'));
    v.setRenderConfig({ vignette: { enabled: true, darkness: 0.7 } });
    steps.push(v.context.renderer.getPixelRatio());
    steps.push(await v.setQuality('low'));
    steps.push(errorOf(() => v.setRenderConfig({ bloom: { enabled: false } })));
    steps.push(await v.setQuality('high'));
    steps.push(v.getRenderConfig().vignette);
    return steps;
  });
  expect(result).toEqual([
    'Custom effects not initialized!',
    { tier: 'medium', pixelRatio: 1.5, antialias: true, postProcessing: true, environmentSize: 128, textureLimit: 1024, shadowMapSize: 2048, pointLightShadows: true },
    1.5,
    { tier: 'low', pixelRatio: 1, antialias: true, postProcessing: false, environmentSize: 128, textureLimit: 1024, shadowMapSize: 1024, pointLightShadows: false },
    'Custom effects not initialized!',
    // The context was created with antialiasing, the low tier's environment and texture limit, which no switch changes.
    { tier: 'high', pixelRatio: 1, antialias: true, postProcessing: true, environmentSize: 128, textureLimit: 1024, shadowMapSize: 4192, pointLightShadows: true },
    { enabled: true, offset: 0.35, darkness: 0.7 },
  ]);
  const after = await picture(page);
  expect(after.width).toBe(VIEWPORT.width);
});

test("a playing animation's shadows: its moving casters drawn over the static casters' kept depth, the picture the one drawn whole", async ({ page }) => {
  await page.goto('/embed/demo?quality=low');
  expect(await settled(page)).toBe('ready');
  await page.waitForFunction(() => (window as any).__viewer.viewer.world.shadows.reveal.phase === 0, undefined, { timeout: 30_000, polling: 50 });
  /** Waits for `n` pictures drawn by the frame loop itself (viewer.nextFrame would ask for a whole one), returning the last one's shadow triangles. */
  const pictures = (n: number) =>
    page.evaluate(async (count) => {
      const world = (window as any).__viewer.viewer.world;
      const target = world.stats.renderedFrames + count;
      await new Promise<void>((resolve) => {
        const tick = () => (world.stats.renderedFrames >= target ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      });
      return { shadow: world.render.budget.frameShadowTriangles as number, moving: world.render.movingCasters.models.size as number };
    }, n);
  // The demo's animations (Spin, Gauge) played a second, then held at speed 0: the pose stays while they play on.
  await page.evaluate(() => {
    const animations = (window as any).__viewer.viewer.animations;
    for (const row of animations.list()) animations.play(row.modelId, row.id);
  });
  await page.waitForFunction(() => (window as any).__viewer.viewer.world.render.movingCasters.models.size > 0, undefined, { timeout: 30_000 });
  await pictures(2);
  await page.evaluate(() => ((window as any).__viewer.viewer.world.animation.speed = 0));
  const split = await pictures(3);
  expect(split.moving).toBe(1);
  const splitPicture = decodePng(await canvasScreenshot(page));
  await page.evaluate(() => ((window as any).__viewer.viewer.world.render.splitShadows = false));
  const whole = await pictures(3);
  const wholePicture = decodePng(await canvasScreenshot(page));
  // Only the rotor and the needle in the animation's frames; every caster drawn whole.
  expect(split.shadow, 'shadow triangles of a frame of the animation').toBeGreaterThan(0);
  expect(split.shadow, 'shadow triangles, moving casters alone against every caster').toBeLessThan(whole.shadow * 0.8);
  // Exact but for rounding: the static casters' shadows here are faint (a low sun over a small
  // machine), and without their kept depth some 850 pixels change by a few levels.
  let differing = 0;
  for (let i = 0; i < splitPicture.data.length; i += 4) {
    const d = Math.abs(splitPicture.data[i]! - wholePicture.data[i]!) + Math.abs(splitPicture.data[i + 1]! - wholePicture.data[i + 1]!) + Math.abs(splitPicture.data[i + 2]! - wholePicture.data[i + 2]!);
    if (d > 3) differing++;
  }
  console.log(`[rendering] animation frames: ${split.shadow} shadow triangles (moving casters), ${whole.shadow} drawn whole; ${differing} pixels differ`);
  expect(differing / (splitPicture.width * splitPicture.height), 'share of pixels that differ from the shadows drawn whole').toBeLessThan(0.001);
});
