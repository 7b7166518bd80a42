import { getBounds, NodeIO } from '@gltf-transform/core';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canvasScreenshot, importIntoScene, MODELS, ROOT, settled, shadowsShown, store } from './helpers';
import { decodePng } from './png';

/**
 * Scene settings in real Chromium (SwiftShader), checked without reference pictures: each setting
 * is shown to change the picture where it should, against the same scene without it. A small
 * viewport keeps software rendering quick; `?quality=low` turns post-processing off so that
 * colours are the renderer's own. The pictures are kept in test-results/scene-settings/.
 */

const WIDTH = 480;
const HEIGHT = 320;
const MODEL = 'Duck.glb';
const PICTURES = join(ROOT, 'test-results/scene-settings');

test.use({ viewport: { width: WIDTH, height: HEIGHT } });

interface Picture {
  name: string;
  width: number;
  height: number;
  /** RGBA bytes, top row first. */
  data: Uint8Array;
  notices: string[];
  errors: string[];
  /** The sun's shadow: when its maps were first drawn and when the first picture went out (ms on the page's clock). */
  sunShadow: { mapsDrawnAt: number; firstPictureAt: number; mapSize: number; intensity: number };
}

let sceneCounter = 0;

/** A scene of its own holding the model, with `settings` as its viewerConfig.scene. */
async function sceneWith(name: string, settings: Record<string, unknown> | undefined): Promise<string> {
  const id = `settings-${name}-${++sceneCounter}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  await importIntoScene(join(MODELS, MODEL), id);
  const s = await store();
  const scene = await s.getScene(id);
  if (!scene) throw new Error(`scene ${id} was not created`);
  scene.viewerConfig = { ...scene.viewerConfig, scene: settings };
  await s.putScene(scene);
  return id;
}

/** Opens the scene, waits for viewerready and reads the canvas as it is shown. */
async function render(page: Page, name: string, settings?: Record<string, unknown>, options: { css?: string } = {}): Promise<Picture> {
  const id = await sceneWith(name, settings);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/embed/${id}?quality=low`);
  const phase = await settled(page);
  const detail = phase === 'failed' ? await page.locator('.failure-detail').innerText() : '';
  expect(phase, `${name}: the viewer reached ready (${detail})`).toBe('ready');
  if (options.css) await page.addStyleTag({ content: options.css });
  await shadowsShown(page);
  const sunShadow = await page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const sun = viewer.context.sun;
    return {
      mapsDrawnAt: viewer.world.shadows.reveal.start,
      firstPictureAt: performance.getEntriesByName('viewer:first-frame')[0]?.startTime ?? NaN,
      mapSize: sun.shadow.map?.width ?? 0,
      intensity: sun.shadow.intensity,
    };
  });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const png = await canvasScreenshot(page);
  mkdirSync(PICTURES, { recursive: true });
  writeFileSync(join(PICTURES, `${name}.png`), png);
  const raw = decodePng(png);
  const notices = (await page.getByTestId('notices').count()) ? await page.getByTestId('notices').locator('li').allInnerTexts() : [];
  return { name, width: raw.width, height: raw.height, data: raw.data, notices, errors, sunShadow };
}

/** In a fresh page (tests that need several pictures). */
async function renderIn(browser: Browser, name: string, settings?: Record<string, unknown>, options?: { css?: string }): Promise<Picture> {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  try {
    return await render(page, name, settings, options);
  } finally {
    await page.close();
  }
}

interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
const ALL: Region = { x0: 0, y0: 0, x1: 1, y1: 1 };
const TOP: Region = { x0: 0, y0: 0, x1: 1, y1: 0.08 };
const BOTTOM: Region = { x0: 0, y0: 0.92, x1: 1, y1: 1 };
const LEFT: Region = { x0: 0, y0: 0, x1: 0.06, y1: 1 };
const RIGHT: Region = { x0: 0.94, y0: 0, x1: 1, y1: 1 };
const CORNER: Region = { x0: 0, y0: 0, x1: 0.04, y1: 0.04 };

