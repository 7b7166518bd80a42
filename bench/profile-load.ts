import { chromium, type Frame, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { glProbe, type GlProbe } from './gl-probe';
import { startPagesServer } from './load-pages';
import { seedScenes } from './load-scenes';
import { startServer } from './server';
import { untilBrowserIdle } from './load-run';
import { readSourceMap, type SourceMap } from './sourcemap';

/**
 * Where the load time of our embed goes: one load as bench/load.bench.ts measures it (fresh
 * Chromium, host page of another site, 800 x 600 iframe), recorded three ways at once:
 * - Chrome tracing of every process (the iframe's renderer with V8's sampling profiler, the GPU
 *   process): tasks, script evaluation, timers, GC, JavaScript by function;
 * - the GL probe (bench/gl-probe.ts): every WebGL call that blocked the page's main thread for
 *   2 ms or more with its stack, and every program link (which material variant, how long the
 *   wait for its status was, which code linked it);
 * - the CPU time of every thread of every browser process, read from /proc every 50 ms: the GPU
 *   process draws with SwiftShader on the CPU, which the page's trace only shows as waiting.
 * Stacks and profile frames are mapped through dist's source maps to src/ and node_modules/.
 * Times are in ms since the host page's navigation start, as in the benchmark.
 *
 *   npx tsx bench/profile-load.ts --scene helmet|warehouse|city [--quality low] [--out DIR]
 *   npx tsx bench/profile-load.ts --analyse DIR/profile-helmet   (again, from the saved files)
 *
 * Writes DIR/profile-{scene}[-{quality}].trace.json (open it in DevTools' Performance panel),
 * .probe.json (GL probe, marks, CPU samples) and .txt (this summary). Not a benchmark: the runner
 * ignores it; the probe and the tracing slow the page down a little.
 */

const ROOT = resolve(import.meta.dirname, '..');

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  id?: string | number;
  args?: Record<string, any>;
}

/** Per thread: process id, thread id, Chromium process type, thread name, CPU ms so far. */
type ThreadCpu = [pid: number, tid: number, type: string, thread: string, cpuMs: number];
interface CpuSample {
  /** Epoch ms. */
  t: number;
  threads: ThreadCpu[];
}

interface Recording {
  scene: string;
  quality: string | null;
  hostTimeOrigin: number;
  frameTimeOrigin: number;
  /** The iframe's marks: name, ms since its own navigation start. */
  marks: [string, number][];
  /** Host messages: type -> ms since the host's navigation start. */
  messages: Record<string, number>;
  probe: GlProbe;
  cpu: CpuSample[];
  /** The app origin (to recognise its scripts in stacks). */
  appOrigin: string;
}

const CATEGORIES = [
  '-*',
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
  'loading',
  'gpu',
  'viz',
  '__metadata',
];

const { values: argv } = parseArgs({
  options: {
    scene: { type: 'string', default: 'helmet' },
    quality: { type: 'string' },
    out: { type: 'string', default: join(tmpdir(), 'load-profile') },
    analyse: { type: 'string' },
    'min-task': { type: 'string', default: '100' },
    /**
     * 'draw': wait for the GPU after every draw, upload and link; 'pass': at every change of
     * framebuffer, link and upload (bench/gl-probe.ts). Slower, but each piece of GPU work is timed
     * on its own.
     */
    sync: { type: 'string' },
    /** An experiment: CSS added to the embed page (e.g. '.loading{backdrop-filter:none!important}'). */
    css: { type: 'string' },
  },
});
const MIN_TASK_MS = Number(argv['min-task']);

// ---- /proc ----------------------------------------------------------------------------------

function cpuOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The --user-data-dir of the Chromium that this process started (Playwright's temporary profile). */
function launchedProfileDir(): string | undefined {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const dir = /--user-data-dir=(\S+)/.exec(cmdline)?.[1];
      if (dir) return dir;
    } catch {
      // gone
    }
  }
  return undefined;
}

function sampleThreads(profileDir: string): ThreadCpu[] {
  const out: ThreadCpu[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (!` ${cmdline} `.includes(` --user-data-dir=${profileDir} `)) continue;
      const type = /(?:^| )--type=(\S+)/.exec(cmdline)?.[1] ?? 'browser';
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
          out.push([Number(pid), Number(tid), type, comm, cpuOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))]);
        } catch {
          // thread gone
        }
      }
    } catch {
      // process gone
    }
  }
  return out;
}

