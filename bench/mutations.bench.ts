import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { signTestToken } from '../src/server/auth/tokens.ts';
import { SQLITE_DEFAULT_SYNCHRONOUS, openStore, type SqliteSynchronous } from '../src/server/store.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../tests/service/postgres.ts';
import type { BenchResult } from './types.ts';

/**
 * apply-mutations throughput over real HTTP, in batches of 100 (issue 3, part 9).
 *
 * The server is `src/server/main.ts` in its own process, as `npm start` runs it; the clients are
 * this process, CLIENTS requests in flight over keep-alive connections. Each batch is one request:
 * JSON parse, zod validation, permission check, one transaction with an index lookup per uuid and
 * a prepared insert per mutation. Goal on SQLite: at least 20,000 mutations/s.
 *
 * Baselines measured in the same run, on the same machine:
 * - the same rows inserted straight into the database (better-sqlite3 prepared statements, one
 *   transaction per 100 rows, the server's default pragmas: WAL, synchronous=NORMAL; for PostgreSQL one multi-row insert per
 *   batch): what the database alone costs, so the ratio says what HTTP, validation and the
 *   service add;
 * - the HTTP round trip of an empty batch: the fixed cost of one request.
 * SQLite with SQLITE_SYNCHRONOUS=FULL (an fsync per batch) is reported for information.
 * PostgreSQL (a throwaway cluster with fsync on, as in production) is measured when its binaries
 * are installed, and reported as skipped otherwise.
 */

const ROOT = resolve(import.meta.dirname, '..');
const BATCH = 100;
const CLIENTS = Number(process.env.BENCH_MUTATION_CLIENTS ?? 4);
const WARMUP_MS = 1000;
const MEASURE_MS = Number(process.env.BENCH_MUTATION_MS ?? 5000);
const GOAL_SQLITE = 20_000;

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let uuid = 0;
function batch(size: number): Record<string, unknown>[] {
  return Array.from({ length: size }, (_, i) => {
    const n = ++uuid;
    return i % 2 === 0
      ? { key: `n${n % 50}/matrix`, uuid: `bench-${n}`, createdAt: 1_700_000_000_000 + n, type: 'updateNode', nodeId: `n${n % 50}`, properties: { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, n % 7, 0, n % 3, 1] } }
      : { key: `m${n % 10}/color`, uuid: `bench-${n}`, createdAt: 1_700_000_000_000 + n, type: 'updateMaterial', materialId: `m${n % 10}`, properties: { color: '#8899aa', roughness: 0.5, metalness: 0.25 } };
  });
}

