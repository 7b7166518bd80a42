import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers.ts';

/**
 * A whole server process (`src/server/main.ts`, what `npm run serve` runs) for the tests and the
 * benchmark that need meetings across processes.
 */
export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:port */
  url: string;
  port: number;
  output(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const base = { ...process.env };
  for (const key of ['PORT', 'HOST', 'DATA_DIR', 'DIST_DIR', 'PUBLIC_URL', 'CONFIG_FILE', 'REDIS_URL', 'DATABASE_URL', 'MEETING_ORIGINS']) delete base[key];
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/server/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...base, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`main.ts did not start within 60 s: ${stdout} ${stderr}`)), 60_000);
    const check = () => {
      const match = /^Home: +http:\/\/localhost:(\d+)\//m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`main.ts exited with ${code}: ${stderr}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    port,
    output: () => ({ stdout, stderr }),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
