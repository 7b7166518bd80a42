import { chromium, type BrowserContext, type Frame, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CHROMIUM_ARGS, DEFAULT_FLAG_ARGS, findChromium } from '../scripts/chromium.mjs';
import { decodePng } from '../tests/e2e/png';
import { FRAME_HEIGHT, FRAME_WIDTH } from './load-pages';
import type { BenchResult } from './types';
import { median } from './stats';

/**
 * One load measurement: a fresh Chromium process with a new, empty user-data-dir (no HTTP cache,
 * no compiled-shader cache), the host page on another origin framing the page under test at
 * 800 x 600, timed from the host page's navigation start until the host receives the framed
 * page's message. Then, from inside the frame: its performance marks, its long tasks (a
 * PerformanceObserver installed before any of its scripts) and the scripts it fetched.
 *
 * The message says when the page sent its commands, not when a person sees the picture: with the
 * tests' flags (SwiftShader asked for by name) the page goes on while the GPU process is still
 * drawing, so a message can come a minute before the picture. So each run also takes screenshots
 * of the frame, one after the other from the navigation on, and reports the first that shows the
 * picture the page settles on (`picture`); and it runs on either flag set (`flags`): the tests'
 * or Chromium's defaults, on which the page waits for each picture as a visitor's browser does.
 */

/** Which Chromium flags a run uses: the tests' and benchmarks' (SwiftShader by name) or Chromium's defaults. */
export type FlagSet = 'tests' | 'default';
export const FLAG_SETS: readonly FlagSet[] = ['tests', 'default'];
/** Chromium's flags of each flag set. */
export const FLAG_ARGS: Record<FlagSet, readonly string[]> = { tests: CHROMIUM_ARGS, default: DEFAULT_FLAG_ARGS };

/** The flag sets a benchmark runs on: BENCH_LOAD_FLAGS (tests,default); unknown names are an error. */
export function flagSetsFromEnv(value = process.env.BENCH_LOAD_FLAGS ?? 'tests,default'): FlagSet[] {
  const sets = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = sets.filter((s) => !(FLAG_SETS as readonly string[]).includes(s));
  if (unknown.length || !sets.length) throw new Error(`BENCH_LOAD_FLAGS: expected a list of ${FLAG_SETS.join(', ')}, got '${value}'`);
  return sets as FlagSet[];
}

/** How a flag set reads in a row's name. */
export function flagsLabel(flags: FlagSet): string {
  return flags === 'tests' ? "tests' flags" : 'default flags';
}

/** Installed in every frame before its own scripts (a string: tsx would add helpers to a function). */
const LONG_TASK_OBSERVER = `(() => {
  const tasks = (window.__longTasks = []);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask' });
  } catch (error) {
    window.__longTaskError = String(error);
  }
})()`;

/** Read from inside the framed page once it reported. */
const FRAME_FACTS = `(() => {
  const marks = performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]);
  const resources = performance.getEntriesByType('resource').map((r) => ({
    url: r.name, start: r.startTime, end: r.responseEnd, bytes: r.encodedBodySize, initiator: r.initiatorType,
  }));
  const v = window.__viewer;
  let tier = null;
  try { tier = v && v.viewer ? v.viewer.quality.settings.tier : null; } catch (e) { tier = null; }
  return {
    timeOrigin: performance.timeOrigin,
    marks,
    longTasks: window.__longTasks || [],
    longTaskError: window.__longTaskError || null,
    resources,
    phase: v ? v.phase : null,
    tier,
    failure: v && v.phase === 'failed' ? (v.failure ?? '') : null,
  };
})()`;

export interface FrameFacts {
  timeOrigin: number;
  marks: [string, number][];
  longTasks: [number, number][];
  longTaskError: string | null;
  resources: { url: string; start: number; end: number; bytes: number; initiator: string }[];
  phase: string | null;
  tier: string | null;
  failure: string | null;
}

/** CPU time (user + system, ms) of the processes of one browser, by Chromium process type. */
export interface BrowserCpu {
  total: number;
  /** 'browser', 'gpu-process', 'renderer', 'utility', ... */
  byType: Record<string, number>;
}

const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux

/**
 * The CPU time so far of every process of the Chromium started with `userDataDir` (each of its
 * processes has the flag on its command line), read from /proc; null where /proc cannot tell.
 * Wall time on a shared machine includes waiting for the CPU; CPU time much less so.
 */
export function browserCpu(userDataDir: string): BrowserCpu | null {
  const processes = browserProcesses(userDataDir);
  if (!processes) return null;
  const out: BrowserCpu = { total: 0, byType: {} };
  for (const { type, ms } of processes.values()) {
    out.byType[type] = (out.byType[type] ?? 0) + ms;
    out.total += ms;
  }
  return out.total > 0 ? out : null;
}

/** Each process of that browser by pid: its type and CPU time so far (ms); null without /proc. */
function browserProcesses(userDataDir: string): Map<string, { type: string; ms: number }> | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  const flag = `--user-data-dir=${userDataDir}`;
  const out = new Map<string, { type: string; ms: number }>();
  for (const pid of pids) {
    try {
      // Chromium's child processes rewrite their argv into one space-separated string.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (!` ${cmdline} `.includes(` ${flag} `)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the command name.
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
      out.set(pid, { type: /(?:^| )--type=(\S+)/.exec(cmdline)?.[1] ?? 'browser', ms });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Waits until the fresh browser has finished starting: a Chromium just launched spends 1 to 2 s of
 * CPU on both cores in its first second (its own UI's WebUI pages, the omnibox popup among them),
 * which is the cost of starting a browser, not of loading a page. A person's browser is running
 * before they open a page, so each run opens its page once the browser's processes have been
 * quiet for a while (at most `maxMs`; the time waited is returned). Both pages are timed this way.
 */
export async function untilBrowserIdle(userDataDir: string, maxMs = 10_000): Promise<{ waitedMs: number; quiet: boolean }> {
  const start = Date.now();
  const windowMs = 300;
  const quietCpuMs = 30;
  const quietWindows = 2;
  let before = browserProcesses(userDataDir);
  if (!before || before.size === 0) throw new Error(`cannot see the browser's processes in /proc (user-data-dir ${userDataDir}): the wait for its start-up needs them`);
  let quiet = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = browserProcesses(userDataDir) ?? new Map<string, { type: string; ms: number }>();
    // What each process used in the window (a process started meanwhile: all of its time; one that
    // ended: nothing, never a negative share).
    let used = 0;
    for (const [pid, { ms }] of now) used += Math.max(0, ms - (before.get(pid)?.ms ?? 0));
    before = now;
    quiet = used < quietCpuMs ? quiet + 1 : 0;
    if (quiet >= quietWindows) return { waitedMs: Date.now() - start, quiet: true };
    if (Date.now() - start >= maxMs) return { waitedMs: Date.now() - start, quiet: false };
  }
}

/** The wait for the browser's start-up, for a run's log line. */
export function startupText(startup: LoadRun['startup']): string {
  return `browser start-up ${startup.waitedMs} ms${startup.quiet ? '' : ' (never quiet: page opened at the cap)'}`;
}

export interface LoadRun {
  /** Host navigation start -> the awaited message, in ms. */
  ms: number;
  /** Every message the host received: type -> ms since its navigation start (first of each type). */
  messages: Record<string, number>;
  /** The framed page's marks, in ms since the HOST's navigation start ('viewer:' prefix removed). */
  marks: [string, number][];
  /** The framed page's long tasks [start, duration], start in ms since the host's navigation start. */
  longTasks: [number, number][];
  /** The framed page's navigation start, in ms since the host's. */
  frameStart: number;
  /** Scripts the framed page fetched: url, response end (host time), bytes. */
  scripts: { url: string; end: number; bytes: number }[];
  tier: string | null;
  /** CPU time of all the browser's processes from just before the host navigation until the message was seen (polled every 200 ms). */
  cpu: BrowserCpu | null;
  /** How long the run waited for the fresh browser to finish starting; quiet false: it never did (the cap). */
  startup: { waitedMs: number; quiet: boolean };
  flags: FlagSet;
  /** The screenshots of the frame (null when the run took none: `picture: false`). */
  picture: PictureTiming | null;
  /** The first host-API call after `viewerready` (the host page's getCamera): ms from viewerready to its answer; null: none was asked or answered. */
  apiAnswer: { ms: number; error: string | null } | null;
}

/** When the picture was seen, from screenshots of the frame taken one after the other. */
export interface PictureTiming {
  /** Host navigation start -> the answer to the first screenshot that shows the settled picture (ms). */
  firstMs: number;
  /** How much earlier it may have been shown: since the answer to the screenshot before (ms). */
  uncertaintyMs: number;
  shots: number;
  /** Whether the picture came to rest (QUIET_MS of alike screenshots after the GPU finished) before SETTLE_MS. */
  settled: boolean;
}

export interface LoadRunOptions {
  /** The host page URL (framing the page under test). */
  hostUrl: string;
  /** The framed page's origin, to find its frame. */
  frameOrigin: string;
  /** The message type that ends the measurement. */
  message: string;
  timeoutMs: number;
  /** More init scripts for every frame (experiments: bench/load-ab.ts). */
  initScripts?: string[];
  /** Chromium's flags (default: the tests'). */
  flags?: FlagSet;
  /** Time the picture with screenshots of the frame (default true). */
  picture?: boolean;
}

/** A screenshot's summary: the mean of R, G and B over cells of CELL x CELL pixels, row by row. */
const CELL = 8;
/** Cells whose means differ by more than this are different (compression and dithering stay under it). */
const CELL_LEVELS = 16;
/** Two screenshots show the same picture when at most this share of their cells differ (a small animation, a blinking caret). */
const SAME_SHARE = 0.01;
/** Screenshots at a quarter of the size (cheap to encode, keep and decode). */
const SHOT_SCALE = 0.25;
const SHOT_OPTIONS = { scale: SHOT_SCALE, width: FRAME_WIDTH, height: FRAME_HEIGHT };
/** The shortest time between two screenshots' requests (ms). */
const SHOT_GAP_MS = 100;
/** The host page's size (the frame at its top left). */
const VIEWPORT = { width: 1000, height: 700 };
/** The picture is at rest once the screenshots of this long after the GPU finished are alike (ms)... */
const QUIET_MS = 1000;
/** ...within this long (ms; a page that keeps changing is reported as never at rest). */
const SETTLE_MS = 10_000;
/** BENCH_LOAD_SHOTS_DIR: every screenshot is also written there (profile name, number, epoch ms of its answer), to look at. */
const SHOTS_DIR = process.env.BENCH_LOAD_SHOTS_DIR ?? '';

/**
 * A picture's summary: the mean of R, G and B over cells of CELL x CELL pixels of the page, row by
 * row, over its top-left `width` x `height` CSS pixels (the frame), from a PNG drawn at `scale`
 * pixels per CSS pixel (the benchmark's quarter-size screenshots: 0.25).
 */
export function pictureCells(png: Buffer, options: { scale?: number; width?: number; height?: number } = {}): Uint8Array {
  const p = decodePng(png);
  const scale = options.scale ?? 1;
  const width = options.width ?? p.width / scale;
  const height = options.height ?? p.height / scale;
  const columns = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const sums = new Float64Array(columns * rows);
  const counts = new Uint32Array(columns * rows);
  const xs = Math.min(p.width, Math.round(width * scale));
  const ys = Math.min(p.height, Math.round(height * scale));
  for (let y = 0; y < ys; y++) {
    const row = Math.min(rows - 1, Math.floor(y / scale / CELL)) * columns;
    for (let x = 0; x < xs; x++) {
      const i = (y * p.width + x) * 4;
      const c = row + Math.min(columns - 1, Math.floor(x / scale / CELL));
      sums[c] += (p.data[i] + p.data[i + 1] + p.data[i + 2]) / 3;
      counts[c]++;
    }
  }
  const out = new Uint8Array(columns * rows);
  for (let c = 0; c < out.length; c++) out[c] = counts[c] ? Math.round(sums[c] / counts[c]) : 0;
  return out;
}

/**
 * Whether two screenshots' cells show the same picture (SAME_SHARE), leaving out the cells that
 * `ignored` marks (1: under the page's controls).
 */
export function samePicture(a: Uint8Array, b: Uint8Array, ignored?: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let differing = 0;
  let compared = 0;
  for (let c = 0; c < a.length; c++) {
    if (ignored?.[c]) continue;
    compared++;
    if (Math.abs(a[c] - b[c]) > CELL_LEVELS) differing++;
  }
  return differing <= compared * SAME_SHARE;
}

/**
 * The first of a run's screenshots from which on every one shows the last (the picture the page
 * settled on): a loading overlay, a half-drawn frame or a picture still refining before it do not
 * count, however briefly they were there. The cells under the page's controls (`ignored`, where the
 * final screenshot has buttons and panels) are left out: a toolbar that arrives after the model is
 * not a later picture. -1 without screenshots.
 */
export function firstPictureIndex(shots: readonly Uint8Array[], ignored?: Uint8Array): number {
  if (!shots.length) return -1;
  const final = shots[shots.length - 1];
  let first = shots.length - 1;
  while (first > 0 && samePicture(shots[first - 1], final, ignored)) first--;
  return first;
}

/**
 * The cells of a FRAME_WIDTH x FRAME_HEIGHT screenshot under the given rectangles (CSS pixels of
 * the frame, which the host page places at its top left).
 */
export function cellsUnder(rects: readonly { x: number; y: number; width: number; height: number }[], width = FRAME_WIDTH, height = FRAME_HEIGHT): Uint8Array {
  const columns = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const out = new Uint8Array(columns * rows);
  for (const r of rects) {
    const x0 = Math.max(0, Math.floor(r.x / CELL));
    const y0 = Math.max(0, Math.floor(r.y / CELL));
    const x1 = Math.min(columns - 1, Math.floor((r.x + r.width - 1) / CELL));
    const y1 = Math.min(rows - 1, Math.floor((r.y + r.height - 1) / CELL));
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) out[y * columns + x] = 1;
  }
  return out;
}

/** The framed page's largest canvas (the 3D view; an orientation gizmo may be a canvas too). */
const LARGEST_CANVAS = `[...document.querySelectorAll('canvas')].sort((a, b) => b.width * b.height - a.width * a.height)[0]`;

/**
 * Waits, in the framed page, for the GPU to finish what the 3D view asked of it: a readback of one
 * pixel returns once every command before it has run (the message that ends a run can come long
 * before, on the tests' flags). False without a WebGL canvas.
 */
const DRAIN_GPU = `(() => {
  const canvas = ${LARGEST_CANVAS};
  const gl = canvas && (canvas.getContext('webgl2') || canvas.getContext('webgl'));
  if (!gl) return false;
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  return true;
})()`;

/**
 * Read from the framed page at the end: the rectangles of what is drawn over the 3D view (buttons,
 * panels, the watermark; the elements with a box of their own that are neither the WebGL canvas nor
 * hold it, and cover less than half the frame, so not the page's containers).
 */
const CONTROL_RECTS = `(() => {
  const canvas = ${LARGEST_CANVAS};
  const out = [];
  const area = innerWidth * innerHeight;
  for (const el of document.querySelectorAll('body *')) {
    if (el === canvas || (canvas && el.contains(canvas))) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== 'visible' || style.display === 'none' || Number(style.opacity) === 0) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.width * r.height > area / 2) continue;
    out.push({ x: r.x, y: r.y, width: r.width, height: r.height });
  }
  return out;
})()`;

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`${what} took over ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function cpuDifference(after: BrowserCpu, before: BrowserCpu): BrowserCpu {
  const byType: Record<string, number> = {};
  for (const [type, ms] of Object.entries(after.byType)) byType[type] = ms - (before.byType[type] ?? 0);
  return { total: after.total - before.total, byType };
}

function findFrame(page: Page, origin: string): Frame | undefined {
  return page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(origin));
}

/** Runs one measurement in a fresh browser; throws with what is known when it fails or times out. */
export async function measureLoad(options: LoadRunOptions): Promise<LoadRun> {
  const flags = options.flags ?? 'tests';
  const userDataDir = mkdtempSync(join(tmpdir(), 'bench-load-profile-'));
  let context: BrowserContext | null = null;
  const errors: string[] = [];
  try {
    context = await withTimeout(
      chromium.launchPersistentContext(userDataDir, {
        executablePath: findChromium(),
        args: [...FLAG_ARGS[flags]],
        headless: true,
        viewport: VIEWPORT,
        deviceScaleFactor: 1,
      }),
      60_000,
      'launching Chromium',
    );
    await context.addInitScript(LONG_TASK_OBSERVER);
    for (const script of options.initScripts ?? []) await context.addInitScript(script);
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const startup = await untilBrowserIdle(userDataDir);
    const cpuBefore = browserCpu(userDataDir);
    const deadline = Date.now() + options.timeoutMs;
    await page.goto(options.hostUrl, { waitUntil: 'commit', timeout: options.timeoutMs });
    // Screenshots of the frame, one after the other, through DevTools' own call (Playwright's
    // page.screenshot also runs a script in every frame, which would wait for the loading page's
    // main thread), at a quarter of the size, kept as they come and decoded after the run, so that
    // the benchmark's own work does not share the CPU with the loads it times. A screenshot is
    // answered once the browser has shown a new frame: its time is when the answer came.
    const shots: { asked: number; at: number; png: Buffer; cells?: Uint8Array }[] = [];
    // Decoded once, when first needed.
    const cellsOf = (shot: (typeof shots)[number]) => (shot.cells ??= pictureCells(shot.png, SHOT_OPTIONS));
    let stopShots = false;
    const cdp = options.picture === false ? null : await context.newCDPSession(page);
    const shooting = (async () => {
      if (!cdp) return;
      while (!stopShots && Date.now() < deadline) {
        const asked = Date.now();
        try {
          const { data } = (await cdp.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: FRAME_WIDTH, height: FRAME_HEIGHT, scale: SHOT_SCALE } })) as { data: string };
          shots.push({ asked, at: Date.now(), png: Buffer.from(data, 'base64') });
        } catch {
          if (stopShots) return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, asked + SHOT_GAP_MS - Date.now())));
      }
    })();
    let cpuAfter: BrowserCpu | null = null;
    try {
      await page.waitForFunction(`window.__bench.messages.some((m) => m.type === ${JSON.stringify(options.message)})`, undefined, {
        timeout: options.timeoutMs,
        polling: 200,
      });
      cpuAfter = browserCpu(userDataDir);
    } catch (error) {
      const frame = findFrame(page, options.frameOrigin);
      const facts = frame ? ((await frame.evaluate(FRAME_FACTS).catch(() => null)) as FrameFacts | null) : null;
      const detail = [facts?.phase ? `phase ${facts.phase}` : '', facts?.failure ?? '', ...errors.slice(0, 3)].filter(Boolean).join('; ');
      stopShots = true;
      await withTimeout(shooting, 10_000, "the last screenshot").catch(() => undefined);
      throw new Error(`no '${options.message}' within ${options.timeoutMs / 1000} s${detail ? ` (${detail})` : ''}: ${(error as Error).message.split('\n')[0]}`);
    }
    // The host page asks the viewer for its camera once it is ready (bench/load-pages.ts): wait for
    // the answer (not for a page that sends no viewerready).
    if (options.message === 'viewerready') {
      await page
        .waitForFunction(`window.__bench.messages.some((m) => m.type === 'api.response')`, undefined, { timeout: Math.max(1, Math.min(30_000, deadline - Date.now())), polling: 100 })
        .catch(() => undefined);
    }
    const frame = findFrame(page, options.frameOrigin);
    if (!frame) throw new Error(`no frame of ${options.frameOrigin}`);
    let seen: { first: number; settled: boolean } | null = null;
    if (cdp) {
      // The message can come long before the GPU process has drawn what it asked for: wait for the
      // GPU (a readback of the page's WebGL canvas returns once every command before it is done),
      // then until the picture is at rest: the screenshots of the last QUIET_MS alike (at most SETTLE_MS).
      // Bounded by the run's time: a page whose picture the GPU cannot finish (the plain page drawing
      // every triangle of a large scene) fails the run rather than holding the bench for minutes.
      const drainedInTime = await withTimeout(frame.evaluate(DRAIN_GPU), Math.max(1, deadline - Date.now()), 'waiting for the GPU to draw the picture').then(
        () => null,
        (error: Error) => error,
      );
      if (drainedInTime && /took over/.test(drainedInTime.message)) {
        stopShots = true;
        await withTimeout(shooting, 5_000, 'the last screenshot').catch(() => undefined);
        throw new Error(`'${options.message}' came, but ${drainedInTime.message} (the run's limit, ${options.timeoutMs / 1000} s)`);
      }
      const drained = Date.now();
      const settleEnd = Math.min(deadline, drained + SETTLE_MS);
      let settled = false;
      while (Date.now() < settleEnd) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const recent = shots.filter((shot) => shot.asked >= drained);
        if (recent.length >= 3 && recent.at(-1)!.at - recent[0].asked >= QUIET_MS) {
          const last = cellsOf(recent.at(-1)!);
          const window = recent.filter((shot) => shot.asked >= recent.at(-1)!.at - QUIET_MS);
          if (window.length >= 2 && window.every((shot) => samePicture(cellsOf(shot), last))) {
            settled = true;
            break;
          }
        }
      }
      stopShots = true;
      // A screenshot is answered once the browser shows a new frame: bounded, as the GPU may be slow to give one.
      await withTimeout(shooting, 10_000, 'the last screenshot').catch(() => undefined);
      const controls = cellsUnder((await frame.evaluate(CONTROL_RECTS)) as { x: number; y: number; width: number; height: number }[]);
      const cells = shots.map(cellsOf);
      if (SHOTS_DIR) {
        mkdirSync(SHOTS_DIR, { recursive: true });
        shots.forEach((shot, i) => writeFileSync(join(SHOTS_DIR, `${basename(userDataDir)}-${String(i + 1).padStart(4, '0')}-${shot.at}.png`), shot.png));
      }
      seen = { first: firstPictureIndex(cells, controls), settled };
    }
    const host = (await page.evaluate(`({ timeOrigin: performance.timeOrigin, messages: window.__bench.messages })`)) as {
      timeOrigin: number;
      messages: { type: string; t: number; error?: string }[];
    };
    const picture: PictureTiming | null =
      seen && seen.first >= 0
        ? {
            firstMs: shots[seen.first].at - host.timeOrigin,
            // The picture was shown after the screenshot before it was answered (or the navigation).
            uncertaintyMs: shots[seen.first].at - (seen.first > 0 ? shots[seen.first - 1].at : host.timeOrigin),
            shots: shots.length,
            settled: seen.settled,
          }
        : null;
    const ready = host.messages.find((m) => m.type === 'viewerready');
    const answer = host.messages.find((m) => m.type === 'api.response');
    const apiAnswer = ready && answer ? { ms: answer.t - ready.t, error: answer.error ?? null } : null;
    const facts = (await frame.evaluate(FRAME_FACTS)) as FrameFacts;
    const offset = facts.timeOrigin - host.timeOrigin;
    const messages: Record<string, number> = {};
    for (const m of host.messages) if (!(m.type in messages)) messages[m.type] = m.t;
    return {
      ms: messages[options.message],
      messages,
      marks: facts.marks.map(([name, t]) => [name.replace(/^viewer:/, ''), t + offset]),
      longTasks: facts.longTasks.map(([start, duration]) => [start + offset, duration]),
      frameStart: offset,
      scripts: facts.resources.filter((r) => /\.m?js(\?|$)/.test(r.url)).map((r) => ({ url: r.url, end: r.end + offset, bytes: r.bytes })),
      tier: facts.tier,
      cpu: cpuBefore && cpuAfter ? cpuDifference(cpuAfter, cpuBefore) : null,
      startup,
      flags,
      picture,
      apiAnswer,
    };
  } finally {
    if (context) await withTimeout(context.close(), 20_000, 'closing Chromium').catch(() => undefined);
    // Chromium's helpers may still write into the profile as it closes: retry, and a profile that
    // stays behind is reported, not a failed run (its measurement is already taken).
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      console.warn(`[bench] could not remove ${userDataDir}: ${(error as Error).message}`);
    }
  }
}