function pixels(p: Picture, r: Region, visit: (i: number, x: number, y: number) => void): void {
  const x0 = Math.floor(r.x0 * p.width), x1 = Math.ceil(r.x1 * p.width);
  const y0 = Math.floor(r.y0 * p.height), y1 = Math.ceil(r.y1 * p.height);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) visit((y * p.width + x) * 4, x, y);
}

/** Mean colour of a region. */
function mean(p: Picture, r: Region = ALL): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  pixels(p, r, (i) => {
    sum[0] += p.data[i];
    sum[1] += p.data[i + 1];
    sum[2] += p.data[i + 2];
    n++;
  });
  return sum.map((s) => s / n) as [number, number, number];
}

/** Mean absolute difference per channel between two pictures over a region (0-255). */
function difference(a: Picture, b: Picture, r: Region = ALL): number {
  let sum = 0;
  let n = 0;
  pixels(a, r, (i) => {
    sum += Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]);
    n += 3;
  });
  return sum / n;
}

/** Pixels that differ clearly from the colour in the top-left corner (the background). */
function modelMask(p: Picture): Uint8Array {
  const [r, g, b] = mean(p, CORNER);
  const mask = new Uint8Array(p.width * p.height);
  pixels(p, ALL, (i) => {
    if (Math.abs(p.data[i] - r) + Math.abs(p.data[i + 1] - g) + Math.abs(p.data[i + 2] - b) > 48) mask[i / 4] = 1;
  });
  return mask;
}

function coverage(mask: Uint8Array): number {
  return mask.reduce((s, v) => s + v, 0) / mask.length;
}

/** Mean brightness ((r + g + b) / 3) of the pixels in the mask. */
function maskedBrightness(p: Picture, mask: Uint8Array): number {
  let sum = 0;
  let n = 0;
  for (let k = 0; k < mask.length; k++) {
    if (!mask[k]) continue;
    sum += (p.data[k * 4] + p.data[k * 4 + 1] + p.data[k * 4 + 2]) / 3;
    n++;
  }
  return n ? sum / n : 0;
}

function expectColour(actual: number[], expected: [number, number, number], tolerance = 4): void {
  for (let c = 0; c < 3; c++) expect(Math.abs(actual[c] - expected[c]), `channel ${c} of [${actual.map(Math.round)}] vs [${expected}]`).toBeLessThanOrEqual(tolerance);
}

/** The model's bounds in its default scene. */
async function modelBounds(): Promise<{ min: number[]; max: number[] }> {
  const doc = await new NodeIO().read(join(MODELS, MODEL));
  return getBounds(doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0]);
}

/** Where the model stands: the lowest point of its default scene. */
async function modelFloor(): Promise<number> {
  return (await modelBounds()).min[1];
}

