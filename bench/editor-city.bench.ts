import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { DEFAULT_FLAG_ARGS, findChromium } from '../scripts/chromium.mjs';
import { TOKEN_STORAGE_KEY } from '../src/protocol/auth';
import { signTestToken } from '../src/server/auth/tokens';
import { loadServerConfig } from '../src/server/config';
import { createInstancesScene } from '../src/server/demo-instances-scene';
import { createInstanceService } from '../src/server/instances';
import { openFileStore } from '../src/server/store';
import { startServer } from './server';
import { median } from './stats';
import type { BenchResult } from './types';
import { openViewerPage } from './viewer-page';
import { instanceGizmoCentre } from '../tests/support/instance-gizmo';

/**
 * Issue 35's editor on a large instanced scene, as a person feels it: the editor (/edit) on the
 * 20,000-instance city of `npm run demo -- instances 20000`, owned by the signed-in person, in
 * Chromium with its default flags (the page waits for each picture, as a browser without a GPU
 * does), at the editor's desktop size. Timed in the page from the input event (Playwright's mouse,
 * through DevTools) until the first frame rendered after it is drawn (a one-pixel readback that
 * waits for the GPU):
 *
 *   - one wheel step over the city (zoom), in and out by turns;
 *   - one move of a gizmo drag of a selected instance (the gizmo's centre dragged in the view plane).
 *
 * Baseline, in the same page: the same steps with per-instance culling and levels off
 * (`world.render.instanceCulling` and `instanceLevels` false: every instance at full detail in
 * every pass, the plain InstancedMesh way the groups were drawn before issue 35).
 *
 * Environment: BENCH_EDITOR_CITY_SIZE (20000), BENCH_EDITOR_CITY_STEPS (4 of each, a step's median).
 */

const SIZE = Number(process.env.BENCH_EDITOR_CITY_SIZE ?? 20_000);
const STEPS = Number(process.env.BENCH_EDITOR_CITY_STEPS ?? 4);
const VIEWPORT = { width: 1280, height: 720 };
const round = (ms: number) => Math.round(ms);

/** What the frames of the steps drew (the profile beside the times): triangles, shadow triangles, render call ms. */
const drawnFrames: string[] = [];

/**
 * Installs the page's own clock of a step: the input event's time (its timeStamp, in the page's
 * clock: queueing behind a frame counted) and the moment the first frame rendered after it has
 * been drawn (a rAF watch that, once a frame was rendered, reads one pixel back: that waits for
 * the GPU). Timed in the page, so DevTools' round trips (which wait behind the page's frames on
 * the default flags) are not in the figure.
 */
async function installStepClock(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as any;
    const world = w.__viewer.viewer.world;
    const gl = world.render.renderer.getContext() as WebGL2RenderingContext;
    const pixel = new Uint8Array(4);
    w.__step = { armed: false, inputAt: 0, before: 0, drawnAt: 0, frame: '' };
    for (const type of ['wheel', 'pointermove']) {
      window.addEventListener(
        type,
        (e) => {
          const step = w.__step;
          if (!step.armed || step.inputAt) return;
          step.inputAt = e.timeStamp;
          step.before = world.stats.renderedFrames;
        },
        { capture: true },
      );
    }
    const watch = () => {
      const step = w.__step;
      if (step.inputAt && !step.drawnAt && world.stats.renderedFrames > step.before) {
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        step.drawnAt = performance.now();
        step.frame = `${world.stats.triangles} triangles (${world.render.budget.frameShadowTriangles} in shadow maps), render call ${Math.round(world.stats.lastRenderMs)} ms`;
      }
      requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  });
}

/** Milliseconds from the input `act` makes until the first frame rendered after it has been drawn. */
async function untilDrawn(page: Page, act: () => Promise<void>): Promise<number> {
  await page.evaluate(() => Object.assign((window as any).__step, { armed: true, inputAt: 0, drawnAt: 0 }));
  await act();
  await page.waitForFunction(() => (window as any).__step.drawnAt > 0, undefined, { timeout: 120_000, polling: 100 });
  const { ms, frame } = await page.evaluate(() => {
    const step = (window as any).__step;
    step.armed = false;
    return { ms: step.drawnAt - step.inputAt, frame: step.frame as string };
  });
  drawnFrames.push(frame);
  // The step's other frames (a wheel's eased zoom) settle before the next step.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  return ms;
}

/** Culling and levels on (ours) or off (the baseline), and the picture drawn anew with it. */
async function setCulling(page: Page, on: boolean): Promise<void> {
  await page.evaluate(async (value) => {
    const viewer = (window as any).__viewer.viewer;
    viewer.world.render.instanceCulling = value;
    viewer.world.render.instanceLevels = value;
    viewer.world.render.needsRender = true;
    await viewer.nextFrame();
  }, on);
}

/** A client point over an instance near the middle of the canvas (the picker's own answer). */
async function instanceNearMiddle(page: Page): Promise<{ x: number; y: number }> {
  const found = await page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    for (let r = 0; r <= 0.5; r += 0.05) {
      for (let a = 0; a < Math.PI * 2; a += Math.PI / 8) {
        const x = r * Math.cos(a);
        const y = r * Math.sin(a);
        const hit = viewer.picker.pick(x, y);
        if (hit && hit.groupId) return { x: rect.left + ((x + 1) / 2) * rect.width, y: rect.top + ((1 - y) / 2) * rect.height };
      }
    }
    return null;
  });
  if (!found) throw new Error('no instance under the middle of the view to select');
  return found;
}

