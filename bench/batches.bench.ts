import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { findChromium } from '../scripts/chromium.mjs';
import { loadServerConfig } from '../src/server/config';
import { buildPartsModel, createPartsScene, PARTS_MATERIALS } from '../src/server/demo-parts';
import { openFileStore } from '../src/server/store';
import { FRAME_HEIGHT, FRAME_WIDTH, PLAIN_READY, startPagesServer } from './load-pages';
import {
  failedRunsRow,
  FLAG_ARGS,
  flagSetsFromEnv,
  flagsLabel,
  measureLoad,
  pictureRows,
  pictureText,
  startupText,
  type FlagSet,
  type LoadRun,
} from './load-run';
import { startServer } from './server';
import type { BenchResult } from './types';
import { median } from './stats';
import { openViewerPage } from './viewer-page';

/**
 * Issue 35 item 4: a model of many parts (`npm run demo -- parts N`: a plant of machines, N part
 * nodes in 8 materials, stored as it comes, not optimised) drawn through one BatchedMesh per
 * material (src/engine/model-batches.ts).
 *
 * Frames: in one page of ours (/embed/{scene}, 800 x 600) the camera orbits a little before each
 * frame, drawn as the render system draws a frame where only the camera moved (shadow maps kept)
 * and waited for with readPixels. Batched against the same viewer with `setModelBatching(false)`,
 * which draws every part as its own mesh, as three.js draws the GLB's meshes: the baseline, the
 * way a person who loads the model with GLTFLoader gets it. Alternating batched, unbatched,
 * batched, so both see the same machine. Rows: the frame (render call + GPU wait), the render
 * call alone (main thread: what a real GPU leaves of the frame), draw calls (renderer.info, every
 * pass), on each flag set.
 *
 * Loads: ours framed by a host page of another site against the plain three.js page
 * (bench/load-pages.ts: GLTFLoader, one render) on the same GLB, each run a fresh Chromium
 * profile, alternating; navigation to `viewerready` / `plainready`, the first picture seen in
 * screenshots of the frame, the first host-API answer after viewerready.
 *
 * Environment: BENCH_BATCHES_SIZES (50000), BENCH_BATCHES_RUNS (3 loads a side), BENCH_BATCHES_FRAMES
 * (5 a round), BENCH_BATCHES_QUERY ('?quality=low'), BENCH_LOAD_FLAGS (tests,default),
 * BENCH_LOAD_TIMEOUT_S (180 per run).
 */

const SIZES = (process.env.BENCH_BATCHES_SIZES ?? '50000').split(',').map((s) => Number(s.trim()));
const RUNS = Number(process.env.BENCH_BATCHES_RUNS ?? 3);
const FRAMES = Number(process.env.BENCH_BATCHES_FRAMES ?? 5);
const QUERY = process.env.BENCH_BATCHES_QUERY ?? '?quality=low';
const TIMEOUT_MS = Number(process.env.BENCH_LOAD_TIMEOUT_S ?? 180) * 1000;
const FLAG_SETS = flagSetsFromEnv();
/**
 * The draw calls a frame of the plant may take at the low tier (the default query): one per
 * material in the picture and in the sun's one shadow map, and a few of the frame's own (ground,
 * background). Higher tiers add passes that draw each batch again (ambient occlusion's normals):
 * with another BENCH_BATCHES_QUERY the goal is a floor, not theirs.
 */
const CALLS_GOAL = 2 * PARTS_MATERIALS + 8;

const round = (ms: number) => Math.round(ms);
const round1 = (ms: number) => Math.round(ms * 10) / 10;

interface FrameFigures {
  /** Render call + readPixels, each frame (ms). */
  frameMs: number[];
  /** The render call alone (main thread), each frame (ms). */
  renderMs: number[];
  calls: number;
  triangles: number;
  batches: number;
}

function openPlant(browser: Browser, url: string): Promise<Page> {
  return openViewerPage(browser, url, {
    viewport: { width: FRAME_WIDTH, height: FRAME_HEIGHT },
    readyTimeoutMs: TIMEOUT_MS,
    shadowsTimeoutMs: TIMEOUT_MS,
    what: 'the plant',
  });
}

/** Switches batching and waits for the frame that makes (or removes) the batches to be drawn; returns how many there are. */
async function setBatching(page: Page, on: boolean): Promise<number> {
  return page.evaluate(async (on) => {
    const v = (window as any).__viewer.viewer;
    v.setModelBatching(on);
    await v.nextFrame();
    let batches = 0;
    for (const list of v.world.render.batches.byModel.values()) batches += list.length;
    return batches;
  }, on);
}

