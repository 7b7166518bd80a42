import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { analyseChunks, chunkComposition, type ChunkReport } from './chunks';
import { PLAIN_READY, startPagesServer } from './load-pages';
import { seedScenes, type LoadScene } from './load-scenes';
import { failedRunsRow, flagSetsFromEnv, flagsLabel, measureLoad, pictureRows, pictureText, startupText, type FlagSet, type LoadRun } from './load-run';
import { startServer } from './server';
import type { BenchResult } from './types';
import { medianRun } from './stats';

/**
 * Issue 9's load-time benchmark.
 *
 * 1. The code the embed loads (after a fresh build, like the other browser benchmarks): every JS
 *    chunk in dist/assets with raw and gzip size, and the first load of /embed/... (the entry of
 *    dist/index.html and its static imports). Goal: at most 400 kB gzip.
 * 2. Load time, for DamagedHelmet (imported as `npm run import` does: validated and optimised) and
 *    the generated demo warehouse (11,872 instances, 8 lights), each on the tier this machine
 *    detects and on `?quality=low`: our /embed/{scene} against a plain three.js page (fetch the
 *    GLB, GLTFLoader, one hemisphere light, one frame: bench/load-pages.ts) that loads the same
 *    GLB (DamagedHelmet.glb itself; for the warehouse the generator's GLB, before our import
 *    optimises it). Both are framed at 800 x 600 by a host page of another site and timed from
 *    the host's navigation start until it receives `viewerready` (ours) or the plain page's
 *    message after its first frame. Every run is a fresh Chromium with a new user-data-dir, whose
 *    page is opened once the browser has finished starting (bench/load-run.ts untilBrowserIdle;
 *    until 2026-11-28 the page was opened at once and shared the CPU with the browser's own
 *    start-up, 1 to 2 s of CPU); ours and plain alternate; median of BENCH_LOAD_RUNS (5). Goal:
 *    ours <= 1.2x plain.
 *    For ours, the median run's marks and longest main-thread tasks (inside the iframe) are rows
 *    too, so a regression shows where it happened. Also the CPU time all the browser's processes
 *    spent until the message (ours against plain): SwiftShader draws on the CPU, so this is the
 *    work itself, and on a machine that other work shares it moves much less than wall time
 *    (the machine's load average during the runs is the last row).
 *
 * 3. The picture (issue 35): each run also takes screenshots of the frame from the navigation on,
 *    and times the first that shows the picture the page settles on (bench/load-run.ts); with the
 *    tests' flags the message can come long before the picture. Every case runs on both flag sets,
 *    the tests' and Chromium's defaults (BENCH_LOAD_FLAGS). The 1.2x goal holds on the picture;
 *    the message's ratio is reported beside it. Also: how long after `viewerready` the host page's
 *    first host-API call (getCamera) is answered.
 *
 * Where the time goes, in detail: bench/profile-load.ts; experiments without changing the app:
 * bench/load-ab.ts.
 *
 * Environment: BENCH_LOAD_RUNS (5), BENCH_LOAD_TIMEOUT_S (120, per run: a run that fails or takes
 * longer is a failure row, not a hang), BENCH_LOAD_SCENES (helmet,warehouse), BENCH_LOAD_TIERS
 * (detected,low), BENCH_LOAD_FLAGS (tests,default), BENCH_LOAD_WARMUP (1: one unrecorded pair first, so that the first
 * recorded run does not also pay for cold disk caches and the server's JIT), BENCH_LOAD_BUDGET_S
 * (800). BENCH_LOAD_RUNS=0 reports the chunks only.
 */

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_LOAD_RUNS ?? 5);
const TIMEOUT_MS = Number(process.env.BENCH_LOAD_TIMEOUT_S ?? 120) * 1000;
const WARMUP = process.env.BENCH_LOAD_WARMUP !== '0';
/**
 * Wall-clock budget of this file (seeding, build, runs): a pair of runs that would not fit is left
 * out and the medians are of fewer runs (the runner stops a file at BENCH_TIMEOUT_S, 900 s).
 */
const BUDGET_MS = Number(process.env.BENCH_LOAD_BUDGET_S ?? 800) * 1000;
const SCENE_FILTER = (process.env.BENCH_LOAD_SCENES ?? 'helmet,warehouse').split(',').map((s) => s.trim());
const TIER_FILTER = (process.env.BENCH_LOAD_TIERS ?? 'detected,low').split(',').map((s) => s.trim());
const FLAG_SETS = flagSetsFromEnv();
/** The first-load goal of issue 9. */
const FIRST_LOAD_GOAL_KB = 400;
const RATIO_GOAL = 1.2;
/**
 * Our marks reported for the median run, in load order ('decoded' is the first model's; since
 * 2026-11-28's seventh session 'compiled' comes after a small scene's groups are made, which happens
 * while the models' programs link, so older 'compiled' figures of the warehouse do not compare).
 */
