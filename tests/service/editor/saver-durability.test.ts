import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MutationQueues, nodeMutation, newUuid } from '../../../src/editor/mutation-queue';
import { createSaver, OBJECTS_QUEUE, type SaveState } from '../../../src/editor/saver';
import { MutationLogResponse, type Mutation } from '../../../src/protocol/mutation.ts';
import { defaultSceneObject, type SceneObjectChange } from '../../../src/protocol/scene-objects.ts';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { openStore } from '../../../src/server/store.ts';
import { REPO_ROOT, tempDir } from '../helpers.ts';

/**
 * The editor's saver (src/editor/saver.ts, the code the status bar reads) against the real model
 * service process (`src/server/main.ts`, as `npm start` runs it), killed with SIGKILL in the middle
 * of a burst of saves and started again: when it is back, the saver's retries store every edit
 * exactly once (mutations of two models and scene object changes) and the state the status bar
 * shows is 'saved' with nothing pending.
 */

const EDITS_PER_MODEL = 400;
const OBJECT_CHANGES = 60;

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

describe('editor saves across a SIGKILL of the model service', () => {
  it('stores every edit exactly once and ends saved', async () => {
    const root = await tempDir('editor-durability-');
    const dataDir = join(root, 'data');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const { token, user } = await signTestToken(dataDir, { firstName: 'Ed', lastName: 'Itor' });
    const seed = await openStore({ dataDir });
    const models = ['m1', 'm2'].map((id) => ({ _id: id, latestVersionKey: `${id}/v1`, outputFormat: 'glb', sourceFileName: `${id}.glb` }));
    await seed.putScene({ _id: 'scene-k', name: 'Killed', viewerConfig: {}, models, ownerId: user.id });
    await seed.close();

    let server: ChildProcess | undefined;
    let output = '';
    const start = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/server/main.ts')], {
        cwd: REPO_ROOT,
        env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', CONFIG_FILE: '', DATABASE_URL: '' },
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

    const queues = new MutationQueues();
    const states: SaveState[] = [];
    const saver = createSaver({
      queues,
      modelService: base,
      sceneId: 'scene-k',
      getToken: async () => token,
      enabled: () => true,
      // Each request may hang on a dying server: the editor's fetch would too; bounded here.
      fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(5000) }),
      onState: (s) => states.push(s),
    });
    const expected = new Map<string, string[]>([
      ['m1', []],
      ['m2', []],
    ]);
    const objectChanges: string[] = [];

    try {
      await start();
      // The burst: edits arrive every few ms and Ctrl+S is pressed often, while the server dies once.
      let killed = false;
      for (let i = 0; i < EDITS_PER_MODEL; i++) {
        for (const modelId of ['m1', 'm2']) {
          const m = nodeMutation(modelId, `n${i}`, { visible: i % 2 === 0 })!;
          queues.add(modelId, m);
          expected.get(modelId)!.push(m.uuid);
        }
        if (i < OBJECT_CHANGES) {
          const object = defaultSceneObject('PointLight', `light-${i}`);
          const change: SceneObjectChange = { key: `object/${object.uuid}`, uuid: newUuid(), createdAt: Date.now(), type: 'putObject', objectId: object.uuid, object };
          queues.add(OBJECTS_QUEUE, change as unknown as Mutation);
          objectChanges.push(change.uuid);
        }
        if (i % 10 === 0) void saver.save();
        if (i === Math.floor(EDITS_PER_MODEL / 3)) {
          // Killed while a save is in flight.
          await sleep(5);
          await kill();
          killed = true;
          void saver.save();
          await sleep(300);
          void start().catch(() => undefined);
        }
        await sleep(1);
      }
      expect(killed).toBe(true);
      // The server comes back; the saver's own retries (1 s, doubling) finish the work. Ctrl+S once more.
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline && (queues.size > 0 || saver.saving || saver.state.status !== 'saved')) {
        if (!saver.saving && saver.state.retryAt === null && queues.size > 0) void saver.save();
        await sleep(100);
      }
      expect(saver.state.status).toBe('saved');
      expect(saver.state.pending).toBe(0);
      expect(saver.state.rejected).toEqual([]);
      // The failure was seen and told: some state said 'failed' with a reason.
      expect(states.some((s) => s.status === 'failed' && /cannot be reached|failed/.test(s.reason ?? ''))).toBe(true);

      for (const [modelId, uuids] of expected) {
        const log = MutationLogResponse.parse(await (await fetch(`${base}/v1/models/${modelId}/mutations`)).json());
        const stored = log.mutations.map((m) => m.uuid);
        expect(stored.length).toBe(uuids.length);
        expect(new Set(stored).size).toBe(stored.length);
        expect(stored).toEqual(uuids);
      }
      const scene = (await (await fetch(`${base}/v1/scenes/scene-k`)).json()) as { viewerConfig: { objects: { uuid: string }[]; objectChanges: string[] } };
      expect(scene.viewerConfig.objects.map((o) => o.uuid)).toEqual(objectChanges.map((_, i) => `light-${i}`));
      expect(scene.viewerConfig.objectChanges).toEqual(objectChanges);
    } finally {
      saver.dispose();
      if (server && server.exitCode === null) await kill();
    }
  }, 180_000);
});