test.describe('scene settings change the picture', () => {
  let baseline: Picture;

  test.beforeAll(async ({ browser }) => {
    baseline = await renderIn(browser, 'baseline');
  });

  test('the baseline: the model on the dark blue background', () => {
    expectColour(mean(baseline, CORNER), [0x0d, 0x1b, 0x2e]);
    expect(coverage(modelMask(baseline))).toBeGreaterThan(0.02);
  });

  test('background colour fills the background and leaves the model', async ({ page }) => {
    const p = await render(page, 'background-color', { backgroundType: 'color', backgroundColor1: 'ff8800' });
    expectColour(mean(p, CORNER), [0xff, 0x88, 0x00]);
    expectColour(mean(p, BOTTOM), [0xff, 0x88, 0x00], 8);
    expect(Math.abs(coverage(modelMask(p)) - coverage(modelMask(baseline)))).toBeLessThan(0.02);
  });

  test('gradient runs from colour 1 at the top to colour 2 at the bottom, turned by the rotation', async ({ browser }) => {
    const vertical = await renderIn(browser, 'background-gradient', { backgroundType: 'gradient', backgroundColor1: 'ff0000', backgroundColor2: '0000ff' });
    const top = mean(vertical, TOP), bottom = mean(vertical, BOTTOM);
    expect(top[0]).toBeGreaterThan(200);
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(200);
    expect(bottom[0]).toBeLessThan(60);
    const turned = await renderIn(browser, 'background-gradient-90', { backgroundType: 'gradient', backgroundColor1: 'ff0000', backgroundColor2: '0000ff', backgroundRotation: 90 });
    const right = mean(turned, RIGHT), left = mean(turned, LEFT);
    expect(right[0]).toBeGreaterThan(200);
    expect(right[2]).toBeLessThan(60);
    expect(left[2]).toBeGreaterThan(200);
    expect(left[0]).toBeLessThan(60);
  });

  test('transparent shows what is behind the canvas', async ({ browser }) => {
    const css = '[data-testid="viewer-canvas"] { background: #00ff00 !important; }';
    const transparent = await renderIn(browser, 'background-transparent', { backgroundType: 'transparent' }, { css });
    expectColour(mean(transparent, CORNER), [0, 255, 0]);
    const opaque = await renderIn(browser, 'background-opaque', { backgroundType: 'color', backgroundColor1: 'ececec' }, { css });
    expectColour(mean(opaque, CORNER), [0xec, 0xec, 0xec]);
  });

  test('an environment as background shows the sky, the same in both formats', async ({ browser }) => {
    // A level camera: the horizon across the middle, the sky above.
    const { min, max } = await modelBounds();
    const y = (min[1] + max[1]) / 2;
    const level = { initialCameraPosition: { x: 0, y, z: 8 * (max[1] - min[1]) }, initialCameraTarget: { x: 0, y, z: 0 } };
    const jpeg = await renderIn(browser, 'environment-noon-hdrjpeg', { environment: 'sky_noon', backgroundType: 'environment', ...level });
    const hdr = await renderIn(browser, 'environment-noon-hdr', { environment: 'sky_noon_hdr', backgroundType: 'environment', ...level });
    for (const p of [jpeg, hdr]) {
      expect(p.notices).toEqual([]);
      const sky = mean(p, TOP);
      // Blue sky above, lighter than the dark blue of the baseline.
      expect(sky[2]).toBeGreaterThan(sky[0] + 20);
      expect(sky[2]).toBeGreaterThan(120);
      expect(difference(p, baseline, TOP)).toBeGreaterThan(40);
    }
    // The gain-map JPEG and the Radiance file decode to the same picture.
    expect(difference(jpeg, hdr)).toBeLessThan(3);
  });

  test('environments in both formats light the model', async ({ browser }) => {
    const settings = (environment: string | null) => ({ environment, backgroundType: 'color', backgroundColor1: '808080' });
    const room = await renderIn(browser, 'lighting-room', settings(null));
    const sunsetJpeg = await renderIn(browser, 'lighting-sunset-hdrjpeg', settings('sky_sunset'));
    const sunsetHdr = await renderIn(browser, 'lighting-sunset-hdr', settings('sky_sunset_hdr'));
    const studio = await renderIn(browser, 'lighting-studio-hdrjpeg', settings('studio'));
    // The background is the same grey in all: what changes is the model.
    for (const p of [sunsetJpeg, sunsetHdr, studio]) {
      expect(p.notices).toEqual([]);
      expectColour(mean(p, CORNER), [0x80, 0x80, 0x80]);
    }
    expect(difference(sunsetJpeg, room)).toBeGreaterThan(1.5);
    expect(difference(studio, room)).toBeGreaterThan(1.5);
    expect(difference(studio, sunsetJpeg)).toBeGreaterThan(1.5);
    // Both formats of one environment light it alike.
    expect(difference(sunsetJpeg, sunsetHdr)).toBeLessThan(1);
  });

  test('a missing environment is reported and the background falls back', async ({ page }) => {
    const p = await render(page, 'environment-missing', {
      environment: { id: 'ghost', name: 'Ghost', path: 'ghost.hdr', format: 'hdr' },
      backgroundType: 'environment',
      backgroundColor1: 'ff8800',
    });
    expect(p.notices.join(' ')).toContain("The environment 'ghost' could not be loaded");
    expect(p.notices.join(' ')).toContain('HTTP 404');
    expect(p.errors.some((e) => e.includes("The environment 'ghost' could not be loaded"))).toBe(true);
    // Ignored: the viewer is ready, with the colour background.
    expectColour(mean(p, CORNER), [0xff, 0x88, 0x00]);
    expect(coverage(modelMask(p))).toBeGreaterThan(0.02);
    const unknown = await render(page, 'environment-unknown', { environment: 'no_such_sky' });
    expect(unknown.notices.join(' ')).toContain("The environment 'no_such_sky' is not in the catalog.");
  });

  test('fog in the background colour hides the model', async ({ browser }) => {
    const clear = await renderIn(browser, 'fog-off', { backgroundColor1: 'ffffff', fogEnabled: false });
    const fog = await renderIn(browser, 'fog-on', { backgroundColor1: 'ffffff', fogEnabled: true, fogColor: 'ffffff', fogDensity: 2 });
    expect(coverage(modelMask(clear))).toBeGreaterThan(0.02);
    expect(coverage(modelMask(fog))).toBeLessThan(0.002);
    const light = await renderIn(browser, 'fog-light', { backgroundColor1: 'ffffff', fogEnabled: true, fogColor: 'ffffff', fogDensity: 0.2 });
    // A lighter fog washes the model out towards white.
    expect(coverage(modelMask(light))).toBeGreaterThan(0.005);
    expect(maskedBrightness(light, modelMask(clear))).toBeGreaterThan(maskedBrightness(clear, modelMask(clear)) + 10);
  });

  test('water covers the lower part of the view and moves', async ({ page }) => {
    const settings = { waterEnabled: true, waterYOffset: (await modelFloor()) - 0.05, backgroundColor1: 'ececec', initialCameraPosition: { x: 0, y: 3, z: 8 }, initialCameraTarget: { x: 0, y: 0.5, z: 0 } };
    const dry = await render(page, 'water-off', { ...settings, waterEnabled: false });
    const wet = await render(page, 'water-on', settings);
    // Below the horizon the water replaces the background; above it nothing changes.
    expect(difference(wet, dry, BOTTOM)).toBeGreaterThan(40);
    expect(difference(wet, dry, TOP)).toBeLessThan(2);
    const waterColour = mean(wet, BOTTOM);
    expect(waterColour[0] + waterColour[1] + waterColour[2]).toBeLessThan(3 * 0xec - 120);
    // The waves move: the water looks different a moment later.
    const canvas = page.getByTestId('viewer-canvas');
    const now = await canvas.screenshot();
    let later = now;
    await expect.poll(async () => (later = await canvas.screenshot()).equals(now), { timeout: 30_000 }).toBe(false);
    writeFileSync(join(PICTURES, 'water-later.png'), later);
  });

  test('the shadow plane catches the shadow, and the sun direction moves it', async ({ browser }) => {
    const floor = await modelFloor();
    const settings = (opacity: number, sunAzimuth: number) => ({
      backgroundColor1: 'ffffff',
      shadowPlaneEnabled: true,
      shadowPlaneY: floor,
      shadowPlaneOpacity: opacity,
      sunAzimuth,
      sunElevation: 35,
      directionalLightShadowCameraScale: 10,
      initialCameraPosition: { x: 0, y: 6, z: 6 },
      initialCameraTarget: { x: 0, y: floor, z: 0 },
    });
    const none = await renderIn(browser, 'shadow-plane-transparent', settings(0, 90));
    const east = await renderIn(browser, 'shadow-plane-sun-east', settings(0.8, 90));
    const west = await renderIn(browser, 'shadow-plane-sun-west', settings(0.8, 270));
    // Shadow: pixels the plane darkens (the model itself is the same in both).
    const shadowOf = (p: Picture) => {
      let n = 0, sx = 0;
      pixels(p, ALL, (i, x) => {
        const darker = none.data[i] + none.data[i + 1] + none.data[i + 2] - (p.data[i] + p.data[i + 1] + p.data[i + 2]);
        if (darker > 60) {
          n++;
          sx += x;
        }
      });
      return { share: n / (p.width * p.height), x: n ? sx / n : 0 };
    };
    // The first picture went out before any shadow map was drawn; the maps came after it and the
    // shadow is at full strength now (src/engine/shadow-reveal.ts).
    for (const p of [east, west]) {
      expect(p.sunShadow.mapsDrawnAt, `${p.name}: the shadow maps after the first picture`).toBeGreaterThan(p.sunShadow.firstPictureAt);
      expect(p.sunShadow.mapSize, `${p.name}: the sun's map was drawn`).toBeGreaterThan(0);
      expect(p.sunShadow.intensity).toBe(1);
    }
    const eastShadow = shadowOf(east), westShadow = shadowOf(west);
    expect(eastShadow.share).toBeGreaterThan(0.005);
    expect(westShadow.share).toBeGreaterThan(0.005);
    // The sun in +X throws the shadow to -X (left on screen, the camera looking down -Z), and back.
    expect(eastShadow.x).toBeLessThan(westShadow.x - 20);

    // A screenshot taken while the shadows are still on their way in (a scene's first picture is
    // out, its maps not drawn yet) has them all: takeScreenshot ends the reveal.
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    try {
      await page.goto(`/embed/${await sceneWith('shadow-plane-screenshot', settings(0.8, 90))}?quality=low`);
      expect(await settled(page)).toBe('ready');
      await shadowsShown(page);
      const shot = await page.evaluate(async () => {
        const viewer = (window as any).__viewer.viewer;
        // As a load leaves it: the next picture goes out without shadows (deferShadows).
        viewer.world.shadows.reveal.phase = 1;
        await viewer.nextFrame();
        const phase = viewer.world.shadows.reveal.phase;
        const intensity = viewer.context.sun.shadow.intensity;
        const blob: Blob = await viewer.screenshot({ scale: 1 });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let binary = '';
        for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
        return { phase, intensity, png: btoa(binary), after: viewer.world.shadows.reveal.phase };
      });
      expect(shot, 'the picture before the screenshot went out without shadows').toMatchObject({ phase: 2, intensity: 0, after: 0 });
      const raw = decodePng(Buffer.from(shot.png, 'base64'));
      expect([raw.width, raw.height]).toEqual([none.width, none.height]);
      const shadow = shadowOf({ ...none, name: 'screenshot', data: raw.data });
      expect(shadow.share, 'the screenshot has the shadow').toBeGreaterThan(eastShadow.share * 0.8);
      expect(Math.abs(shadow.x - eastShadow.x)).toBeLessThan(10);
    } finally {
      await page.close();
    }
  });

  test('exposure is 2 to the power of the value: brighter and darker', async ({ browser }) => {
    const settings = (toneMappingExposure: number) => ({ toneMappingExposure, backgroundColor1: '808080' });
    const dark = await renderIn(browser, 'exposure-minus-2', settings(-2));
    const bright = await renderIn(browser, 'exposure-plus-2', settings(2));
    const mask = modelMask(baseline);
    expect(maskedBrightness(bright, mask)).toBeGreaterThan(maskedBrightness(dark, mask) + 40);
    // The background colour is not exposed.
    expectColour(mean(bright, CORNER), [0x80, 0x80, 0x80]);
  });

  test('lights and camera: intensities, field of view', async ({ browser }) => {
    const dim = await renderIn(browser, 'lights-dim', { ambientLightIntensity: 0, directionalLightIntensity: 0, backgroundColor1: '808080' });
    const lit = await renderIn(browser, 'lights-bright', { ambientLightIntensity: 2, directionalLightIntensity: 4, backgroundColor1: '808080' });
    const mask = modelMask(baseline);
    expect(maskedBrightness(lit, mask)).toBeGreaterThan(maskedBrightness(dim, mask) + 20);
    const narrow = await renderIn(browser, 'fov-20', { perspectiveCameraFov: 20 });
    const wide = await renderIn(browser, 'fov-80', { perspectiveCameraFov: 80 });
    expect(coverage(modelMask(narrow))).toBeGreaterThan(coverage(modelMask(wide)) * 2);
  });
});
