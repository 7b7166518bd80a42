/**
 * The host-page API (issue 12), from a host page at 127.0.0.1 driving the viewer at localhost (two
 * origins, two renderer processes, as on the web):
 *
 *   (a) api.request round trip: `getCamera` (a read, answered at once when nothing of the host's
 *       is queued) awaited one after the other, median and p99. Baseline: a bare postMessage
 *       ping-pong between the same two origins (an echo page), the transport alone: the
 *       difference is our checks and the reply.
 *   (a') a change's round trip (`setAnimationSpeed`): queued and applied by the message system at
 *       its slot of the next frame, which draws the picture (the message system asks for one), so
 *       its baseline is one drawn frame of the viewer (`nextFrame`), measured in the same run.
 *   (b) renderOffscreenFrame at 1920 x 1080 (another camera, then the view restored) against a
 *       screenshot of the same size, the same run, alternated; PNG, median of RUNS each.
 */
import { chromium } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { importModel } from '../src/server/import';
import { openFileStore } from '../src/server/store';
import { startServer } from './server';
import type { BenchResult } from './types';

const MODELS = resolve(import.meta.dirname, '../../shared/models');
const MODEL = process.env.BENCH_HOST_API_MODEL ?? 'DamagedHelmet.glb';
const ROUND_TRIPS = Number(process.env.BENCH_HOST_API_ROUND_TRIPS ?? 500);
const RUNS = Number(process.env.BENCH_HOST_API_RUNS ?? 5);
const CHANGES = Number(process.env.BENCH_HOST_API_CHANGES ?? 30);

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function hostPage(viewer: string, echo: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="viewer" src="${viewer}" style="width:960px;height:540px;border:0"></iframe>
<iframe id="echo" src="${echo}" style="width:10px;height:10px;border:0"></iframe>
<script type="module">
import { ViewerClient } from '${new URL(viewer).origin}/api/viewer-client.js';
const client = new ViewerClient(document.getElementById('viewer'));
window.ready = client.ready();
window.client = client;
window.echoReady = new Promise((resolve) => document.getElementById('echo').addEventListener('load', resolve));
window.ping = (n) => new Promise((resolve) => {
  const echo = document.getElementById('echo').contentWindow;
  const origin = new URL(document.getElementById('echo').src).origin;
  const times = [];
  let t0 = 0;
  const onMessage = (e) => {
    if (e.source !== echo) return;
    times.push(performance.now() - t0);
    if (times.length === n) { removeEventListener('message', onMessage); resolve(times); return; }
    t0 = performance.now();
    echo.postMessage({ type: 'api.request', requestId: times.length, func: 'getCamera', arguments: {} }, origin);
  };
  addEventListener('message', onMessage);
  t0 = performance.now();
  echo.postMessage({ type: 'api.request', requestId: 0, func: 'getCamera', arguments: {} }, origin);
});
window.roundTrips = async (n, func, args) => {
  const times = [];
  for (let i = 0; i < n; i++) { const t0 = performance.now(); await client.call(func, args); times.push(performance.now() - t0); }
  return times;
};
window.frameRate = async () => {
  let n = 0; const t0 = performance.now();
  // The host page's own frames, for reference (the viewer's are slower on a software GPU).
  await new Promise((resolve) => { const f = () => { n++; if (performance.now() - t0 < 1000) requestAnimationFrame(f); else resolve(); }; requestAnimationFrame(f); });
  return n;
};
window.picture = async (kind) => {
  const t0 = performance.now();
  const image = kind === 'offscreen'
    ? await client.api.renderOffscreenFrame({ width: 1920, height: 1080, position: [2, 1, 3], target: [0, 0, 0], fit: true })
    : await client.api.screenshot({ width: 1920, height: 1080 });
  return { ms: performance.now() - t0, width: image.width, height: image.height, bytes: image.dataUrl.length };
};
</script></body></html>`;
}

const ECHO = `<!doctype html><html><body><script>addEventListener('message', (e) => e.source.postMessage({ type: 'api.response', requestId: e.data.requestId, response: null }, e.origin));</script></body></html>`;

export default async function run(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-host-api-'));
  const store = await openFileStore(dataDir);
  await importModel(store, { path: join(MODELS, MODEL) }, { sceneId: 'bench-api', name: 'bench-api' });
  await store.updateScene('bench-api', (scene) => ({ ...scene, hostOrigins: ['*'] }));
  const server = await startServer(dataDir);
  const port = new URL(server.base).port;
  let html = '';
  const pages: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(request.url?.startsWith('/echo') ? ECHO : html);
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const pagesPort = (pages.address() as AddressInfo).port;
  html = hostPage(`http://localhost:${port}/embed/bench-api`, `http://localhost:${pagesPort}/echo.html`);
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`http://127.0.0.1:${pagesPort}/host.html`);
    await page.evaluate(() => Promise.all([(window as any).ready, (window as any).echoReady]));
    // Warm up both paths, then measure them alternately in blocks.
    await page.evaluate(() => (window as any).roundTrips(20, 'getCamera', {}));
    await page.evaluate(() => (window as any).ping(20));
    const ours: number[] = [];
    const bare: number[] = [];
    const block = Math.max(1, Math.floor(ROUND_TRIPS / 5));
    for (let done = 0; done < ROUND_TRIPS; done += block) {
      ours.push(...(await page.evaluate((n) => (window as any).roundTrips(n, 'getCamera', {}), block)));
      bare.push(...(await page.evaluate((n) => (window as any).ping(n), block)));
    }
    const changes: number[] = await page.evaluate((n) => (window as any).roundTrips(n, 'setAnimationSpeed', { speed: 1 }), CHANGES);
    // A change is applied at the next frame, which then draws the picture (the message system asks
    // for one): its baseline is one drawn frame of the viewer, measured in the same run.
    const viewerFrame = page.frames().find((f) => f.url().includes('/embed/'))!;
    const drawn: number[] = await viewerFrame.evaluate(async (n) => {
      const viewer = (window as any).__viewer.viewer;
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await viewer.nextFrame();
        times.push(performance.now() - t0);
      }
      return times;
    }, CHANGES);
    const offscreen: number[] = [];
    const screenshot: number[] = [];
    await page.evaluate(() => (window as any).picture('offscreen'));
    await page.evaluate(() => (window as any).picture('screenshot'));
    for (let i = 0; i < RUNS; i++) {
      const a = await page.evaluate(() => (window as any).picture('offscreen'));
      const b = await page.evaluate(() => (window as any).picture('screenshot'));
      if (a.width !== 1920 || a.height !== 1080 || b.width !== 1920 || b.height !== 1080) throw new Error(`pictures of the wrong size: ${JSON.stringify([a, b])}`);
      offscreen.push(a.ms);
      screenshot.push(b.ms);
    }
    const median = (v: number[]) => quantile(v, 0.5);
    return [
      {
        name: `host API: api.request round trip (getCamera, 127.0.0.1 page -> localhost viewer), median of ${ours.length}, vs bare postMessage echo`,
        value: median(ours),
        unit: 'ms',
        baseline: median(bare),
        ratio: median(ours) / median(bare),
        goal: '<= 5 ms',
        pass: median(ours) <= 5,
      },
      {
        name: `host API: api.request round trip, p99 of ${ours.length}, vs bare postMessage echo p99`,
        value: quantile(ours, 0.99),
        unit: 'ms',
        baseline: quantile(bare, 0.99),
        ratio: quantile(ours, 0.99) / quantile(bare, 0.99),
      },
      {
        name: `host API: a change's round trip (setAnimationSpeed, applied at the next frame's message slot, which draws), median of ${CHANGES}, vs one drawn frame of the viewer (nextFrame)`,
        value: median(changes),
        unit: 'ms',
        baseline: median(drawn),
        ratio: median(changes) / median(drawn),
        goal: '<= 2 drawn frames',
        pass: median(changes) <= 2 * median(drawn),
      },
      {
        name: `host API: renderOffscreenFrame 1920x1080 PNG (fit, view restored), ${MODEL}, median of ${RUNS}, vs screenshot 1920x1080 same run`,
        value: median(offscreen),
        unit: 'ms',
        baseline: median(screenshot),
        ratio: median(offscreen) / median(screenshot),
        goal: '<= 1.2 x the screenshot',
        pass: median(offscreen) <= 1.2 * median(screenshot),
      },
    ];
  } finally {
    await browser.close();
    pages.close();
    server.stop();
  }
}
