import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { importModel } from '../../src/server/import';
import { MODELS, importIntoScene, settled, store, underLock, watchPolicyViolations } from './helpers';

/**
 * The app under its own Content-Security-Policy (issue 10, item 4): the viewer loads models that
 * need every decoder (Draco and KTX2 in Web Workers made from blobs, WebAssembly, meshopt) and the
 * inline script of index.html, the editor and the home page open, all without a single violation;
 * another site may frame the embedded viewer but not the editor.
 */

const SCENE = 'csp-decoders';

async function decoderScene(): Promise<void> {
  const s = await store();
  if (await s.getScene(SCENE)) return;
  await underLock(`scene-${SCENE}`, async () => {
    if (await s.getScene(SCENE)) return;
    await importModel(s, { path: join(MODELS, 'BoxTextured-draco.glb') }, { sceneId: SCENE, name: SCENE });
    await importModel(s, { path: join(MODELS, 'facecap.glb') }, { sceneId: SCENE });
    await importModel(s, { path: join(MODELS, 'SimpleInstancing.glb') }, { sceneId: SCENE, optimize: true });
  });
}

test('the viewer loads Draco, KTX2 and meshopt models, with the early downloads of index.html, without a CSP violation', async ({ page }) => {
  await decoderScene();
  const violations = await watchPolicyViolations(page);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const response = await page.goto(`/embed/${SCENE}`);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval' 'sha256-");
  expect(await settled(page)).toBe('ready');
  // The inline script ran: the app took the early downloads it started.
  expect(await page.evaluate(() => typeof (window as any).__earlyFetches)).toBe('object');
  const summary = await page.evaluate(() => (window as any).__viewer.summary());
  expect(summary).toHaveLength(3);
  await expect(page.getByTestId('notices')).toHaveCount(0);
  expect(await violations()).toEqual([]);
  expect(errors).toEqual([]);
});

test('the home page, the editor and sign-in open without a CSP violation', async ({ page }) => {
  await importIntoScene(join(MODELS, 'Box-draco.glb'), 'csp-editor');
  const violations = await watchPolicyViolations(page);
  for (const path of ['/', '/auth/sign-in?returnTo=/', '/edit/csp-editor']) {
    const response = await page.goto(path);
    expect(response?.headers()['content-security-policy'], path).toContain("frame-ancestors 'none'");
    await page.waitForLoadState('load');
    // The load event no longer waits for the app's code (vite.config.ts entryOffTheLoadEvent):
    // the app's pages are left only once the app has rendered.
    if (!path.startsWith('/auth/')) await expect(page.locator('#root'), path).not.toBeEmpty();
  }
  expect(await violations()).toEqual([]);
});

test('another site may frame the embedded viewer, never the editor', async ({ page, baseURL }) => {
  await importIntoScene(join(MODELS, 'Box-draco.glb'), 'csp-frames');
  // The host: a blank page on another origin than the viewer (about:blank here).
  await page.setContent('<!doctype html><html><body></body></html>');
  const ready = page.evaluate(
    (src) =>
      new Promise<boolean>((resolve) => {
        window.addEventListener('message', (e) => e.data?.type === 'viewerready' && resolve(true));
        const frame = document.createElement('iframe');
        frame.src = src;
        document.body.appendChild(frame);
      }),
    `${baseURL}/embed/csp-frames`,
  );
  // The embedded viewer runs inside the other site's page and tells it so.
  expect(await ready).toBe(true);
  // The editor's frame is refused: Chromium puts its error page there instead.
  const editor = await page.evaluateHandle((src) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    document.body.appendChild(frame);
    return frame;
  }, `${baseURL}/edit/csp-frames`);
  const edit = (await editor.asElement()!.contentFrame())!;
  await expect.poll(() => edit.url(), { timeout: 30_000 }).toMatch(/^chrome-error:/);
});
