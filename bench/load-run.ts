import { chromium, type BrowserContext, type Frame, type Page } from '@playwright/test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';

/**
 * One load measurement: a fresh Chromium process with a new, empty user-data-dir (no HTTP cache,
 * no compiled-shader cache), the host page on another origin framing the page under test at
 * 800 x 600, timed from the host page's navigation start until the host receives the framed
 * page's message. Then, from inside the frame: its performance marks, its long tasks (a
 * PerformanceObserver installed before any of its scripts) and the scripts it fetched.
 */

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
}

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
  const userDataDir = mkdtempSync(join(tmpdir(), 'bench-load-profile-'));
  let context: BrowserContext | null = null;
  const errors: string[] = [];
  try {
    context = await withTimeout(
      chromium.launchPersistentContext(userDataDir, {
        executablePath: findChromium(),
        args: CHROMIUM_ARGS,
        headless: true,
        viewport: { width: 1000, height: 700 },
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
    await page.goto(options.hostUrl, { waitUntil: 'commit', timeout: options.timeoutMs });
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
      throw new Error(`no '${options.message}' within ${options.timeoutMs / 1000} s${detail ? ` (${detail})` : ''}: ${(error as Error).message.split('\n')[0]}`);
    }
    const host = (await page.evaluate(`({ timeOrigin: performance.timeOrigin, messages: window.__bench.messages })`)) as {
      timeOrigin: number;
      messages: { type: string; t: number }[];
    };
    const frame = findFrame(page, options.frameOrigin);
    if (!frame) throw new Error(`no frame of ${options.frameOrigin}`);
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
