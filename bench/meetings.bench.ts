import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { signTestToken } from '../src/server/auth/tokens.ts';
import { startServerProcess, type ServerProcess } from '../tests/service/meetings/processes.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../tests/service/redis.ts';
import type { ClientsJob } from './meetings-clients.ts';
import type { BenchResult } from './types.ts';

/**
 * Meetings under load (issue 14, item 9): CLIENTS people in one meeting, each sending its camera
 * pose (handleTransformUpdate) at RATE Hz, every message relayed to all the others. Measured over
 * MEASURE_MS after a warm-up: relay latency p50/p99 (send to receive, each receiver's copy; one
 * machine, one clock), the server's CPU (its process's user+system time over wall time, from
 * /proc) and memory per connection (RSS growth with IDLE_CLIENTS more authenticated sockets).
 *
 * Variants, in the same run:
 * - ours: one `src/server/main.ts` process (in-process meetings, the `npm start` default);
 * - ours through Redis: two main.ts processes linked by a real redis-server, half the people on each;
 * - baseline: a socket.io relay of the same fan-out (bench/meetings-socketio.ts), websocket
 *   transport, no authentication or validation: what a person would write instead.
 * The load generator (this process) runs the clients of every variant the same way, so its own
 * overhead is in every figure; ratios are ours / socket.io.
 */

const ROOT = resolve(import.meta.dirname, '..');
/** Meeting sizes measured: the goal's 64, and 16 (what the relay costs when the machine is not saturated). */
const SIZES = (process.env.BENCH_MEETING_CLIENTS ?? '16,64').split(',').map(Number);
let CLIENTS = SIZES[0];
const RATE = Number(process.env.BENCH_MEETING_RATE ?? 20);
const WARMUP_MS = 2000;
const MEASURE_MS = Number(process.env.BENCH_MEETING_MS ?? 8000);
const IDLE_CLIENTS = Number(process.env.BENCH_MEETING_IDLE ?? 256);
const GOAL_P99_MS = 50;
const SCENE = 'demo';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

interface Sample {
  latencies: Float64Array;
  count: number;
  sent: number;
}

function percentile(sample: Sample, p: number): number {
  const n = Math.min(sample.count, sample.latencies.length);
  const sorted = sample.latencies.slice(0, n).sort();
  return sorted[Math.min(n - 1, Math.floor((p / 100) * n))] ?? NaN;
}

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return ticks / 100; // USER_HZ is 100 on Linux
}

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

const WORKERS = Number(process.env.BENCH_MEETING_WORKERS ?? 2);

