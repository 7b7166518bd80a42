import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { importModel } from '../../src/server/import';
import { openFileStore, type Store } from '../../src/server/store';
import { decodePng } from './png';

export const ROOT = resolve(import.meta.dirname, '../..');
export const MODELS = resolve(ROOT, '../shared/models');

/**
 * The editor is a desktop tool: its panels take 560 px of the width, so its tests run at a laptop's
 * size (the viewer's default in playwright.config.ts is smaller, a cheaper picture for SwiftShader).
 */
export const EDITOR_VIEWPORT = { width: 1280, height: 720 } as const;

let storePromise: Promise<Store> | null = null;
export function store(): Promise<Store> {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error('E2E_DATA_DIR is not set: run the browser tests through playwright (global-setup).');
  storePromise ??= openFileStore(dir);
  return storePromise;
}

/** A scene id from a file name: url-safe characters only. */
export function sceneIdFor(prefix: string, file: string): string {
  return `${prefix}-${file.replace(/\.glb$/, '').replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/**
 * Runs `prepare` for `name` in one worker at a time (the workers are processes: the lock is a
 * folder in E2E_DATA_DIR, whose creation only one of them wins); the others wait for it.
 */
export async function underLock<T>(name: string, prepare: () => Promise<T>): Promise<T> {
  const dir = join(process.env.E2E_DATA_DIR ?? '', 'e2e-locks');
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, name);
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await new Promise((resolve) => setTimeout(resolve, 50)); // another worker prepares it
    }
  }
  try {
    return await prepare();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * Imports a model file into a new scene of its own, through the real import path; once, whichever
 * of the workers running in parallel asks first.
 */
export async function importIntoScene(path: string, sceneId: string): Promise<void> {
  const s = await store();
  if (await s.getScene(sceneId)) return;
  await underLock(`scene-${sceneId}`, async () => {
    if (!(await s.getScene(sceneId))) await importModel(s, { path }, { sceneId, name: sceneId });
  });
}

/**
 * Imports model files of ../shared/models (by file name) into one scene, through the real import
 * path: each file once (by its sourceFileName), whichever of the parallel workers asks first.
 */
export async function importFilesIntoScene(files: readonly string[], sceneId: string, options: { optimize?: boolean } = {}): Promise<void> {
  await underLock(`scene-${sceneId}`, async () => {
    const s = await store();
    const stored = new Set((await s.getScene(sceneId))?.models.map((m) => m.sourceFileName) ?? []);
    for (const file of files) if (!stored.has(file)) await importModel(s, { path: join(MODELS, file) }, { sceneId, name: sceneId, ...options });
  });
}

/**
 * Collects Content-Security-Policy violations of a page and its frames: `securitypolicyviolation`
 * events and the console's CSP errors. Call before the page loads anything.
 */
export async function watchPolicyViolations(page: Page): Promise<() => Promise<string[]>> {
  const logged: string[] = [];
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) logged.push(`console: ${message.text()}`);
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __policyViolations: string[] };
    w.__policyViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__policyViolations.push(`${e.violatedDirective}: ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  return async () => {
    const events: string[] = [];
    for (const frame of page.frames()) {
      try {
        events.push(...(await frame.evaluate(() => (window as unknown as { __policyViolations?: string[] }).__policyViolations ?? [])));
      } catch {
        // a frame that is gone or was refused
      }
    }
    return [...events, ...logged];
  };
}

/**
 * Stores arbitrary bytes as a model of a scene, wrapped as a legacy (zlib) container: the import
 * path refuses malformed files up front, and the viewer must cope with them anyway.
 */
export async function storeRawModel(sceneId: string, modelId: string, asset: Uint8Array, extra: { outputFormat?: string } = {}): Promise<void> {
  const s = await store();
  const versionKey = `${modelId}/v1`;
  await s.writeDerivative(versionKey, deflateSync(asset));
  const model = { _id: modelId, latestVersionKey: versionKey, outputFormat: extra.outputFormat ?? 'glb', sourceFileName: `${modelId}.glb` };
  await s.putModel(model);
  const scene = (await s.getScene(sceneId)) ?? { _id: sceneId, name: sceneId, thumbnailUrl: null, viewerConfig: {}, models: [] };
  scene.models = [...scene.models.filter((m) => m._id !== modelId), model];
  await s.putScene(scene);
}

export interface GlbCounts {
  nodes: number;
  meshes: number;
  animations: number;
}

/** Counts from the file itself: nodes and drawable primitives of the default scene, animations. */
export function countsFromGlb(bytes: Uint8Array): GlbCounts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const sceneIndex = json.scene ?? 0;
  const roots: number[] = json.scenes?.[sceneIndex]?.nodes ?? [];
  let nodes = 0;
  let meshes = 0;
  const visit = (i: number) => {
    nodes++;
    const node = json.nodes[i];
    if (node.mesh !== undefined) {
      for (const p of json.meshes[node.mesh].primitives) if (p.mode === undefined || p.mode >= 4) meshes++;
    }
    for (const c of node.children ?? []) visit(c);
  };
  roots.forEach(visit);
  return { nodes, meshes, animations: (json.animations ?? []).length };
}