/** A run's picture and host-API answer, for its log line. */
export function pictureText(run: LoadRun): string {
  const parts: string[] = [];
  if (run.picture) {
    parts.push(
      `first picture seen ${Math.round(run.picture.firstMs)} ms (-${Math.round(run.picture.uncertaintyMs)} ms; ${run.picture.shots} screenshots${run.picture.settled ? '' : ', never at rest: the last one counted'})`,
    );
  } else parts.push('no screenshot');
  if (run.apiAnswer) parts.push(`getCamera answered ${Math.round(run.apiAnswer.ms)} ms after viewerready${run.apiAnswer.error ? ` with an error: ${run.apiAnswer.error}` : ''}`);
  return parts.join('; ');
}


export interface PictureGoals {
  /** Ours' first picture against the plain page's, at most this ratio. */
  ratio?: number;
  /** Ours' first picture at most this long after the host's navigation start (ms). */
  pictureMs?: number;
  /** The first host-API answer at most this long after viewerready (ms). */
  apiMs?: number;
}

/**
 * The rows of the picture (issue 35): the first picture seen, ours against the plain page's (when
 * there are plain runs), and the first host-API answer after viewerready. Runs whose picture did
 * not settle, and answers that were errors or never came, are named in their row (and fail it).
 */
/** The row that says how many of a figure's load runs failed, and how (the first 300 characters). */
export function failedRunsRow(prefix: string, failures: readonly string[]): BenchResult {
  return { name: `${prefix}: failed runs (${failures.join(' | ').slice(0, 300)})`, value: failures.length, unit: 'runs', goal: '0', pass: false };
}