const MARKS = ['viewerinit', 'context', 'scene', 'decoded', 'framed', 'compiled', 'first-frame'] as const;
const LONG_TASKS_REPORTED = 3;

interface TierCase {
  key: 'detected' | 'low';
  query: string;
}

const kB = (bytes: number) => Math.round(bytes / 100) / 10;
const round = (ms: number) => Math.round(ms * 10) / 10;

/** Our mark names without the model id: 'model:abc:decoded' -> 'decoded' (the first of each). */
function markTimes(run: LoadRun): Map<string, number> {
  const out = new Map<string, number>();
  if (run.messages.viewerinit !== undefined) out.set('viewerinit', run.messages.viewerinit);
  for (const [name, t] of run.marks) {
    const short = name.replace(/^model:[^:]+:/, '');
    if (!out.has(short)) out.set(short, t);
  }
  return out;
}

/** The last of our marks at or before `t` ('start' before any). */
function phaseAt(marks: Map<string, number>, t: number): string {
  let phase = 'start';
  let at = -Infinity;
  for (const [name, time] of marks) if (time <= t && time >= at) [phase, at] = [name, time];
  return phase;
}

function chunkRows(report: ChunkReport): BenchResult[] {
  const rows: BenchResult[] = [
    {
      name: `chunks: embed first load (${report.firstLoad.map((f) => basename(f)).join(' + ')}), gzip`,
      value: kB(report.firstLoadGzip),
      unit: 'kB gzip',
      goal: `<= ${FIRST_LOAD_GOAL_KB} kB gzip`,
      pass: report.firstLoadGzip / 1000 <= FIRST_LOAD_GOAL_KB,
    },
    { name: 'chunks: embed first load, raw', value: kB(report.firstLoadRaw), unit: 'kB' },
  ];
  for (const c of report.chunks) {
    const how = c.firstLoad ? `${c.role}, first load` : c.role === 'other' ? 'fetched by URL on demand' : c.role;
    rows.push({ name: `chunk ${c.name} (${how}): gzip, baseline = raw`, value: kB(c.gzip), unit: 'kB gzip', baseline: kB(c.raw) });
  }
  return rows;
}

function printChunks(report: ChunkReport): void {
  console.log('[load] JS chunks in dist/assets (kB = 1000 bytes; gzip at zlib default level):');
  for (const c of report.chunks) console.log(`  ${c.file.padEnd(44)} ${String(kB(c.raw)).padStart(8)} kB  ${String(kB(c.gzip)).padStart(7)} kB gzip  ${c.role}${c.firstLoad ? ' (first load)' : ''}`);
  for (const file of report.firstLoad) {
    try {
      const parts = chunkComposition(join(ROOT, 'dist'), file);
      console.log(`[load] ${file} by source (its map; gzip of each part alone): ${parts.slice(0, 16).map((p) => `${p.group} ${kB(p.raw)}/${kB(p.gzip)}`).join(', ')} kB`);
    } catch (error) {
      console.log(`[load] ${file}: no composition (${(error as Error).message})`);
    }
  }
}