/** The people, spread over WORKERS threads (bench/meetings-clients.ts). */
class Crowd {
  private readonly workers: Worker[] = [];
  constructor(job: Omit<ClientsJob, 'urls' | 'tokens' | 'indices' | 'capacity'>, urls: string[], tokens: string[], capacity: number) {
    for (let w = 0; w < WORKERS; w++) {
      const indices = urls.map((_, i) => i).filter((i) => i % WORKERS === w);
      const data: ClientsJob = { ...job, urls: indices.map((i) => urls[i]), tokens: indices.map((i) => tokens[i] ?? ''), indices, capacity: Math.ceil(capacity / WORKERS) };
      // The thread runs TypeScript through tsx, as this process does.
      this.workers.push(new Worker(new URL('./meetings-clients-entry.mjs', import.meta.url), { workerData: data }));
    }
  }
  private all(command: string, reply: string): Promise<{ count?: number; latencies?: Float64Array }[]> {
    return Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<{ count?: number; latencies?: Float64Array }>((res, rej) => {
            const listener = (message: { type: string; message?: string; count?: number; latencies?: Float64Array }) => {
              if (message.type === 'error') rej(new Error(message.message));
              else if (message.type === reply) res(message);
              else return;
              worker.off('message', listener);
            };
            worker.on('message', listener);
            worker.once('error', rej);
            worker.postMessage(command);
          }),
      ),
    );
  }
  connect() {
    return this.all('connect', 'connected');
  }
  start() {
    for (const w of this.workers) w.postMessage('start');
  }
  measure() {
    for (const w of this.workers) w.postMessage('measure');
  }
  async stop(): Promise<Sample> {
    const parts = await this.all('stop', 'result');
    const count = parts.reduce((n, p) => n + (p.count ?? 0), 0);
    const latencies = new Float64Array(parts.reduce((n, p) => n + (p.latencies?.length ?? 0), 0));
    let o = 0;
    for (const p of parts) {
      latencies.set(p.latencies!, o);
      o += p.latencies!.length;
    }
    return { latencies, count, sent: 0 };
  }
  async close() {
    await this.all('close', 'closed');
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

// ----- socket.io baseline -----

async function startSocketIo(): Promise<{ child: ChildProcess; port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/meetings-socketio.ts')], { cwd: ROOT, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) res(Number(m[1]));
    });
    child.once('exit', (code) => rej(new Error(`socket.io relay exited with ${code}`)));
  });
  return {
    child,
    port,
    stop: () =>
      new Promise((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}

// ----- One load run -----

interface LoadFigures {
  p50: number;
  p99: number;
  received: number;
  expected: number;
  cpu: number;
}

async function load(pids: number[], crowd: Crowd): Promise<LoadFigures> {
  await crowd.connect();
  await sleep(1000); // presence settles (across processes too)
  crowd.start();
  await sleep(WARMUP_MS);
  const cpu0 = pids.map(cpuSeconds);
  const t0 = now();
  crowd.measure();
  await sleep(MEASURE_MS);
  const sample = await crowd.stop();
  const elapsed = (now() - t0) / 1000;
  const cpu = pids.map((pid, k) => (cpuSeconds(pid) - cpu0[k]) / elapsed).reduce((a, b) => a + b, 0);
  await crowd.close();
  await sleep(300);
  return {
    p50: percentile(sample, 50),
    p99: percentile(sample, 99),
    received: sample.count,
    expected: Math.round(CLIENTS * (CLIENTS - 1) * RATE * (MEASURE_MS / 1000)),
    cpu,
  };
}

const capacity = () => CLIENTS * CLIENTS * RATE * Math.ceil(MEASURE_MS / 1000 + 2);

/** RSS growth per connection with IDLE_CLIENTS more connected people (one thread). */
async function memoryPerConnection(pid: number, crowd: Crowd): Promise<number> {
  const before = rssBytes(pid);
  await crowd.connect();
  await sleep(1000);
  const perConnection = (rssBytes(pid) - before) / IDLE_CLIENTS;
  await crowd.close();
  return perConnection;
}

async function ours(servers: ServerProcess[], dataDir: string): Promise<{ load: LoadFigures; perConnection: number }> {
  const tokens = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => signTestToken(dataDir, { firstName: 'Bench', lastName: `Person ${i}` }).then((t) => t.token)));
  const urls = tokens.map((_, i) => `${servers[i % servers.length].url.replace('http', 'ws')}/meetings/${SCENE}`);
  const job = { kind: 'ours' as const, total: CLIENTS, rate: RATE, room: SCENE };
  const figures = await load(servers.map((s) => s.child.pid!), new Crowd(job, urls, tokens, capacity()));
  await sleep(500);
  // Idle sockets in another meeting on the first server.
  const idleUrls = Array.from({ length: IDLE_CLIENTS }, () => `${servers[0].url.replace('http', 'ws')}/meetings/warehouse`);
  const perConnection = await memoryPerConnection(servers[0].child.pid!, new Crowd({ ...job, total: IDLE_CLIENTS }, idleUrls, idleUrls.map(() => tokens[0]), 16));
  return { load: figures, perConnection };
}

async function socketIo(): Promise<{ load: LoadFigures; perConnection: number }> {
  const relay = await startSocketIo();
  try {
    const origin = `http://127.0.0.1:${relay.port}`;
    const job = { kind: 'io' as const, total: CLIENTS, rate: RATE, room: SCENE };
    const figures = await load([relay.child.pid!], new Crowd(job, Array.from({ length: CLIENTS }, () => origin), [], capacity()));
    await sleep(500);
    const perConnection = await memoryPerConnection(relay.child.pid!, new Crowd({ ...job, total: IDLE_CLIENTS, room: 'idle' }, Array.from({ length: IDLE_CLIENTS }, () => origin), [], 16));
    return { load: figures, perConnection };
  } finally {
    await relay.stop();
  }
}

