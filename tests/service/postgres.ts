import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A real PostgreSQL server for the service tests, started by the tests themselves from Debian's
 * binaries (package `postgresql`: /usr/lib/postgresql/{version}/bin): a fresh cluster in a
 * temporary folder, listening on 127.0.0.1 on a free port, trust authentication, stopped and
 * removed at the end. PostgreSQL refuses to run as root: as root the cluster belongs to the
 * `postgres` system user (created by the Debian package) and its commands run through `runuser`.
 *
 * No binaries: `postgresSkipReason()` says so and the PostgreSQL suites are skipped (reported as
 * skipped, never passed). `.ci/run` installs the package, so CI always runs them.
 */

export interface TestPostgres {
  port: number;
  /** A new empty database; its connection string. */
  createDatabase(): Promise<string>;
  stop(): void;
}

function postgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/** Why the PostgreSQL suites cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  if (!postgresBinDir()) return 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install postgresql';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return "running as root and there is no 'postgres' user to run PostgreSQL as";
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresOptions {
  /** Keep fsync on (benchmarks: measure what production does). Default off: faster tests. */
  durable?: boolean;
}

/** Starts a throwaway cluster. */
export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  const reason = postgresSkipReason();
  if (reason) throw new Error(reason);
  const bin = postgresBinDir()!;
  const asRoot = process.getuid?.() === 0;
  const root = mkdtempSync(join(tmpdir(), 'parametricos-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = root;
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    try {
      return execFileSync(file, argv, { stdio: 'pipe', encoding: 'utf8', timeout: 120_000 });
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${command} failed: ${e.stderr || e.stdout || e.message}`);
    }
  };
  if (asRoot) {
    const pgUser = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const pgGroup = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(root, Number(pgUser), Number(pgGroup));
  }
  const user = asRoot ? 'postgres' : userInfo().username;
  const port = await freePort();
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already gone */
      }
    }
    rmSync(root, { recursive: true, force: true });
    process.off('exit', stop);
  };
  process.on('exit', stop);
  try {
    run('initdb', ['-D', dataDir, '-U', user, '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync', '--no-instructions']);
    const settings = ['-p', String(port), '-k', socketDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
    if (!options.durable) settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
    run('pg_ctl', ['-D', dataDir, '-l', join(root, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
    started = true;
  } catch (error) {
    stop();
    throw error;
  }

  let databases = 0;
  const base = `postgres://${user}@127.0.0.1:${port}`;
  return {
    port,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    stop,
  };
}

let shared: Promise<TestPostgres> | undefined;

/** One cluster per test file (vitest runs each file in its own process); stopped at exit. */
export function sharedPostgres(): Promise<TestPostgres> {
  shared ??= startPostgres();
  return shared;
}

/** Stops the shared cluster, if one was started. */
export async function stopSharedPostgres(): Promise<void> {
  if (!shared) return;
  const cluster = await shared.catch(() => undefined);
  shared = undefined;
  cluster?.stop();
}