function printRun(label: string, run: LoadRun, report: ChunkReport | null): void {
  const marks = markTimes(run);
  console.log(`[load] ${label}, median run: ${round(run.ms)} ms (tier ${run.tier ?? '?'}); iframe navigation at ${round(run.frameStart)} ms`);
  console.log(`  marks (ms since host navigation): ${[...marks].map(([n, t]) => `${n} ${Math.round(t)}`).join(', ')}`);
  const tasks = [...run.longTasks].sort((a, b) => b[1] - a[1]);
  const total = tasks.reduce((s, [, d]) => s + d, 0);
  console.log(`  long tasks: ${tasks.length}, ${Math.round(total)} ms in all; longest: ${tasks.slice(0, 6).map(([s, d]) => `${Math.round(d)} ms at ${Math.round(s)} (after '${phaseAt(marks, s)}')`).join('; ')}`);
  const init = run.messages.viewerinit;
  if (init !== undefined && report) {
    const before = run.scripts.filter((s) => s.end <= init);
    const names = before.map((s) => new URL(s.url).pathname.replace(/^\//, ''));
    const same = names.length === report.firstLoad.length && names.every((n) => report.firstLoad.includes(n));
    console.log(`  scripts fetched before viewerinit: ${names.join(', ') || '(none)'} ${same ? '= the first load found in the build' : `!= the first load found in the build (${report.firstLoad.join(', ')})`}`);
    const later = run.scripts.filter((s) => s.end > init).map((s) => `${new URL(s.url).pathname.replace(/^\//, '')} at ${Math.round(s.end)}`);
    if (later.length) console.log(`  scripts fetched later: ${later.join(', ')}`);
  }
}

export default async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const deadline = Date.now() + BUDGET_MS;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  try {
    const scenes = await seedScenes(dataDir, SCENE_FILTER);
    // Builds dist/ when it is missing or stale (scripts/build-state.mjs), then serves it.
    const server = await startServer(dataDir);
    const glbs = Object.fromEntries(scenes.map((scene) => [scene.key, scene.glb]));
    const pages = await startPagesServer(glbs);
    try {
      const report = analyseChunks(join(ROOT, 'dist'));
      printChunks(report);
      results.push(...chunkRows(report));
      if (RUNS <= 0) return results;

      const tiers: TierCase[] = [
        { key: 'detected' as const, query: '' },
        { key: 'low' as const, query: '?quality=low' },
      ].filter((t) => TIER_FILTER.includes(t.key));
      type Combo = { scene: LoadScene; tier: TierCase; flags: FlagSet; label: string; ours: LoadRun[]; plain: LoadRun[]; failures: string[]; pairMs: number };
      const combos: Combo[] = scenes.flatMap((scene) =>
        tiers.flatMap((tier) =>
          FLAG_SETS.map((flags) => ({
            scene,
            tier,
            flags,
            label: `${scene.label}, ${tier.key === 'low' ? '?quality=low' : 'detected tier'}, ${flagsLabel(flags)}`,
            ours: [],
            plain: [],
            failures: [],
            pairMs: 0,
          })),
        ),
      );
      const ours = (combo: { scene: LoadScene; tier: TierCase; flags: FlagSet }) =>
        measureLoad({
          hostUrl: pages.hostUrl(`${server.base}/embed/${combo.scene.sceneId}${combo.tier.query}`),
          frameOrigin: server.base,
          message: 'viewerready',
          timeoutMs: TIMEOUT_MS,
          flags: combo.flags,
        });
      const plain = (combo: { scene: LoadScene; flags: FlagSet }) =>
        measureLoad({ hostUrl: pages.hostUrl(pages.plainUrl(combo.scene.key)), frameOrigin: `http://127.0.0.1:${pages.port}`, message: PLAIN_READY, timeoutMs: TIMEOUT_MS, flags: combo.flags });

      if (WARMUP && combos.length) {
        // Disk caches (Chromium, the app, three.js) and both servers' JIT, once.
        for (const [what, go] of [['ours', () => ours(combos[0])], ['plain', () => plain(combos[0])]] as const) {
          try {
            console.log(`[load] ${combos[0].label}: warm-up ${what} ${Math.round((await go()).ms)} ms (not recorded)`);
          } catch (error) {
            console.log(`[load] ${combos[0].label}: warm-up ${what} failed: ${(error as Error).message}`);
          }
        }
      }

      // Round robin: every scene and tier gets its i-th pair before any gets its (i+1)-th, so that
      // drift (and, on a shared machine, other load) spreads over all of them, and a run cut short
      // by the time budget still has as many runs of each.
      const loadAverages: number[] = [];
      let cutShort = 0;
      for (let i = 0; i < RUNS; i++) {
        for (const combo of combos) {
          if (Date.now() + combo.pairMs > deadline) {
            cutShort++;
            continue;
          }
          const pairStart = Date.now();
          for (const [side, go, into] of [
            ['ours', () => ours(combo), combo.ours],
            ['plain', () => plain(combo), combo.plain],
          ] as const) {
            loadAverages.push(loadavg()[0]);
            try {
              const r = await go();
              into.push(r);
              const cpu = r.cpu ? `; CPU ${Object.entries(r.cpu.byType).map(([t, ms]) => `${t} ${Math.round(ms)}`).join(', ')} ms` : '';
              console.log(
                `[load] ${combo.label} #${i + 1} ${side}: ${Math.round(r.ms)} ms${side === 'ours' ? ` (tier ${r.tier ?? '?'})` : ''}; ${pictureText(r)}${cpu}; load average ${loadavg()[0].toFixed(1)}; ${startupText(r.startup)}`,
              );
            } catch (error) {
              combo.failures.push(`${side} #${i + 1}: ${(error as Error).message}`);
              console.log(`[load] ${combo.label} #${i + 1} ${side}: FAILED ${(error as Error).message}`);
            }
          }
          combo.pairMs = Math.max(combo.pairMs, Date.now() - pairStart);
        }
      }
      if (cutShort) console.log(`[load] the time budget (BENCH_LOAD_BUDGET_S) left out ${cutShort} pairs`);

      let browserFirstLoadChecked = false;
      for (const { scene, tier, flags, label, ours: oursRuns, plain: plainRuns, failures } of combos) {
        const detectedTier = oursRuns.find((r) => r.tier)?.tier;
        const rowLabel = tier.key === 'detected' ? `${scene.label}, detected tier${detectedTier ? ` (${detectedTier})` : ''}, ${flagsLabel(flags)}` : label;
        if (failures.length) {
          results.push(failedRunsRow(`load: ${rowLabel}`, failures));
        }
        if (!oursRuns.length || !plainRuns.length) continue;

        const o = medianRun(oursRuns);
        const p = medianRun(plainRuns);
        const ratio = o.ms / p.ms;
        results.push({
          name: `load: ${rowLabel}: host navigation -> viewerready vs plain three.js's message after its first frame (the commands sent; the goal is on the picture), median of ${oursRuns.length}/${plainRuns.length}`,
          value: round(o.ms),
          unit: 'ms',
          baseline: round(p.ms),
          ratio: Math.round(ratio * 100) / 100,
        });
        results.push(...pictureRows(`load: ${rowLabel}`, oursRuns, plainRuns, { ratio: RATIO_GOAL }));
        if (scene.key === 'warehouse') {
          results.push({ name: `load: ${rowLabel}: load-to-ready (median)`, value: Math.round(o.ms / 10) / 100, unit: 's', baseline: Math.round(p.ms / 10) / 100 });
        }
        const marks = markTimes(o);
        for (const name of MARKS) {
          const t = marks.get(name);
          if (t !== undefined) results.push({ name: `load: ${rowLabel}: median run, '${name}'`, value: Math.round(t), unit: 'ms' });
        }
        const oursCpu = oursRuns.flatMap((r) => (r.cpu ? [r.cpu.total] : []));
        const plainCpu = plainRuns.flatMap((r) => (r.cpu ? [r.cpu.total] : []));
        if (oursCpu.length && plainCpu.length) {
          // Less sensitive than wall time to whatever else the machine runs meanwhile.
          const oc = medianRun(oursCpu.map((ms) => ({ ms }))).ms;
          const pc = medianRun(plainCpu.map((ms) => ({ ms }))).ms;
          results.push({ name: `load: ${rowLabel}: CPU time of all browser processes until the message, median (plain: baseline)`, value: Math.round(oc), unit: 'ms', baseline: Math.round(pc), ratio: Math.round((oc / pc) * 100) / 100 });
        }
        const tasks = [...o.longTasks].sort((a, b) => b[1] - a[1]);
        tasks.slice(0, LONG_TASKS_REPORTED).forEach(([start, duration], i) => {
          results.push({ name: `load: ${rowLabel}: median run, long task ${i + 1} (after '${phaseAt(marks, start)}')`, value: Math.round(duration), unit: 'ms' });
        });
        results.push({ name: `load: ${rowLabel}: median run, long tasks in all (plain page: baseline)`, value: Math.round(tasks.reduce((s, [, d]) => s + d, 0)), unit: 'ms', baseline: Math.round(p.longTasks.reduce((s, [, d]) => s + d, 0)) });

        printRun(label, o, browserFirstLoadChecked ? null : report);
        browserFirstLoadChecked = true;
        const pt = [...p.longTasks].sort((a, b) => b[1] - a[1]);
        console.log(`[load] ${label}, plain median run: ${round(p.ms)} ms; long tasks ${pt.slice(0, 4).map(([s, d]) => `${Math.round(d)} ms at ${Math.round(s)}`).join(', ')}`);
        console.log(`[load] ${label}: ours ${oursRuns.map((r) => Math.round(r.ms)).join(' ')} | plain ${plainRuns.map((r) => Math.round(r.ms)).join(' ')}`);
      }
      if (loadAverages.length) {
        // Wall times on a machine that other work shares are longer for both pages; the ratio less so.
        const mean = loadAverages.reduce((a, b) => a + b, 0) / loadAverages.length;
        results.push({ name: `load: machine load average (1 min) during the runs, ${cpus().length} cores`, value: Math.round(mean * 10) / 10, unit: '' });
      }
      return results;
    } finally {
      await pages.close();
      server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
