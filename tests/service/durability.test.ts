import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MutationLogResponse } from '../../src/protocol/mutation.ts';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { openStore } from '../../src/server/store.ts';
import { backendEnv, unavailable, useBackends } from './backends.ts';
import { REPO_ROOT, tempDir } from './helpers.ts';

/**
 * Durability: two clients save batches of mutations in a loop while the server process
 * (`src/server/main.ts`, as `npm start` runs it) is killed with SIGKILL and started again, a few
 * rounds. A client retries a batch that got no answer, as the editor's save queue does. At the
 * end every acknowledged mutation is in the log exactly once, each client's in the order sent,
 * with no gap in the sequence numbers.
 */

const ROUNDS = 4;
const BATCH = 25;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(useBackends())('durability on %s', (backend) => {
  it.skipIf(unavailable(backend))(
    'keeps every acknowledged mutation exactly once across SIGKILL and restart',
    async () => {
      const root = await tempDir('durability-');
      const dataDir = join(root, 'data');
      const env = await backendEnv(backend);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;

      // A scene owned by the test user, with one model to save to.
      const { token, user } = await signTestToken(dataDir, { firstName: 'Dura', lastName: 'Bility' });
      const seed = await openStore({ dataDir, databaseUrl: env.DATABASE_URL });
      const model = { _id: 'durable', latestVersionKey: 'durable/v1', outputFormat: 'glb', sourceFileName: 'durable.glb' };
      await seed.putScene({ _id: 'durable-scene', name: 'Durable', viewerConfig: {}, models: [model], ownerId: user.id });
      await seed.close();

      let server: ChildProcess | undefined;
      let output = '';
      const start = async () => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/server/main.ts')], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', CONFIG_FILE: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout!.on('data', (d) => (output += d));
        child.stderr!.on('data', (d) => (output += d));
        server = child;
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${output}`);
          try {
            if ((await fetch(`${base}/v1/config`, { signal: AbortSignal.timeout(1000) })).ok) return;
          } catch {
            /* not up yet */
          }
          await sleep(50);
        }
        throw new Error(`the server did not start: ${output}`);
      };
      const kill = async () => {
        const child = server!;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      };

      let stop = false;
      const acknowledged = new Map<string, number>();
      let attempts = 0;
      let failures = 0;
      const client = async (name: string, sent: string[]) => {
        for (let b = 0; !stop; b++) {
          const mutations = Array.from({ length: BATCH }, (_, i) => ({
            key: `${name}/${b}/${i}`,
            uuid: `${name}-${b}-${i}`,
            createdAt: Date.now(),
            type: 'updateNode',
            nodeId: `${name}-node`,
            properties: { visible: i % 2 === 0 },
          }));
          // The same batch again until it is acknowledged (the editor's queue retries likewise).
          for (;;) {
            attempts++;
            try {
              const res = await fetch(`${base}/v1/models/durable/apply-mutations`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
                body: JSON.stringify({ mutations }),
                signal: AbortSignal.timeout(10_000),
              });
              if (res.status === 200) {
                const body = (await res.json()) as { saved: { uuid: string; seq: number }[] };
                body.saved.forEach(({ uuid, seq }) => acknowledged.set(uuid, seq));
                sent.push(...mutations.map((m) => m.uuid));
                break;
              }
              failures++;
            } catch {
              failures++;
            }
            await sleep(20);
          }
        }
      };

      try {
        await start();
        const sentA: string[] = [];
        const sentB: string[] = [];
        const clients = Promise.all([client('a', sentA), client('b', sentB)]);
        for (let round = 0; round < ROUNDS; round++) {
          await sleep(300 + Math.floor(Math.random() * 500));
          await kill();
          await sleep(Math.floor(Math.random() * 100));
          await start();
        }
        await sleep(300);
        stop = true;
        await clients;

        const res = await fetch(`${base}/v1/models/durable/mutations`);
        const log = MutationLogResponse.parse(await res.json());
        const uuids = log.mutations.map((m) => m.uuid);
        // Exactly once: no uuid twice, every acknowledged one there, with the seq it was given.
        expect(new Set(uuids).size).toBe(uuids.length);
        expect(acknowledged.size).toBeGreaterThan(ROUNDS * BATCH);
        const seqOf = new Map(log.mutations.map((m) => [m.uuid, m.seq]));
        for (const [uuid, seq] of acknowledged) expect({ uuid, seq: seqOf.get(uuid) }).toEqual({ uuid, seq });
        // Nothing but what the clients sent (each retried to acknowledgement), in their order.
        expect(uuids.length).toBe(sentA.length + sentB.length);
        expect(uuids.filter((u) => u.startsWith('a-'))).toEqual(sentA);
        expect(uuids.filter((u) => u.startsWith('b-'))).toEqual(sentB);
        expect(log.mutations.map((m) => m.seq)).toEqual(uuids.map((_, i) => i + 1));
        expect(log.lastSeq).toBe(uuids.length);
        // The kills did hit requests in flight.
        expect(failures).toBeGreaterThan(0);
        console.log(`[durability ${backend}] ${ROUNDS} SIGKILLs, ${attempts} requests (${failures} failed and retried), ${uuids.length} mutations stored exactly once`);
      } finally {
        stop = true;
        if (server && server.exitCode === null && server.signalCode === null) await kill();
        await rm(root, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