// ---- recording --------------------------------------------------------------------------------

function findFrame(page: Page, origin: string): Frame | undefined {
  return page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(origin));
}

async function record(base: string): Promise<{ rec: Recording; events: TraceEvent[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
  const [scene] = await seedScenes(dataDir, [argv.scene!]);
  if (!scene) throw new Error(`unknown scene ${argv.scene} (helmet, warehouse or city)`);
  const server = await startServer(dataDir);
  const pages = await startPagesServer({});
  // chromium.launch starts from a new, empty profile of its own.
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  const cpu: CpuSample[] = [];
  let sampler: NodeJS.Timeout | undefined;
  try {
    const profileDir = launchedProfileDir();
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
    await context.addInitScript(glProbe(argv.sync === 'pass' ? 'pass' : argv.sync === 'draw'));
    if (argv.css) {
      const css = JSON.stringify(argv.css);
      await context.addInitScript(`if (location.pathname.startsWith('/embed/')) document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style'); s.textContent = ${css}; document.head.append(s); })`);
    }
    const page = await context.newPage();
    // As the benchmark does: the page is opened once the browser has finished starting (and the
    // tracing starts after that wait, so that its own work does not keep the browser busy).
    if (profileDir) await untilBrowserIdle(profileDir);
    await browser.startTracing(undefined, { categories: CATEGORIES });
    if (profileDir) {
      const sample = () => cpu.push({ t: Date.now(), threads: sampleThreads(profileDir) });
      sample();
      sampler = setInterval(sample, 50);
    } else {
      console.log('(no /proc view of the browser: no CPU samples)');
    }
    const src = `${server.base}/embed/${scene.sceneId}${argv.quality ? `?quality=${argv.quality}` : ''}`;
    await page.goto(pages.hostUrl(src), { waitUntil: 'commit' });
    await page.waitForFunction(`window.__bench.messages.some((m) => m.type === 'viewerready')`, undefined, { timeout: 300_000, polling: 200 });
    // A little after, so the trace and the samples hold the end of the last task.
    await page.waitForTimeout(500);
    clearInterval(sampler);
    const host = (await page.evaluate(`({ timeOrigin: performance.timeOrigin, messages: window.__bench.messages })`)) as { timeOrigin: number; messages: { type: string; t: number }[] };
    const frame = findFrame(page, server.base);
    if (!frame) throw new Error('no iframe');
    const inFrame = (await frame.evaluate(`({ timeOrigin: performance.timeOrigin, marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]), probe: window.__glProbe })`)) as {
      timeOrigin: number;
      marks: [string, number][];
      probe: GlProbe;
    };
    const buffer = await browser.stopTracing();
    const messages: Record<string, number> = {};
    for (const m of host.messages) if (!(m.type in messages)) messages[m.type] = m.t;
    const rec: Recording = {
      scene: scene.key,
      quality: argv.quality ?? null,
      hostTimeOrigin: host.timeOrigin,
      frameTimeOrigin: inFrame.timeOrigin,
      marks: inFrame.marks,
      messages,
      probe: inFrame.probe,
      cpu,
      appOrigin: server.base,
    };
    writeFileSync(`${base}.trace.json`, buffer);
    writeFileSync(`${base}.probe.json`, JSON.stringify(rec));
    console.log(`viewerready at ${messages.viewerready?.toFixed(0)} ms after the host's navigation start; trace: ${base}.trace.json`);
    return { rec, events: (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents };
  } finally {
    clearInterval(sampler);
    await browser.close();
    await pages.close();
    server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- source locations ---------------------------------------------------------------------

const maps = new Map<string, SourceMap | undefined>();
const sourceLines = new Map<string, string[] | undefined>();

interface Located {
  source: string;
  line: number;
  name: string;
  text: string;
}

/** The original location of a position in a built chunk ('/assets/index-X.js', 0-based line and column). */
function original(assetPath: string, line: number, column: number): Located | undefined {
  if (!maps.has(assetPath)) maps.set(assetPath, readSourceMap(join(ROOT, 'dist', assetPath)));
  const map = maps.get(assetPath);
  const pos = map?.lookup(line, column);
  if (!map || !pos) return undefined;
  const source = pos.source.replace(/^(\.\.\/)+/, '');
  if (!sourceLines.has(source)) {
    const i = map.sources.indexOf(pos.source);
    let text = map.sourcesContent?.[i] ?? null;
    if (text === null) {
      try {
        text = readFileSync(join(ROOT, source), 'utf8');
      } catch {
        text = null;
      }
    }
    sourceLines.set(source, text ? text.split('\n') : undefined);
  }
  return { source, line: pos.line + 1, name: pos.name ?? '', text: sourceLines.get(source)?.[pos.line]?.trim().slice(0, 60) ?? '' };
}

const short = (l: Located) => `${l.source.replace(/^node_modules\//, '')}:${l.line}${l.name ? ` ${l.name}` : ''}`;
const isOurs = (l: Located) => !l.source.startsWith('node_modules/');

/** A profile call frame as 'src/viewer/viewer.ts:391 warmUp | line text', or the native name. */
function locateFrame(frame: { functionName: string; url: string; lineNumber: number; columnNumber: number }): string {
  const { url, functionName, lineNumber, columnNumber } = frame;
  if (!url) return functionName || '(native)';
  const path = /\/assets\/[^/?#]+\.js/.exec(url)?.[0];
  const l = path ? original(path, lineNumber, columnNumber) : undefined;
  if (!l) return `${functionName || '(anonymous)'} ${url.replace(/^https?:\/\/[^/]+/, '')}:${lineNumber + 1}`;
  return `${short(l)} | ${l.text}`;
}

/** A JS stack (Error().stack) as original frames. */
function locateStack(stack: string): Located[] {
  const out: Located[] = [];
  for (const m of stack.matchAll(/(\/assets\/[^/?#:]+\.js):(\d+):(\d+)/g)) {
    const l = original(m[1], Number(m[2]) - 1, Number(m[3]) - 1);
    if (l) out.push(l);
  }
  return out;
}

/** 'src/a.ts:1 f < src/b.ts:2 g' (our frames, innermost first), with the innermost library frame before them. */
function describeStack(stack: string, depth = 3): string {
  const frames = locateStack(stack);
  const firstOurs = frames.findIndex(isOurs);
  if (firstOurs < 0) return frames.slice(0, depth).map(short).join(' < ') || '(no stack)';
  const lib = firstOurs > 0 ? `${short(frames[firstOurs - 1])} < ` : '';
  return lib + frames.slice(firstOurs).filter(isOurs).slice(0, depth).map(short).join(' < ');
}

// ---- trace helpers ----------------------------------------------------------------------------

interface Profile {
  pid: number;
  nodes: Map<number, { frame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; parent?: number }>;
  /** [trace ts (us), leaf node id] */
  samples: [number, number][];
}

function profiles(events: TraceEvent[]): Profile[] {
  const byId = new Map<string, Profile>();
  const time = new Map<string, number>();
  for (const e of events) {
    if (e.name === 'Profile') {
      const id = `${e.pid}:${e.id}`;
      byId.set(id, { pid: e.pid, nodes: new Map(), samples: [] });
      time.set(id, e.args?.data?.startTime ?? e.ts);
    }
  }
  for (const e of events.filter((x) => x.name === 'ProfileChunk').sort((a, b) => a.ts - b.ts)) {
    const id = `${e.pid}:${e.id}`;
    const p = byId.get(id);
    if (!p) continue;
    const data = e.args?.data ?? {};
    for (const n of data.cpuProfile?.nodes ?? []) p.nodes.set(n.id, { frame: n.callFrame, parent: n.parent });
    const samples: number[] = data.cpuProfile?.samples ?? [];
    const deltas: number[] = data.timeDeltas ?? [];
    let t = time.get(id)!;
    for (let i = 0; i < samples.length; i++) {
      t += deltas[i] ?? 0;
      p.samples.push([t, samples[i]]);
    }
    time.set(id, t);
  }
  return [...byId.values()];
}

/** The renderer process that committed a document whose URL contains `part`. */
function rendererOf(events: TraceEvent[], part: string): number | undefined {
  for (const e of events) {
    const d = e.args?.data;
    if (e.name === 'FrameCommittedInBrowser' && typeof d?.url === 'string' && d.url.includes(part) && d.processId) return d.processId;
  }
  for (const e of events) {
    const url = e.args?.data?.url ?? e.args?.beginData?.url ?? e.args?.data?.documentLoaderURL;
    if (['ParseHTML', 'CommitLoad', 'navigationStart'].includes(e.name) && typeof url === 'string' && url.includes(part)) return e.pid;
  }
  return undefined;
}

// ---- analysis ---------------------------------------------------------------------------------

const f0 = (n: number) => n.toFixed(0);
const pad = (s: string | number, n: number) => String(s).padStart(n);

function analyse(rec: Recording, events: TraceEvent[]): string {
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  const hostOrigin = rec.hostTimeOrigin;
  const frameOffset = rec.frameTimeOrigin - hostOrigin; // frame time + offset = host time
  const marks = rec.marks.map(([name, t]) => [name.replace(/^viewer:/, '').replace(/^model:[^:]+:/, ''), t + frameOffset] as [string, number]);
  const ready = rec.messages.viewerready;
  out(`Scene ${rec.scene}${rec.quality ? `, ?quality=${rec.quality}` : ', detected tier'}: viewerready at ${f0(ready)} ms (times: ms since the host page's navigation start)`);

  // Trace clock -> host time, by the marks (each is in the trace as a blink.user_timing event).
  const pid = rendererOf(events, '/embed/');
  const traceMarks = events.filter((e) => e.cat?.includes('blink.user_timing') && e.name.startsWith('viewer:') && (pid === undefined || e.pid === pid));
  const firstMark = rec.marks[0];
  const traceMark = traceMarks.find((e) => e.name === firstMark?.[0]);
  const traceOffset = traceMark && firstMark ? traceMark.ts / 1000 - (firstMark[1] + frameOffset) : NaN; // trace ms - host ms
  const hostOfTrace = (us: number) => us / 1000 - traceOffset;
  const threads = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args?.name);
  const mainTid = [...threads].find(([k, v]) => k.startsWith(`${pid}:`) && v === 'CrRendererMain')?.[0].split(':')[1];
  if (pid === undefined || mainTid === undefined || Number.isNaN(traceOffset)) {
    out('(the trace has no iframe renderer or marks: trace sections left out)');
  }
  const tid = Number(mainTid);

  // Boundaries: iframe navigation, viewerinit, each mark, viewerready.
  const bounds: [string, number][] = [['host navigation', 0], ['iframe navigation', frameOffset]];
  if (rec.messages.viewerinit !== undefined) bounds.push(['viewerinit', rec.messages.viewerinit]);
  for (const m of marks) bounds.push(m);
  bounds.push(['viewerready', ready]);
  bounds.sort((a, b) => a[1] - b[1]);

  // The iframe main thread's top-level tasks, in host time.
  const main = pid !== undefined ? events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X') : [];
  const runTasks = main.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask').sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const tasks: TraceEvent[] = [];
  for (const e of runTasks) {
    const last = tasks[tasks.length - 1];
    if (last && e.ts >= last.ts && e.ts + (e.dur ?? 0) <= last.ts + (last.dur ?? 0)) continue;
    tasks.push(e);
  }
  const prof = pid !== undefined ? profiles(events).filter((p) => p.pid === pid) : [];
  const inMain = (p: Profile) => p.samples.filter(([t]) => tasks.some((k) => t >= k.ts && t <= k.ts + (k.dur ?? 0))).length;
  const mainProfile = prof.sort((a, b) => inMain(b) - inMain(a))[0];

  /** JS self time by function over [from, to) in host ms (from the sampling profile), ms. */
  const selfTime = (from: number, to: number) => {
    const self = new Map<string, number>();
    if (!mainProfile) return self;
    const s = mainProfile.samples.filter(([t]) => hostOfTrace(t) >= from && hostOfTrace(t) < to);
    for (let i = 0; i < s.length; i++) {
      const dt = i + 1 < s.length ? Math.min(s[i + 1][0] - s[i][0], 20_000) / 1000 : 1;
      const node = mainProfile.nodes.get(s[i][1]);
      if (!node) continue;
      const name = locateFrame(node.frame);
      self.set(name, (self.get(name) ?? 0) + dt);
    }
    return self;
  };
  /** Total (inclusive) time by function, ours (src/, systems/) only. */
  const oursTotal = (from: number, to: number) => {
    const total = new Map<string, number>();
    if (!mainProfile) return total;
    const s = mainProfile.samples.filter(([t]) => hostOfTrace(t) >= from && hostOfTrace(t) < to);
    for (let i = 0; i < s.length; i++) {
      const dt = i + 1 < s.length ? Math.min(s[i + 1][0] - s[i][0], 20_000) / 1000 : 1;
      const seen = new Set<string>();
      for (let id: number | undefined = s[i][1]; id !== undefined; ) {
        const node = mainProfile.nodes.get(id);
        if (!node) break;
        const name = locateFrame(node.frame);
        if (/^(src|systems|components)\//.test(name) && !seen.has(name)) {
          seen.add(name);
          total.set(name, (total.get(name) ?? 0) + dt);
        }
        id = node.parent;
      }
    }
    return total;
  };

  // CPU from /proc: per phase, by (process, thread), in ms.
  const frameRenderer = pid;
  const label = (p: number, type: string, thread: string) => {
    const proc = type === 'renderer' ? (p === frameRenderer ? 'iframe renderer' : 'other renderer') : type;
    // Worker threads: SwiftShader's and the thread pools are many; name them by kind.
    // A process's main thread keeps the executable's name in /proc ('chromium').
    const t = thread === 'chromium' ? 'main' : /^(ThreadPool|VizCompositor|Chrome_ChildIO|DedicatedWorker|Compositor)/i.exec(thread)?.[1] ?? thread;
    return `${proc}/${t}`;
  };
  const cpuAt = (hostMs: number) => {
    const epoch = hostOrigin + hostMs;
    let best = rec.cpu[0];
    for (const s of rec.cpu) if (s.t <= epoch) best = s;
    return best;
  };
  const cpuBetween = (from: number, to: number) => {
    const a = cpuAt(from);
    const b = cpuAt(to);
    const out = new Map<string, number>();
    if (!a || !b) return out;
    const before = new Map(a.threads.map(([, tid, , , ms]) => [tid, ms]));
    for (const [p, tid, type, thread, ms] of b.threads) {
      const l = label(p, type, thread);
      out.set(l, (out.get(l) ?? 0) + ms - (before.get(tid) ?? 0));
    }
    return out;
  };
  const fmtCpu = (m: Map<string, number>, n = 5) =>
    [...m]
      .filter(([, v]) => v >= 10)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${k} ${f0(v)}`)
      .join(', ');

  // GL probe, in host time.
  const probe = rec.probe ?? { calls: [], programs: [], totals: {}, contexts: [] };
  const glCalls = probe.calls.map((c) => ({ ...c, t: c.t + frameOffset }));
  const programs = probe.programs.map((p) => ({ ...p, linkedAt: p.linkedAt + frameOffset, statusAt: p.statusAt !== undefined ? p.statusAt + frameOffset : undefined }));

  // ---- 1. phases
  out('\n1. Phases (between consecutive marks): wall ms | iframe main thread: busy ms, CPU ms | blocked in WebGL calls ms | CPU ms of the browser processes (from /proc) | JavaScript self time');
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [name, from] = bounds[i];
    const [next, to] = bounds[i + 1];
    if (to - from < 1) continue;
    let busy = 0;
    let cpu = 0;
    for (const k of tasks) {
      const s = hostOfTrace(k.ts);
      const e = hostOfTrace(k.ts + (k.dur ?? 0));
      const overlap = Math.max(0, Math.min(e, to) - Math.max(s, from));
      if (overlap > 0 && k.dur) {
        busy += overlap;
        cpu += ((k.tdur ?? 0) / 1000) * (overlap / (k.dur / 1000));
      }
    }
    const gl = glCalls.filter((c) => c.t >= from && c.t < to);
    const glMs = gl.reduce((s, c) => s + c.ms, 0);
    const glBy = new Map<string, number>();
    for (const c of gl) glBy.set(c.fn, (glBy.get(c.fn) ?? 0) + c.ms);
    const self = [...selfTime(from, to)].filter(([k]) => !/^\((idle|program)\)$/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 4);
    out(`\n  ${name} -> ${next}: ${f0(from)} .. ${f0(to)} = ${f0(to - from)} ms wall`);
    out(`    main thread busy ${f0(busy)} ms, CPU ${f0(cpu)} ms; blocked in WebGL calls >= 2 ms: ${f0(glMs)} ms${glBy.size ? ` (${[...glBy].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${f0(v)}`).join(', ')})` : ''}`);
    out(`    CPU: ${fmtCpu(cpuBetween(from, to), 6) || '-'}`);
    if (self.length) out(`    JS self: ${self.map(([k, v]) => `${f0(v)} ms ${k.split(' | ')[0]}`).join('; ')}`);
  }

  // ---- 2. long tasks
  out(`\n2. The iframe's main-thread tasks of ${MIN_TASK_MS} ms or more`);
  for (const k of tasks.filter((x) => (x.dur ?? 0) >= MIN_TASK_MS * 1000)) {
    const from = hostOfTrace(k.ts);
    const to = hostOfTrace(k.ts + (k.dur ?? 0));
    const phase = [...bounds].reverse().find(([, t]) => t <= from)?.[0] ?? 'start';
    out(`\n  task at ${f0(from)} ms (after '${phase}'): ${f0((k.dur ?? 0) / 1000)} ms wall, ${f0((k.tdur ?? 0) / 1000)} ms main-thread CPU`);
    const inside = main.filter((e) => e !== k && !/RunTask$/.test(e.name) && e.ts >= k.ts && e.ts + (e.dur ?? 0) <= k.ts + (k.dur ?? 0));
    const byName = new Map<string, number>();
    for (const e of inside) {
      const key = e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.evaluateModule' || e.name === 'TimerFire' || e.name === 'FireAnimationFrame' || /GC|Wait|Finish|CommandBuffer|GetError|Bucket/.test(e.name) ? e.name : '';
      if (key) byName.set(key, (byName.get(key) ?? 0) + (e.dur ?? 0) / 1000);
    }
    out(`    trace events: ${[...byName].sort((a, b) => b[1] - a[1]).slice(0, 7).map(([n, v]) => `${n} ${f0(v)}`).join('; ')}`);
    out(`    CPU meanwhile: ${fmtCpu(cpuBetween(from, to), 6)}`);
    const self = [...selfTime(from, to)].sort((a, b) => b[1] - a[1]).slice(0, 6);
    out(`    JS self time:\n${self.map(([n, v]) => `      ${pad(f0(v), 6)} ms  ${n}`).join('\n')}`);
    const ours = [...oursTotal(from, to)].sort((a, b) => b[1] - a[1]).slice(0, 8);
    if (ours.length) out(`    our code (inclusive):\n${ours.map(([n, v]) => `      ${pad(f0(v), 6)} ms  ${n}`).join('\n')}`);
    const gl = glCalls.filter((c) => c.t >= from && c.t < to && c.ms >= 10).sort((a, b) => b.ms - a.ms).slice(0, 8);
    if (gl.length) out(`    WebGL calls >= 10 ms:\n${gl.map((c) => `      ${pad(f0(c.ms), 6)} ms  ${c.fn}${c.detail ? `(${c.detail})` : ''} at ${f0(c.t)} from ${describeStack(c.stack)}`).join('\n')}`);
    const linked = programs.filter((p) => p.linkedAt >= from && p.linkedAt < to);
    if (linked.length) out(`    programs linked: ${linked.length} (${linked.map((p) => `#${p.id} ${p.name}`).join(', ')})`);
  }

  // ---- 3. programs
  out(`\n3. WebGL programs linked (${programs.length}): when, which material variant, the wait for its status, what linked it`);
  for (const p of programs) {
    const defines = p.defines.filter((d) => !/^(GLSL|SHADER_TYPE|STANDARD|PHYSICAL)/.test(d)).join(' ');
    out(`  #${p.id} at ${f0(p.linkedAt)} ms: ${p.name} [${defines}] link ${f0(p.linkMs)} ms; ${p.statusFn ? `${p.statusFn} at ${f0(p.statusAt!)} waited ${f0(p.statusMs!)} ms` : 'status never queried'}; from ${describeStack(p.stack, 4)}`);
  }

  // ---- 4. WebGL calls that blocked longest, and contexts
  out('\n4. WebGL contexts created');
  for (const c of probe.contexts) out(`  at ${f0(c.t + frameOffset)} ms, ${f0(c.ms)} ms: ${c.attributes} from ${describeStack(c.stack)}`);
  out('\n5. WebGL calls by total blocking time (count, total ms)');
  out(
    '  ' +
      Object.entries(probe.totals)
        .filter(([, v]) => v.ms >= 5)
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([k, v]) => `${k} x${v.n} ${f0(v.ms)}`)
        .join('; '),
  );
  out('\n6. The 15 longest single WebGL calls');
  for (const c of [...glCalls].sort((a, b) => b.ms - a.ms).slice(0, 15)) out(`  ${pad(f0(c.ms), 6)} ms  ${c.fn}${c.detail ? `(${c.detail})` : ''} at ${f0(c.t)} from ${describeStack(c.stack, 4)}`);

  // ---- GPU work, timed one by one (sync mode)
  if (probe.sync && probe.work?.length) {
    const names = new Map(programs.map((p) => [p.id, `#${p.id} ${p.name}`]));
    const phaseOf = (t: number) => [...bounds].reverse().find(([, b]) => b <= t)?.[0] ?? 'start';
    const groups = new Map<string, { n: number; ms: number; first: number; phases: Set<string> }>();
    for (const w of probe.work) {
      const what = w.fn === 'pass' ? `pass into ${w.target} ${w.viewport}: programs ${String(w.detail ?? '').split(' ').filter(Boolean).map((id) => (id === 'clear' ? 'clear' : names.get(Number(id)) ?? id)).join(', ')}` : w.fn.startsWith('draw') ? `draw ${names.get(w.program ?? 0) ?? `program ${w.program}`} into ${w.viewport}${(w.instances ?? 1) > 1 ? `, ${w.instances} instances` : ''}` : `${w.fn}(${w.detail ?? ''})${w.viewport ? ` viewport ${w.viewport}` : ''}`;
      const g = groups.get(what) ?? { n: 0, ms: 0, first: w.t + frameOffset, phases: new Set<string>() };
      g.n++;
      g.ms += w.ms;
      g.phases.add(phaseOf(w.t + frameOffset));
      groups.set(what, g);
    }
    const total = probe.work.reduce((a, w) => a + w.ms, 0);
    out(`\nGPU work, each piece waited for (sync mode ${probe.sync}): ${probe.work.length} pieces, ${f0(total)} ms; by kind (count, ms, first at, after marks):`);
    if (probe.sync === 'pass') {
      out('  passes in order (ms since host navigation: wall ms of the pass = JavaScript issuing it + the wait for the GPU at its end; draws, instances):');
      for (const w of probe.work) {
        const t = w.t + frameOffset;
        if (w.fn !== 'pass' && w.ms < 20) continue;
        const label = w.fn === 'pass' ? `pass ${w.target} ${w.viewport} draws ${w.count} instances ${w.instances} programs ${w.detail}` : `${w.fn}(${w.detail ?? ''})`;
        out(`    ${pad(f0(t), 7)} ${pad(f0(w.ms), 6)} ms${w.wait !== undefined ? ` (wait ${f0(w.wait)})` : ''}  ${label}`);
      }
    }
    for (const [what, g] of [...groups].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30)) out(`  ${pad(f0(g.ms), 7)} ms  x${g.n}  ${what}  (first at ${f0(g.first)}; after ${[...g.phases].join(', ')})`);
    const links = programs.reduce((a, p) => a + p.linkMs, 0);
    out(`  program links (each waited for): ${programs.length}, ${f0(links)} ms: ${programs.map((p) => `#${p.id} ${f0(p.linkMs)}`).join(', ')}`);
  }

  // ---- 7. whole-load CPU
  out(`\n7. CPU ms of the browser's processes from host navigation to viewerready: ${fmtCpu(cpuBetween(0, ready), 12)}`);
  return lines.join('\n');
}

const base = argv.analyse ?? join(argv.out!, `profile-${argv.scene}${argv.quality ? `-${argv.quality}` : ''}${argv.sync ? `-sync-${argv.sync}` : ''}${argv.css ? '-css' : ''}`);
let rec: Recording;
let events: TraceEvent[];
if (argv.analyse) {
  rec = JSON.parse(readFileSync(`${base}.probe.json`, 'utf8')) as Recording;
  events = (JSON.parse(readFileSync(`${base}.trace.json`, 'utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
} else {
  mkdirSync(argv.out!, { recursive: true });
  ({ rec, events } = await record(base));
}
const summary = analyse(rec, events);
writeFileSync(`${base}.txt`, summary + '\n');
console.log(summary);
