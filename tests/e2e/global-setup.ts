/**
 * Playwright global setup for the browser tests:
 *  1. `vite build` once if dist/ is missing or older than its sources (E2E_SKIP_BUILD=1 or, as for
 *     `npm start`, SKIP_BUILD=1 skips);
 *  2. a fresh DATA_DIR under tests/.tmp/e2e-data/, and a copy of dist/ beside it that the server
 *     serves (a build of dist/ by anything else during the run, another checkout's tests, `npm
 *     start`, changes nothing the run's pages load);
 *  3. Janus (tests/service/janus.ts) when Debian's janus is installed, for the calls through the
 *     call server: its JANUS_URL and JANUS_API_SECRET go to the server with RTC_MESH_MAX=2 (calls of
 *     meetings of up to two people stay a mesh, larger ones go through Janus);
 *  4. the server (`npx tsx src/server/main.ts`) on a free port with PORT, HOST=127.0.0.1,
 *     DATA_DIR, DIST_DIR (the copy), ready once GET /v1/config answers 200;
 *  5. E2E_BASE_URL, E2E_DATA_DIR and (with Janus) E2E_JANUS=1, or E2E_JANUS_SKIP with the reason,
 *     in process.env (the workers inherit them) and in tests/.tmp/e2e-env.json.
 * The returned function is the teardown: it stops the server (its whole process group), removes
 * the data dir and the copy of dist/ (E2E_KEEP_DATA=1 keeps them), and fails the run if the server logged a
 * Content-Security-Policy violation report from any page of any test. The server's output goes to
 * test-results/e2e-server.log.
 *
 * Tests import models into the running server's data with src/server/import.ts on
 * process.env.E2E_DATA_DIR.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { staleReason } from '../../scripts/build-state.mjs';
import { janusSkipReason, startJanus, type TestJanus } from '../service/janus';

const ROOT = resolve(import.meta.dirname, '../..');
const TMP = join(ROOT, 'tests/.tmp');
const ENV_FILE = join(TMP, 'e2e-env.json');
const SERVER_LOG = join(ROOT, 'test-results/e2e-server.log');
const DIST = join(ROOT, 'dist');
const SERVER_ENTRY = process.env.E2E_SERVER_ENTRY ?? 'src/server/main.ts';
const READY_TIMEOUT_MS = Number(process.env.E2E_SERVER_TIMEOUT_MS ?? 90_000);

function buildIfStale(): void {
  if (process.env.E2E_SKIP_BUILD === '1' || process.env.SKIP_BUILD === '1') {
    console.log('[e2e] E2E_SKIP_BUILD=1 (or SKIP_BUILD=1): not building dist/');
    return;
  }
  const reason = staleReason(ROOT);
  if (!reason) {
    console.log('[e2e] dist/ is up to date');
    return;
  }
  console.log(`[e2e] ${reason}: vite build`);
  const t0 = Date.now();
  const r = spawnSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (r.error || r.status !== 0) {
    throw new Error(`[e2e] vite build failed (${r.error?.message ?? `exit ${r.status}`}); the browser tests need dist/`);
  }
  console.log(`[e2e] vite build done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? res(port) : rej(new Error('no free port'))));
    });
  });
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server output)';
  }
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal); // the whole group: npx, tsx and node
  } catch {
    /* the group is gone already */
  }
}