interface Service {
  base: string;
  token: string;
  /** CPU time the server process has used so far (user + system), ms; undefined off Linux. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** utime + stime of a process from /proc (clock ticks of 10 ms on Linux). */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function startService(dataDir: string, databaseUrl?: string, synchronous?: SqliteSynchronous): Promise<Service> {
  const { token, user } = await signTestToken(dataDir, { firstName: 'Bench', lastName: 'Mark' });
  const seed = await openStore({ dataDir, databaseUrl });
  const model = { _id: 'bench', latestVersionKey: 'bench/v1', outputFormat: 'glb', sourceFileName: 'bench.glb' };
  await seed.putScene({ _id: 'bench-scene', name: 'Bench', viewerConfig: {}, models: [model], ownerId: user.id });
  await seed.close();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', CONFIG_FILE: '' };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  if (synchronous) env.SQLITE_SYNCHRONOUS = synchronous;
  else delete env.SQLITE_SYNCHRONOUS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server/main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/v1/config`)).ok) break;
    } catch {
      /* starting */
    }
    if (Date.now() > deadline) throw new Error('the server did not start within 60 s');
    await sleep(100);
  }
  return {
    base,
    token,
    cpuMs: () => processCpuMs(child.pid!),
    async stop() {
      agent.destroy();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

/** One POST over a keep-alive connection (node:http: lighter on the client's CPU than fetch). */
function post(url: URL, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CLIENTS requests in flight for `durationMs`, each a batch of `size` new mutations. */
async function hammer(service: Service, size: number, durationMs: number): Promise<{ requests: number; seconds: number }> {
  const url = new URL(`${service.base}/v1/models/bench/apply-mutations`);
  let requests = 0;
  const t0 = performance.now();
  const end = t0 + durationMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const res = await post(url, service.token, JSON.stringify({ mutations: batch(size) }));
        if (res.status !== 200) throw new Error(`apply-mutations answered ${res.status}: ${res.text}`);
        requests++;
      }
    }),
  );
  return { requests, seconds: (performance.now() - t0) / 1000 };
}

interface Measured {
  mutationsPerS: number;
  emptyPerS: number;
  /** Server CPU (user + system) per batch of BATCH mutations, ms. */
  cpuPerBatchMs?: number;
}

async function measureService(label: string, service: Service): Promise<Measured> {
  // Warm-up: JIT, statement caches, connection pools.
  await hammer(service, BATCH, WARMUP_MS);
  const cpu0 = service.cpuMs();
  const full = await hammer(service, BATCH, MEASURE_MS);
  const cpu1 = service.cpuMs();
  const empty = await hammer(service, 0, Math.max(1000, MEASURE_MS / 2));
  const mutationsPerS = (full.requests * BATCH) / full.seconds;
  const emptyPerS = empty.requests / empty.seconds;
  const cpuPerBatchMs = cpu0 !== undefined && cpu1 !== undefined ? (cpu1 - cpu0) / full.requests : undefined;
  console.log(
    `[mutations bench] ${label}: ${full.requests} batches in ${full.seconds.toFixed(1)} s = ${mutationsPerS.toFixed(0)} mutations/s; ` +
      `server CPU ${cpuPerBatchMs?.toFixed(2) ?? '?'} ms per batch; empty batches ${emptyPerS.toFixed(0)}/s`,
  );
  return { mutationsPerS, emptyPerS, cpuPerBatchMs };
}

/** The same rows straight into SQLite: one transaction per batch, the server's pragmas. */
function rawSqlite(dir: string, durationMs: number): number {
  const db = new Database(join(dir, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SQLITE_DEFAULT_SYNCHRONOUS}`);
  db.exec(`CREATE TABLE mutations (model_id TEXT NOT NULL, seq INTEGER NOT NULL, uuid TEXT NOT NULL, type TEXT NOT NULL, target_id TEXT NOT NULL,
    body TEXT NOT NULL, user_id TEXT, saved_at TEXT NOT NULL, PRIMARY KEY (model_id, seq)) WITHOUT ROWID;
    CREATE UNIQUE INDEX mutations_uuid ON mutations (model_id, uuid);`);
  const insert = db.prepare('INSERT INTO mutations (model_id, seq, uuid, type, target_id, body, user_id, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let seq = 0;
  const write = db.transaction((rows: Record<string, unknown>[]) => {
    const at = new Date().toISOString();
    for (const row of rows) insert.run('bench', ++seq, row.uuid as string, row.type as string, (row.nodeId ?? row.materialId) as string, JSON.stringify(row), 'u', at);
  });
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < durationMs) {
    write.immediate(batch(BATCH));
    n += BATCH;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  db.close();
  return rate;
}

/** The same rows straight into PostgreSQL: one multi-row insert per batch, in a transaction. */
async function rawPostgres(url: string, durationMs: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE TABLE raw_mutations (model_id TEXT NOT NULL, seq BIGINT NOT NULL, uuid TEXT NOT NULL, type TEXT NOT NULL, target_id TEXT NOT NULL,
    body JSONB NOT NULL, user_id TEXT, saved_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (model_id, seq), UNIQUE (model_id, uuid))`);
  let seq = 0;
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < durationMs) {
    const rows = batch(BATCH);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO raw_mutations (model_id, seq, uuid, type, target_id, body, user_id)
       SELECT 'bench', r.seq, r.uuid, r.type, r.target_id, r.body, 'u' FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) AS r (seq, uuid, type, target_id, body)`,
      [rows.map(() => ++seq), rows.map((r) => r.uuid), rows.map((r) => r.type), rows.map((r) => r.nodeId ?? r.materialId), rows.map((r) => JSON.stringify(r))],
    );
    await client.query('COMMIT');
    n += BATCH;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  await client.end();
  return rate;
}