export function pictureRows(prefix: string, ours: readonly LoadRun[], plain: readonly LoadRun[], goals: PictureGoals = {}): BenchResult[] {
  const rows: BenchResult[] = [];
  const oursShots = ours.flatMap((r) => (r.picture ? [r.picture] : []));
  const plainShots = plain.flatMap((r) => (r.picture ? [r.picture] : []));
  if (oursShots.length) {
    const o = median(oursShots.map((p) => p.firstMs));
    const oursUnsettled = oursShots.filter((p) => !p.settled).length;
    const unsettled = oursUnsettled + plainShots.filter((p) => !p.settled).length;
    const note = (n: number) => (n ? ` (${n} runs never at rest: their last screenshot counted)` : '');
    if (plainShots.length) {
      const p = median(plainShots.map((shot) => shot.firstMs));
      const ratio = o / p;
      rows.push({
        name: `${prefix}: host navigation -> first picture seen (screenshots of the frame) vs plain three.js's, median of ${oursShots.length}/${plainShots.length}${note(unsettled)}`,
        value: Math.round(o),
        unit: 'ms',
        baseline: Math.round(p),
        ratio: Math.round(ratio * 100) / 100,
        ...(goals.ratio !== undefined ? { goal: `<= ${goals.ratio}x`, pass: ratio <= goals.ratio && !unsettled } : {}),
      });
    }
    if (!plainShots.length || goals.pictureMs !== undefined) {
      rows.push({
        name: `${prefix}: host navigation -> first picture seen (screenshots of the frame), ours, median of ${oursShots.length}${note(oursUnsettled)}`,
        value: Math.round(o),
        unit: 'ms',
        ...(goals.pictureMs !== undefined ? { goal: `<= ${goals.pictureMs / 1000} s`, pass: o <= goals.pictureMs && !oursUnsettled } : {}),
      });
    }
  } else if (ours.length) {
    rows.push({ name: `${prefix}: first picture seen: no screenshot in ${ours.length} runs`, value: 0, unit: 'runs', goal: 'a screenshot', pass: false });
  }
  if (ours.length) {
    const answers = ours.flatMap((r) => (r.apiAnswer ? [r.apiAnswer] : []));
    const errors = answers.filter((a) => a.error);
    const missing = ours.length - answers.length;
    const problems = [missing ? `${missing} runs without an answer` : '', errors.length ? `${errors.length} errors, the first: ${errors[0].error}` : ''].filter(Boolean).join('; ');
    const value = answers.length ? Math.round(median(answers.map((a) => a.ms))) : 0;
    rows.push({
      name: `${prefix}: viewerready -> the first host-API call (api.init, then getCamera) answered, median of ${answers.length}${problems ? ` (${problems})` : ''}`,
      value,
      unit: 'ms',
      ...(goals.apiMs !== undefined || problems ? { goal: goals.apiMs !== undefined ? `<= ${goals.apiMs / 1000} s` : 'answered', pass: !problems && (goals.apiMs === undefined || value <= goals.apiMs) } : {}),
    });
  }
  return rows;
}