/** Orbit frames as the render system draws them when only the camera moved: shadow maps kept. */
async function orbitFrames(page: Page, frames: number): Promise<FrameFigures> {
  return page.evaluate((frames) => {
    const v = (window as any).__viewer.viewer;
    const r = v.world.render;
    const renderer = r.renderer;
    const gl = renderer.getContext() as WebGL2RenderingContext;
    const pixel = new Uint8Array(4);
    const info = renderer.info;
    const draw = (keepShadows: boolean) => {
      v.controls.rotate(0.01, 0, false);
      v.controls.update(0);
      r.camera.updateMatrixWorld();
      renderer.shadowMap.autoUpdate = !keepShadows;
      const t0 = performance.now();
      // The low tier has no post-processing: the renderer draws the scene itself.
      if (r.draw) r.draw(1 / 60);
      else renderer.render(r.scene, r.camera);
      const t1 = performance.now();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
      renderer.shadowMap.autoUpdate = true;
      return { frame: performance.now() - t0, render: t1 - t0 };
    };
    // Counted on a frame that draws the shadow map too: every pass.
    info.autoReset = false;
    info.reset();
    draw(false);
    const calls = info.render.calls;
    const triangles = info.render.triangles;
    info.autoReset = true;
    draw(true); // programs compiled, targets allocated
    const frame: number[] = [];
    const render: number[] = [];
    for (let i = 0; i < frames; i++) {
      const t = draw(true);
      frame.push(t.frame);
      render.push(t.render);
    }
    r.needsRender = true;
    let batches = 0;
    for (const list of r.batches.byModel.values()) batches += list.length;
    return { frameMs: frame, renderMs: render, calls, triangles, batches };
  }, frames);
}

async function measureFrames(url: string, flags: FlagSet, label: string): Promise<BenchResult[]> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...FLAG_ARGS[flags]], headless: true });
  try {
    const page = await openPlant(browser, url);
    const batched: FrameFigures[] = [];
    const unbatched: FrameFigures[] = [];
    // Alternating, so both ways see the same machine; medians over every frame of a way.
    for (const on of [true, false, true, false]) {
      const made = await setBatching(page, on);
      if (on && made === 0) throw new Error('no batch was made for the plant');
      if (!on && made > 0) throw new Error(`${made} batches were left with batching off`);
      const f = await orbitFrames(page, FRAMES);
      (on ? batched : unbatched).push(f);
      console.log(
        `[batches] ${label} ${on ? 'batched' : 'unbatched'}: frame ${round1(median(f.frameMs))} ms, render call ${round1(median(f.renderMs))} ms, ${f.calls} draws, ${f.triangles} triangles, ${f.batches} batches; load average ${loadavg()[0].toFixed(1)}`,
      );
    }
    const figures = (runs: FrameFigures[]) => ({
      frameMs: median(runs.flatMap((f) => f.frameMs)),
      renderMs: median(runs.flatMap((f) => f.renderMs)),
      calls: Math.max(...runs.map((f) => f.calls)),
      batches: Math.min(...runs.map((f) => f.batches)),
      triangles: runs[0].triangles,
    });
    const b = figures(batched);
    const u = figures(unbatched);
    // ratio: batched / every part its own mesh (below 1: the batches are cheaper).
    const ratio = (value: number, baseline: number) => Number((value / baseline).toPrecision(3));
    const prefix = `batches: ${label}, camera orbiting (shadow maps kept)`;
    const frames = `median of ${FRAMES * batched.length}/${FRAMES * unbatched.length}`;
    return [
      {
        name: `${prefix}: draw calls of a frame with its shadow map, batched (${b.batches} batches, ${b.triangles.toLocaleString('en-US')} triangles) vs every part its own mesh`,
        value: b.calls,
        unit: 'draws',
        baseline: u.calls,
        ratio: ratio(b.calls, u.calls),
        goal: `<= ${CALLS_GOAL} (${PARTS_MATERIALS} materials)`,
        pass: b.calls <= CALLS_GOAL,
      },
      {
        name: `${prefix}: render call (main thread), ${frames}, batched vs every part its own mesh (as GLTFLoader's meshes draw)`,
        value: round1(b.renderMs),
        unit: 'ms',
        baseline: round1(u.renderMs),
        ratio: ratio(b.renderMs, u.renderMs),
      },
      {
        name: `${prefix}: frame (render call + GPU wait), ${frames}, batched vs every part its own mesh`,
        value: round1(b.frameMs),
        unit: 'ms',
        baseline: round1(u.frameMs),
        ratio: ratio(b.frameMs, u.frameMs),
        goal: '<= 1.0x',
        pass: b.frameMs <= u.frameMs,
      },
    ];
  } finally {
    await browser.close().catch(() => undefined);
  }
}