export function readModel(file: string): Uint8Array {
  return new Uint8Array(readFileSync(join(MODELS, file)));
}

/** Records every message the page receives (the viewer posts to window.parent, which is itself at top level). */
export async function recordMessages(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __messages: unknown[] };
    w.__messages = [];
    window.addEventListener('message', (e) => w.__messages.push(e.data));
  });
}

export async function messages(page: Page): Promise<{ type?: string }[]> {
  return page.evaluate(() => (window as unknown as { __messages: { type?: string }[] }).__messages ?? []);
}

/**
 * Waits until the viewer is ready or failed, and the embed's panels are there (they render once
 * the load has ended: src/ui/embed-boot.ts panelsDue; the editor has no such root), and returns
 * which: a test that looks for what the panels show (notices, the failure overlay) finds it.
 * `panels: false` waits for the viewer alone.
 */
export async function settled(page: Page, timeout = 90_000, options: { panels?: boolean } = {}): Promise<'ready' | 'failed'> {
  const handle = await page.waitForFunction(
    (panels) => {
      const phase = (window as unknown as { __viewer?: { phase: string } }).__viewer?.phase;
      if (phase !== 'ready' && phase !== 'failed') return null;
      const ui = document.querySelector<HTMLElement>('.embed-ui');
      return !panels || !ui || ui.dataset.panels === 'ready' ? phase : null;
    },
    options.panels ?? true,
    { timeout, polling: 100 },
  );
  return (await handle.jsonValue()) as 'ready' | 'failed';
}

/**
 * Waits until the scene's shadows are in (src/engine/shadow-reveal.ts): the first picture goes out
 * without them, the maps are drawn a moment later and fade in.
 */
export async function shadowsShown(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(() => (window as any).__viewer.viewer.world.shadows.reveal.phase === 0, undefined, { timeout, polling: 50 });
}

export interface CanvasPixels {
  /** Share of pixels that differ clearly from the most common colour. */
  nonBackground: number;
  /** Number of distinct colours (quantised to 4 bits a channel). */
  colours: number;
}

/**
 * A PNG of the 3D view alone: everything the embed screen (or the editor's) draws over the canvas
 * (toolbars, panels, gizmo, labels, watermark, notices) is hidden for the moment of the
 * screenshot, so that pixel checks see the rendering and nothing else.
 */
export async function canvasScreenshot(page: Page): Promise<Buffer> {
  const style = await page.addStyleTag({ content: '.embed > :not(canvas), .editor-viewport > :not(canvas) { visibility: hidden !important; }' });
  try {
    return await page.getByTestId('viewer-canvas').screenshot();
  } finally {
    await style.evaluate((element) => (element as Element).remove());
  }
}

/** Statistics of the 3D view's pixels (see canvasScreenshot). */
export async function canvasPixels(page: Page): Promise<CanvasPixels> {
  const { data } = decodePng(await canvasScreenshot(page));
  const counts = new Map<number, number>();
  for (let i = 0; i < data.length; i += 4) {
    const key = ((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let bgKey = 0;
  let bgCount = 0;
  for (const [k, n] of counts) if (n > bgCount) [bgKey, bgCount] = [k, n];
  const br = (bgKey >> 8) << 4;
  const bg = ((bgKey >> 4) & 15) << 4;
  const bb = (bgKey & 15) << 4;
  let differ = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - br) + Math.abs(data[i + 1] - bg) + Math.abs(data[i + 2] - bb) > 48) differ++;
  }
  return { nonBackground: differ / (data.length / 4), colours: counts.size };
}

/**
 * In a scene of several models (all of them around the origin), shows only the model named `name`
 * (its sourceFileName), framed, and waits for that picture: the models' roots are shown and hidden
 * directly, a test's way to look at one model at a time.
 */
export async function showAlone(page: Page, name: string): Promise<void> {
  await page.evaluate(async (only) => {
    const v = (window as any).__viewer.viewer;
    const records: { name: string; root: { visible: boolean } }[] = [...v.world.models.values()];
    const record = records.find((r) => r.name === only);
    if (!record) throw new Error(`No model named ${only} in the scene`);
    for (const r of records) r.root.visible = r === record;
    await v.navigation.fit([record.root], false);
    await v.nextFrame();
  }, name);
}

export async function expectFailureOverlay(page: Page, detail?: string | RegExp): Promise<void> {
  const overlay = page.getByTestId('failure-overlay');
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText('Failed to load the scene.');
  await expect(overlay.getByRole('button', { name: 'Reload' })).toBeVisible();
  if (detail) await expect(overlay.locator('.failure-detail')).toContainText(detail);
}

/** Client pixel (CSS px in the page) of a world point, from the viewer's current camera. */
export function toClient(page: Page, p: readonly [number, number, number]): Promise<{ x: number; y: number }> {
  return page.evaluate(([x, y, z]) => {
    const viewer = (window as any).__viewer.viewer;
    const camera = viewer.world.render.camera;
    camera.updateMatrixWorld();
    const rect = (viewer.context.renderer.domElement as HTMLCanvasElement).getBoundingClientRect();
    const v = camera.position.clone().set(x, y, z).project(camera);
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }, p);
}