/** STEPS wheel steps over the middle, in and out by turns: each step's time until drawn. */
async function wheelSteps(page: Page): Promise<number[]> {
  const times: number[] = [];
  await page.mouse.move(VIEWPORT.width / 2, VIEWPORT.height / 2);
  for (let i = 0; i < STEPS; i++) times.push(await untilDrawn(page, () => page.mouse.wheel(0, i % 2 === 0 ? -100 : 100)));
  return times;
}

/** One gizmo drag of the selected instance, STEPS moves of 6 pixels: each move's time until drawn. */
async function dragMoves(page: Page): Promise<number[]> {
  const from = await instanceGizmoCentre(page);
  await page.mouse.move(from.x, from.y);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.down();
  if (!(await page.evaluate(() => (window as any).__editor.gizmo.dragging))) throw new Error('the press on the gizmo did not start a drag');
  const times: number[] = [];
  for (let i = 1; i <= STEPS; i++) times.push(await untilDrawn(page, () => page.mouse.move(from.x + i * 6, from.y)));
  await page.mouse.up();
  return times;
}

export default async function run(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-editor-city-'));
  const results: BenchResult[] = [];
  try {
    const sceneId = `bench-editor-city-${SIZE}`;
    const { token, user } = await signTestToken(dataDir, { firstName: 'Bea', lastName: 'Bench' });
    const store = await openFileStore(dataDir);
    try {
      const config = loadServerConfig({ ...process.env, DATA_DIR: dataDir });
      const made = await createInstancesScene({ config, store, instances: createInstanceService(store) }, SIZE, { sceneId });
      // The signed-in person's own scene: the editor edits it in place.
      await store.updateScene(made.scene._id, (s) => ({ ...s, ownerId: user.id }));
    } finally {
      await store.close();
    }
    const server = await startServer(dataDir);
    // A fresh profile (Playwright's own temporary one).
    const browser = await chromium.launch({ executablePath: findChromium(), args: DEFAULT_FLAG_ARGS });
    try {
      const page = await openViewerPage(browser, `${server.base}/edit/${sceneId}`, {
        viewport: VIEWPORT,
        readyTimeoutMs: 300_000,
        shadowsTimeoutMs: 300_000,
        what: `the editor on ${SIZE.toLocaleString('en-US')} instances`,
        // Signed in as the scene's owner (the token the sign-in page would store).
        prepare: async (p) => {
          await p.addInitScript(([key, value]) => localStorage.setItem(key, value), [
            TOKEN_STORAGE_KEY,
            JSON.stringify({ token, expiresAt: Date.now() + 3_600_000 }),
          ] as const);
        },
      });
      await page.waitForFunction(() => !!(window as any).__editor, undefined, { timeout: 120_000 });
      await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
      await installStepClock(page);
      const label = `editor on the ${SIZE.toLocaleString('en-US')}-instance city (1280 x 720, default flags)`;
      const figures: Record<'ours' | 'plain', { wheel: number[]; drag: number[] }> = { ours: { wheel: [], drag: [] }, plain: { wheel: [], drag: [] } };
      // Select one instance (a click on it), then the rounds: ours, then the baseline.
      const target = await instanceNearMiddle(page);
      await page.mouse.click(target.x, target.y);
      await page.waitForFunction(() => (window as any).__editor.selection?.instances?.ids?.length > 0, undefined, { timeout: 60_000 });
      for (const side of ['ours', 'plain'] as const) {
        await setCulling(page, side === 'ours');
        drawnFrames.length = 0;
        figures[side].wheel = await wheelSteps(page);
        figures[side].drag = await dragMoves(page);
        console.log(
          `[editor-city] ${label} ${side}: wheel steps ${figures[side].wheel.map(round).join(', ')} ms; drag moves ${figures[side].drag.map(round).join(', ')} ms`,
        );
        console.log(`[editor-city]   the frames: ${drawnFrames.join('; ')}`);
      }
      await setCulling(page, true);
      const ours = { wheel: median(figures.ours.wheel), drag: median(figures.ours.drag) };
      const plain = { wheel: median(figures.plain.wheel), drag: median(figures.plain.drag) };
      const ratio = (a: number, b: number) => Math.round((b / a) * 100) / 100;
      results.push({
        name: `${label}: one wheel step until drawn, median of ${STEPS}, ours vs culling and levels off`,
        value: round(ours.wheel),
        unit: 'ms',
        baseline: round(plain.wheel),
        ratio: ratio(ours.wheel, plain.wheel),
        goal: '<= 500 ms',
        pass: ours.wheel <= 500,
      });
      results.push({
        name: `${label}: one gizmo drag move until drawn, median of ${STEPS}, ours vs culling and levels off`,
        value: round(ours.drag),
        unit: 'ms',
        baseline: round(plain.drag),
        ratio: ratio(ours.drag, plain.drag),
        goal: '<= 300 ms',
        pass: ours.drag <= 300,
      });
    } finally {
      await browser.close().catch(() => undefined);
      server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}