export default async function run(): Promise<BenchResult[]> {
  const root = await mkdtemp(join(tmpdir(), 'bench-meetings-'));
  const dataDir = join(root, 'data');
  await mkdir(join(root, 'dist'), { recursive: true });
  // The crowd comes from one address, and the idle connections of the memory figure are one person's:
  // the per-person and per-address socket limits (MEETING_SOCKETS_PER_USER) are lifted for the relay's figures.
  const env = { DATA_DIR: dataDir, DIST_DIR: join(root, 'dist'), LOG_LEVEL: 'error', MEETING_SOCKETS_PER_USER: '100000' };
  const results: BenchResult[] = [];
  let redis: TestRedis | undefined;
  const servers: ServerProcess[] = [];
  try {
    for (const size of SIZES) {
      CLIENTS = size;
      const single = await startServerProcess(env);
      servers.push(single);
      const one = await ours([single], dataDir);
      await single.stop();
      servers.length = 0;

      const baseline = await socketIo();

      let linked: Awaited<ReturnType<typeof ours>> | undefined;
      const skip = redisSkipReason();
      if (!skip) {
        redis = await startRedis();
        const a = await startServerProcess({ ...env, REDIS_URL: redis.url });
        const b = await startServerProcess({ ...env, REDIS_URL: redis.url });
        servers.push(a, b);
        linked = await ours([a, b], dataDir);
      }

      const label = `${CLIENTS} people at ${RATE} Hz`;
      const add = (name: string, value: number, unit: string, base: number | undefined, goal?: string, pass?: boolean) =>
        results.push({ name, value, unit, ...(base !== undefined ? { baseline: base, ratio: value / base } : {}), ...(goal ? { goal, pass } : {}) });
      add(`meetings: relay latency p50 (${label})`, one.load.p50, 'ms', baseline.load.p50);
      add(`meetings: relay latency p99 (${label})`, one.load.p99, 'ms', baseline.load.p99, `p99 < ${GOAL_P99_MS} ms`, one.load.p99 < GOAL_P99_MS);
      add(`meetings: messages delivered (${label})`, one.load.received / one.load.expected, 'share', baseline.load.received / baseline.load.expected);
      add(`meetings: server CPU (${label})`, one.load.cpu * 100, '% of a core', baseline.load.cpu * 100);
      if (size === SIZES[SIZES.length - 1]) add('meetings: memory per idle connection', one.perConnection / 1024, 'KiB', baseline.perConnection / 1024);
      if (linked) {
        add(`meetings via Redis, 2 processes: relay latency p50 (${label})`, linked.load.p50, 'ms', baseline.load.p50);
        add(`meetings via Redis, 2 processes: relay latency p99 (${label})`, linked.load.p99, 'ms', baseline.load.p99, `p99 < ${GOAL_P99_MS} ms`, linked.load.p99 < GOAL_P99_MS);
        add(`meetings via Redis, 2 processes: messages delivered (${label})`, linked.load.received / linked.load.expected, 'share', baseline.load.received / baseline.load.expected);
        add(`meetings via Redis, 2 processes: servers' CPU together (${label})`, linked.load.cpu * 100, '% of a core', baseline.load.cpu * 100);
      } else {
        console.warn(`meetings bench: the Redis variant is skipped: ${skip}`);
      }
      console.log(
        `meetings bench: ours p50 ${one.load.p50.toFixed(2)} ms p99 ${one.load.p99.toFixed(2)} ms cpu ${(one.load.cpu * 100).toFixed(0)}%; ` +
          `socket.io p50 ${baseline.load.p50.toFixed(2)} ms p99 ${baseline.load.p99.toFixed(2)} ms cpu ${(baseline.load.cpu * 100).toFixed(0)}%` +
          (linked ? `; redis p50 ${linked.load.p50.toFixed(2)} ms p99 ${linked.load.p99.toFixed(2)} ms cpu ${(linked.load.cpu * 100).toFixed(0)}%` : ''),
      );

      for (const s of servers) await s.stop();
      servers.length = 0;
      await redis?.stop();
      redis = undefined;
    }
  } finally {
    for (const s of servers) await s.stop();
    await redis?.stop();
    await rm(root, { recursive: true, force: true });
  }
  return results;
}