async function measureLoads(
  server: string,
  pages: Awaited<ReturnType<typeof startPagesServer>>,
  sceneId: string,
  glbName: string,
  flags: FlagSet,
  label: string,
): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const ours: LoadRun[] = [];
  const plain: LoadRun[] = [];
  const failures: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const side of ['ours', 'plain'] as const) {
      try {
        const r =
          side === 'ours'
            ? await measureLoad({
                hostUrl: pages.hostUrl(`${server}/embed/${sceneId}${QUERY}`),
                frameOrigin: server,
                message: 'viewerready',
                timeoutMs: TIMEOUT_MS,
                flags,
              })
            : await measureLoad({
                hostUrl: pages.hostUrl(pages.plainUrl(glbName)),
                frameOrigin: pages.url(''),
                message: PLAIN_READY,
                timeoutMs: TIMEOUT_MS,
                flags,
              });
        (side === 'ours' ? ours : plain).push(r);
        console.log(
          `[batches] ${label} load #${i + 1} ${side}: ${round(r.ms)} ms; ${pictureText(r)}${r.cpu ? `; CPU ${round(r.cpu.total)} ms` : ''}; load average ${loadavg()[0].toFixed(1)}; ${startupText(r.startup)}`,
        );
      } catch (error) {
        failures.push(`${side} #${i + 1}: ${(error as Error).message.split('\n')[0]}`);
        console.log(`[batches] ${label} load #${i + 1} ${side}: FAILED ${(error as Error).message}`);
      }
    }
  }
  if (failures.length) results.push(failedRunsRow(`batches load: ${label}`, failures));
  if (!ours.length || !plain.length) return results;
  // ratio: ours / plain (above 1: ours is slower), as pictureRows gives it.
  const o = median(ours.map((r) => r.ms));
  const p = median(plain.map((r) => r.ms));
  results.push({
    name: `batches load: ${label}: host navigation -> viewerready vs plain three.js GLTFLoader's first render, median of ${ours.length}/${plain.length}`,
    value: round(o),
    unit: 'ms',
    baseline: round(p),
    ratio: Math.round((o / p) * 100) / 100,
  });
  results.push(...pictureRows(`batches load: ${label}`, ours, plain));
  return results;
}

export default async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-batches-'));
  try {
    const config = loadServerConfig({ ...process.env, DATA_DIR: dataDir });
    const store = await openFileStore(dataDir);
    const scenes: { n: number; sceneId: string; glbName: string }[] = [];
    const glbs: Record<string, Uint8Array> = {};
    try {
      for (const n of SIZES) {
        const made = await createPartsScene({ config, store }, n, { sceneId: `bench-plant-${n}` });
        console.log(`[batches] scene of a ${n.toLocaleString('en-US')}-part plant made in ${round(made.ms)} ms`);
        const glbName = `plant-${n}`;
        glbs[glbName] = await buildPartsModel(n);
        scenes.push({ n, sceneId: made.scene._id, glbName });
      }
    } finally {
      await store.close();
    }
    const server = await startServer(dataDir);
    let pages: Awaited<ReturnType<typeof startPagesServer>> | null = null;
    try {
      pages = await startPagesServer(glbs);
      for (const scene of scenes) {
        for (const flags of FLAG_SETS) {
          const label = `${scene.n.toLocaleString('en-US')}-part plant (${PARTS_MATERIALS} materials${QUERY ? `, ${QUERY}` : ''}, ${flagsLabel(flags)})`;
          try {
            results.push(...(await measureFrames(`${server.base}/embed/${scene.sceneId}${QUERY}${QUERY ? '&' : '?'}uiWatermark=false`, flags, label)));
          } catch (error) {
            console.log(`[batches] ${label} frames: FAILED ${(error as Error).message}`);
            results.push({
              name: `batches: ${label}: frames failed (${(error as Error).message.split('\n')[0].slice(0, 200)})`,
              value: 1,
              unit: 'runs',
              goal: '0',
              pass: false,
            });
          }
          results.push(...(await measureLoads(server.base, pages, scene.sceneId, scene.glbName, flags, label)));
        }
      }
      results.push({ name: `batches: machine load average (1 min) at the end, ${cpus().length} cores`, value: round1(loadavg()[0]), unit: '' });
      return results;
    } finally {
      await pages?.close();
      server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