export default async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const root = mkdtempSync(join(tmpdir(), 'parametricos-bench-mutations-'));
  try {
    // ----- SQLite -----
    const raw = rawSqlite(root, MEASURE_MS / 2);
    const sqlite = await startService(join(root, 'sqlite-data'));
    let measured;
    try {
      measured = await measureService('SQLite', sqlite);
    } finally {
      await sqlite.stop();
    }
    results.push({
      name: `apply-mutations on SQLite (WAL, synchronous=${SQLITE_DEFAULT_SYNCHRONOUS}), HTTP, batches of ${BATCH}, ${CLIENTS} clients (baseline: the same rows inserted straight into SQLite)`,
      value: measured.mutationsPerS,
      unit: 'mutations/s',
      baseline: raw,
      ratio: measured.mutationsPerS / raw,
      goal: `>= ${GOAL_SQLITE} mutations/s`,
      pass: measured.mutationsPerS >= GOAL_SQLITE,
    });
    if (measured.cpuPerBatchMs !== undefined) {
      // What one core of the server can do, whatever else the machine is doing (information).
      results.push({
        name: `apply-mutations on SQLite: mutations per second of server CPU (${measured.cpuPerBatchMs.toFixed(2)} ms per batch of ${BATCH}; load-independent)`,
        value: (BATCH * 1000) / measured.cpuPerBatchMs,
        unit: 'mutations/CPU-s',
      });
    }
    results.push({
      name: `apply-mutations on SQLite: batches of ${BATCH} per s against empty batches per s (HTTP round trip)`,
      value: measured.mutationsPerS / BATCH,
      unit: 'requests/s',
      baseline: measured.emptyPerS,
      ratio: measured.mutationsPerS / BATCH / measured.emptyPerS,
    });

    // ----- SQLite with an fsync per commit (SQLITE_SYNCHRONOUS=FULL), for information -----
    const full = await startService(join(root, 'sqlite-full-data'), undefined, 'FULL');
    let fullMeasured;
    try {
      fullMeasured = await measureService('SQLite FULL', full);
    } finally {
      await full.stop();
    }
    results.push({
      name: `apply-mutations on SQLite with SQLITE_SYNCHRONOUS=FULL (an fsync per batch; information), against the default`,
      value: fullMeasured.mutationsPerS,
      unit: 'mutations/s',
      baseline: measured.mutationsPerS,
      ratio: fullMeasured.mutationsPerS / measured.mutationsPerS,
    });

    // ----- PostgreSQL -----
    const skip = postgresSkipReason();
    if (skip) {
      console.log(`[mutations bench] PostgreSQL SKIPPED: ${skip}`);
      results.push({ name: `apply-mutations on PostgreSQL: SKIPPED (${skip})`, value: 0, unit: 'mutations/s' });
    } else {
      let cluster: TestPostgres | undefined;
      try {
        cluster = await startPostgres({ durable: true });
        const rawPg = await rawPostgres(await cluster.createDatabase(), MEASURE_MS / 2);
        const service = await startService(join(root, 'pg-data'), await cluster.createDatabase());
        let pgMeasured;
        try {
          pgMeasured = await measureService('PostgreSQL', service);
        } finally {
          await service.stop();
        }
        results.push({
          name: `apply-mutations on PostgreSQL (fsync on), HTTP, batches of ${BATCH}, ${CLIENTS} clients (baseline: the same rows inserted straight into PostgreSQL)`,
          value: pgMeasured.mutationsPerS,
          unit: 'mutations/s',
          baseline: rawPg,
          ratio: pgMeasured.mutationsPerS / rawPg,
        });
        if (pgMeasured.cpuPerBatchMs !== undefined) {
          results.push({
            name: `apply-mutations on PostgreSQL: mutations per second of server CPU (${pgMeasured.cpuPerBatchMs.toFixed(2)} ms per batch of ${BATCH}; the database's own CPU not counted)`,
            value: (BATCH * 1000) / pgMeasured.cpuPerBatchMs,
            unit: 'mutations/CPU-s',
          });
        }
        results.push({
          name: `apply-mutations on PostgreSQL: batches of ${BATCH} per s against empty batches per s (HTTP round trip)`,
          value: pgMeasured.mutationsPerS / BATCH,
          unit: 'requests/s',
          baseline: pgMeasured.emptyPerS,
          ratio: pgMeasured.mutationsPerS / BATCH / pgMeasured.emptyPerS,
        });
      } finally {
        cluster?.stop();
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return results;
}
