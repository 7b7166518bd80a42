import { expect, test } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { optimizeModel } from '../../src/server/upload/optimize';
import { MODELS, canvasPixels, countsFromGlb, importFilesIntoScene, readModel, settled, showAlone } from './helpers';

/**
 * One model per path of the optimisation (instancing, Draco and meshopt inputs, KTX2, skins and
 * morph targets, each repair); every corpus model with E2E_ALL_OPTIMIZED=1 (5-6 minutes more).
 */
const COVERING = ['2CylinderEngine.glb', 'AnimatedMorphCube.glb', 'BrainStem-draco.glb', 'ClearCoatTest.glb', 'facecap.glb', 'InterpolationTest.glb', 'SimpleInstancing.glb', 'Soldier.glb'];
const REAL_MODELS = readdirSync(MODELS)
  .filter((f) => f.endsWith('.glb'))
  .filter((f) => process.env.E2E_ALL_OPTIMIZED === '1' || COVERING.includes(f))
  .sort();

/**
 * Optimised models (src/server/upload/optimize.ts: stable ids, instancing, meshopt) in the real viewer:
 * three's GLTFLoader with the meshopt decoder from /libs. Imported through the same path as uploads
 * and the CLI (`optimize: true`).
 */
test.describe('optimised models', () => {
  // One scene of all of them, one page load (a page per model cost about a minute of fixed page
  // cost): each matches the counts of its optimised file and, shown alone and framed, draws.
  test('optimised models load in one scene, match their optimised files and draw', async ({ page }) => {
    // About 30 s a model on a loaded machine (optimised twice: on import, and for the counts).
    test.setTimeout(60_000 + REAL_MODELS.length * 30_000);
    const sceneId = 'optimised-models';
    await importFilesIntoScene(REAL_MODELS, sceneId, { optimize: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`/embed/${sceneId}`);
    expect(await settled(page, 180_000)).toBe('ready');
    await expect(page.getByTestId('notices')).toHaveCount(0);
    const summary: { name: string; nodes: number; meshes: number; animations: unknown[] }[] = await page.evaluate(() => (window as any).__viewer.summary());
    expect(summary.map((m) => m.name).sort()).toEqual(REAL_MODELS);
    for (const file of REAL_MODELS) {
      const expected = countsFromGlb((await optimizeModel(readModel(file))).glb);
      const model = summary.find((m) => m.name === file)!;
      expect({ file, nodes: model.nodes, meshes: model.meshes, animations: model.animations.length }).toEqual({ file, ...expected });
    }
    for (const file of REAL_MODELS) {
      await showAlone(page, file);
      const pixels = await canvasPixels(page);
      expect(pixels.nonBackground, `${file} covers part of the canvas`).toBeGreaterThan(0.003);
    }
    expect(errors).toEqual([]);
  });
});

/** The home page's upload: sign in, pick a file, watch the progress, land in the new scene. */
test.describe('home page upload', () => {
  test.beforeEach(async ({ request }) => {
    const probe = await request.post('/v1/models', { headers: { 'content-type': 'model/gltf-binary' }, data: Buffer.from('x') });
    test.skip(probe.status() === 404, 'POST /v1/models is not registered in src/server/app.ts yet');
  });

  test('asks to sign in, then uploads a GLB with a progress bar and opens the new scene', async ({ page }) => {
    await page.goto('/');
    const signIn = page.getByRole('link', { name: 'Sign in to upload' });
    await expect(signIn).toBeVisible();
    await signIn.click();
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    await page.getByLabel('Choose model files').setInputFiles(join(MODELS, 'Duck.glb'));
    await expect(page.getByRole('progressbar')).toBeVisible();
    await page.waitForURL(/\/embed\/[A-Za-z0-9_-]+$/, { timeout: 60_000 });
    expect(await settled(page)).toBe('ready');
    const summary = await page.evaluate(() => (window as any).__viewer.summary());
    expect(summary[0].name).toBe('Duck.glb');

    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Duck' }).first()).toBeVisible();
  });

  test("shows the validator's findings when a file is refused", async ({ page }) => {
    await page.goto('/auth/sign-in?returnTo=/');
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    await page.getByLabel('Choose model files').setInputFiles({ name: 'notes.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('these are notes, not a model') });
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('notes.glb: Unknown file format');
    await expect(alert.getByRole('list', { name: 'Validator findings' })).toContainText('GLB_INVALID_MAGIC');
    expect(new URL(page.url()).pathname).toBe('/');
  });
});
