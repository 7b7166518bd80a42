import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { staleReason } from '../scripts/build-state.mjs';

/** The benchmarks' own server: built app, a data dir of their own, a free port on loopback. */

const ROOT = resolve(import.meta.dirname, '..');

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => res(port));
    });
  });
}

export interface BenchServer {
  base: string;
  /** The server's process (node itself, so /proc/{pid} is the server's memory). */
  pid: number;
  stop(): void;
}

export interface StartOptions {
  /** Build dist/ first when it is stale (default true; the API-only benchmarks need no app). */
  build?: boolean;
  /** More environment for the server (UPLOAD_WORKERS, MAX_ASSET_BYTES...). */
  env?: Record<string, string>;
  /** The repository whose server runs (default this one; a checkout of another commit to compare). */
  root?: string;
}

/** Starts the server (building dist/ first when it is missing or stale) and waits until it answers. */
export async function startServer(dataDir: string, options: StartOptions = {}): Promise<BenchServer> {
  const root = options.root ?? ROOT;
  const reason = options.build === false ? undefined : staleReason(ROOT);
  if (reason) {
    console.log(`[bench] ${reason}: vite build`);
    const r = spawnSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('vite build failed');
  }
  const port = await freePort();
  // node with tsx's loader, as `npm start` runs it: one process, whose pid is the server's.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server/main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DIST_DIR: join(ROOT, 'dist'), ...options.env },
    stdio: 'ignore',
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/v1/config`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    pid: child.pid!,
    stop() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}