async function waitUntilReady(child: ChildProcess, port: number): Promise<string> {
  const candidates = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`[e2e] the server exited (${child.exitCode ?? child.signalCode}) before answering GET /v1/config. Its output (${SERVER_LOG}):\n${tail(SERVER_LOG)}`);
    }
    for (const base of candidates) {
      try {
        const res = await fetch(`${base}/v1/config`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) {
          await res.json(); // must be JSON
          return base;
        }
        lastError = `GET ${base}/v1/config answered ${res.status}`;
      } catch (err) {
        lastError = `GET ${base}/v1/config: ${(err as Error).message}`;
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`[e2e] the server did not answer GET /v1/config within ${READY_TIMEOUT_MS / 1000} s (last: ${lastError}). Its output (${SERVER_LOG}):\n${tail(SERVER_LOG)}`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  buildIfStale();

  mkdirSync(join(TMP, 'e2e-data'), { recursive: true });
  const dataDir = mkdtempSync(join(TMP, 'e2e-data', 'run-'));
  const dist = `${dataDir}-dist`;
  cpSync(DIST, dist, { recursive: true });
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`[e2e] ${DIST} has no index.html (was it being built by something else?): run the tests again`);
  const port = await freePort();

  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  const janusSkip = janusSkipReason();
  let janus: TestJanus | null = null;
  if (janusSkip) console.log(`[e2e] no call server: ${janusSkip}`);
  else {
    janus = await startJanus();
    console.log(`[e2e] Janus at ${janus.url}`);
  }
  const rtcEnv: Record<string, string> = janus ? { JANUS_URL: janus.url, JANUS_API_SECRET: janus.apiSecret, RTC_MESH_MAX: '2' } : {};
  const log = createWriteStream(SERVER_LOG);
  const child = spawn('npx', ['--no', 'tsx', SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, ...rtcEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DIST_DIR: dist },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group, so teardown can stop npx and the node under it together
  });
  let exitedEarly: string | null = null; // set if the server stops before teardown
  let tearingDown = false;
  child.once('exit', (code, signal) => {
    if (!tearingDown) exitedEarly = signal ? `signal ${signal}` : `exit code ${code}`;
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  // If the runner ends without teardown (a crash, SIGTERM, SIGHUP: Playwright runs teardown only
  // on Ctrl-C), don't leave the server behind.
  const onExit = () => {
    killTree(child, 'SIGKILL');
    janus?.kill();
  };
  process.on('exit', onExit);
  const onSignal = (signal: NodeJS.Signals) => {
    killTree(child, 'SIGKILL');
    janus?.kill();
    if (process.env.E2E_KEEP_DATA !== '1') rmSync(dataDir, { recursive: true, force: true });
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.kill(process.pid, signal); // then end as that signal would have
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);

  let baseURL: string;
  try {
    baseURL = await waitUntilReady(child, port);
  } catch (err) {
    killTree(child, 'SIGKILL');
    process.off('exit', onExit);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    rmSync(dataDir, { recursive: true, force: true });
    await janus?.stop();
    throw err;
  }
  console.log(`[e2e] server ready at ${baseURL} (DATA_DIR=${dataDir})`);

  process.env.E2E_BASE_URL = baseURL;
  process.env.E2E_DATA_DIR = dataDir;
  if (janus) process.env.E2E_JANUS = '1';
  else process.env.E2E_JANUS_SKIP = janusSkip;
  writeFileSync(ENV_FILE, JSON.stringify({ E2E_BASE_URL: baseURL, E2E_DATA_DIR: dataDir, E2E_JANUS: janus ? '1' : undefined, pid: child.pid }, null, 2) + '\n');

  return async function globalTeardown() {
    tearingDown = true;
    killTree(child, 'SIGTERM');
    const stopped = await Promise.race([
      new Promise<boolean>((r) => (child.exitCode !== null || child.signalCode !== null ? r(true) : child.once('exit', () => r(true)))),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5000)),
    ]);
    if (!stopped) killTree(child, 'SIGKILL');
    await janus?.stop();
    process.off('exit', onExit);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    await new Promise<void>((resolve) => log.end(() => resolve()));
    if (process.env.E2E_KEEP_DATA !== '1') {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(dist, { recursive: true, force: true });
      rmSync(ENV_FILE, { force: true });
    }
    // The pages' Content-Security-Policy reports every violation to the server, which logs it
    // (src/server/security-headers.ts): any in the whole run fails it, but for the frames the
    // policy refuses on purpose (frame-ancestors: a test checks that the editor cannot be framed).
    const violations = readFileSync(SERVER_LOG, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"csp violation"') && !line.includes('"effective-directive":"frame-ancestors"'));
    if (violations.length > 0) {
      throw new Error(`[e2e] ${violations.length} Content-Security-Policy violation(s) reported during the run (${SERVER_LOG}):\n${violations.slice(0, 5).join('\n')}`);
    }
    if (exitedEarly) {
      // Tests after that point failed with ERR_CONNECTION_REFUSED; say why, once.
      throw new Error(`[e2e] the server stopped during the run (${exitedEarly}), before teardown; its output: ${SERVER_LOG}`);
    }
  };
}
