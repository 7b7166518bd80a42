import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, type BenchServer } from './server.ts';
import type { BenchResult } from './types.ts';

/**
 * The server under upload load (issue 10, item 2), over real HTTP against `npm start`'s server in
 * its own process:
 *
 * - GET latency (a scene document, GET /v1/scenes/demo, one request at a time, every PROBE_GAP_MS)
 *   while UPLOADS uploads of the largest corpus model are sent at once, against the same probe on
 *   the idle server just before (baseline). Goal: p99 under load < 100 ms.
 * - the server process's resident memory: before, at its peak during the uploads, and after.
 *
 * BENCH_UPLOAD_LOAD_ROOT runs the server of another checkout (to measure a commit before a change);
 * BENCH_UPLOADS changes the number of uploads (default 20).
 */

const MODELS = resolve(import.meta.dirname, '../../shared/models');
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);
const PROBE_GAP_MS = 20;
const IDLE_PROBE_MS = 10_000;
const GOAL_P99_MS = 100;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Resident memory of a process, now and at its peak (VmHWM), in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** GETs `url` one at a time, every PROBE_GAP_MS, until `until` settles; the latencies in ms. */
async function probe(url: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
  }
  return latencies;
}

async function signIn(server: BenchServer): Promise<string> {
  const res = await fetch(`${server.base}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'Bench', lastName: 'Uploads' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

export default async function run(): Promise<BenchResult[]> {
  const largest = readdirSync(MODELS)
    .filter((name) => name.endsWith('.glb'))
    .map((name) => ({ name, size: statSync(join(MODELS, name)).size }))
    .sort((a, b) => b.size - a.size)[0];
  const bytes = new Uint8Array(readFileSync(join(MODELS, largest.name)));
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-upload-load-'));
  // One person sends all the uploads: the per-person limits (UPLOADS_IN_FLIGHT_PER_USER and the
  // hourly bytes) are lifted, so the figures are the server's under load, not a quota's refusals.
  const server = await startServer(dataDir, {
    build: false,
    root: process.env.BENCH_UPLOAD_LOAD_ROOT,
    env: { UPLOADS_IN_FLIGHT_PER_USER: '100000', UPLOAD_BYTES_PER_HOUR: String(Number.MAX_SAFE_INTEGER) },
  });
  try {
    const token = await signIn(server);
    const post = () =>
      fetch(`${server.base}/v1/models`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'model/gltf-binary', 'x-file-name': largest.name },
        body: bytes,
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      });
    // Warm-up: codecs, validator, worker threads, JIT.
    await post();
    const scene = `${server.base}/v1/scenes/demo`;

    const idle = await probe(scene, new Promise((r) => setTimeout(r, IDLE_PROBE_MS)));
    const before = memory(server.pid);

    let peakRss = before.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, memory(server.pid).rss)), 100);
    const started = performance.now();
    const uploads = Promise.all(Array.from({ length: UPLOADS }, post));
    const loaded = await probe(scene, uploads);
    const statuses = await uploads;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, 2000));
    const after = memory(server.pid);

    const created = statuses.filter((s) => s === 201).length;
    const p99 = percentile(loaded, 99);
    const idleP99 = percentile(idle, 99);
    const label = `${UPLOADS} concurrent uploads of ${largest.name} (${(largest.size / 1e6).toFixed(1)} MB)`;
    return [
      {
        name: `GET p99 during ${label} (baseline: idle)`,
        value: Math.round(p99),
        unit: 'ms',
        baseline: Math.round(idleP99 * 10) / 10,
        ratio: Math.round((p99 / idleP99) * 10) / 10,
        goal: `< ${GOAL_P99_MS} ms`,
        pass: p99 < GOAL_P99_MS,
      },
      { name: `  GET p50 / max during the uploads (${loaded.length} GETs)`, value: Math.round(percentile(loaded, 50)), unit: 'ms', baseline: Math.round(Math.max(...loaded)) },
      { name: `  uploads answered 201 (others: ${[...new Set(statuses.filter((s) => s !== 201))].join(', ') || 'none'}), all in`, value: created, unit: `of ${UPLOADS}`, baseline: Math.round(seconds) },
      { name: '  server RSS at its peak during the uploads (baseline: before)', value: Math.round(peakRss), unit: 'MB', baseline: Math.round(before.rss), ratio: Math.round((peakRss / before.rss) * 100) / 100 },
      { name: '  server RSS 2 s after the uploads (baseline: before)', value: Math.round(after.rss), unit: 'MB', baseline: Math.round(before.rss), ratio: Math.round((after.rss / before.rss) * 100) / 100 },
    ];
  } finally {
    server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
