import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { decodeInstanceSet, encodeInstanceSet } from '../../src/protocol/instance-set.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import { INSTANCE_DEMO_ASSETS } from '../../src/server/demo-instances.ts';
import { REALISTIC_TRIANGLE_TARGETS } from '../../src/server/demo-instances-realistic.ts';
import { createInstancesScene } from '../../src/server/demo-instances-scene.ts';
import { createInstanceService } from '../../src/server/instances.ts';
import { readFile } from 'node:fs/promises';
import { openFileStore, type Store } from '../../src/server/store.ts';
import { REPO_ROOT, tempDir } from './helpers.ts';

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const base = { ...process.env };
    for (const key of ['PORT', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_URL', 'CONFIG_FILE']) delete base[key];
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/server/demo-cli.ts'), ...args], { cwd: REPO_ROOT, env: { ...base, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo -- instances N', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = join(await tempDir('demo-instances-'), 'data');
  });

  it('generates a scene of N instances in groups of the demo assets and prints its URLs', async () => {
    const result = await run(['instances', '2500', '--scene', 'city'], { DATA_DIR: dataDir, PUBLIC_URL: 'https://viewer.example' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Viewer: https://viewer.example/embed/city');
    const store = await openFileStore(dataDir);
    try {
      const scene = (await store.getScene('city'))!;
      const groups = scene.viewerConfig.objects!.filter((o) => o.type === 'InstancedAssetGroup');
      expect(groups.length).toBeGreaterThanOrEqual(5);
      let total = 0;
      for (const group of groups) {
        expect(group.matrices).toBeUndefined();
        const record = (await store.getInstanceGroup('city', group.uuid))!;
        total += decodeInstanceSet(record.base).ids.length;
        // The asset is on the asset CDN's disk, a valid container.
        const container = await readFile(join(dataDir, 'assets', group.assetId!, 'model.3dxa'));
        expect((await decodeContainer(new Uint8Array(container))).format).toBe('glb');
      }
      expect(total).toBe(2500);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('refills a named scene: fewer instances replace the sets, the assets are written once', async () => {
    const store: Store = await openFileStore(dataDir);
    try {
      const config = { ...loadServerConfig({}), dataDir };
      const result = await createInstancesScene({ config, store, instances: createInstanceService(store) }, 7, { sceneId: 'city' });
      expect(result.groups.reduce((n, g) => n + g.count, 0)).toBe(7);
      const listed = (await store.getScene('city'))!.viewerConfig.objects!.map((o) => o.uuid).sort();
      expect(listed).toEqual(result.groups.map((g) => g.groupId).sort());
    } finally {
      await store.close();
    }
  }, 120_000);

  it('says what is wrong with its arguments (exit 2)', async () => {
    const cases = [['instances', '0'], ['instances', '1000001'], ['instances', 'many'], ['trees', '10'], ['instances', '5', '--seed', 'x'], ['instances', '5', '--assets', 'fancy']];
    const results = await Promise.all(cases.map((args) => run(args, { DATA_DIR: dataDir })));
    for (const [i, args] of cases.entries()) {
      const result = results[i];
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: .*\n\nusage: npm run demo -- instances N/);
    }
  }, 120_000);

  it('with --assets realistic: the same city of the realistic assets (own ids), and the summary names the set and the triangles', async () => {
    const result = await run(['instances', '3000', '--scene', 'city-realistic', '--assets', 'realistic'], { DATA_DIR: dataDir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/realistic assets/);
    for (const { key } of INSTANCE_DEMO_ASSETS) expect(result.stdout).toMatch(new RegExp(`x demo-${key}-realistic \\([\\d,]+ triangles each\\)`));
    expect(result.stdout).toMatch(/[\d,]+ triangles in all/);
    const store = await openFileStore(dataDir);
    try {
      const config = { ...loadServerConfig({}), dataDir };
      // The same N and seed with the simple set, for comparison.
      const simple = await createInstancesScene({ config, store, instances: createInstanceService(store) }, 3000, { sceneId: 'city-simple' });
      expect(simple.assets).toBe('simple');
      const realistic = (await store.getScene('city-realistic'))!;
      const groups = realistic.viewerConfig.objects!.filter((o) => o.type === 'InstancedAssetGroup');
      expect(groups.map((g) => g.assetId)).toEqual(INSTANCE_DEMO_ASSETS.map((a) => `demo-${a.key}-realistic`));
      expect(groups.map((g) => [g.uuid, g.instanceCount])).toEqual(simple.groups.map((g) => [g.groupId, g.count]));
      expect(simple.groups.map((g) => g.assetId)).toEqual(INSTANCE_DEMO_ASSETS.map((a) => `demo-${a.key}`));
      for (const group of groups) {
        // The same layout: the very same instance set, id for id and matrix for matrix.
        const mine = decodeInstanceSet((await store.getInstanceGroup('city-realistic', group.uuid))!.base);
        const theirs = decodeInstanceSet((await store.getInstanceGroup('city-simple', group.uuid))!.base);
        expect(Buffer.from(encodeInstanceSet(mine)).equals(Buffer.from(encodeInstanceSet(theirs))), group.uuid).toBe(true);
        // Both sets' assets are on the one asset CDN, valid containers.
        for (const id of [group.assetId!, group.assetId!.replace(/-realistic$/, '')]) {
          const container = await readFile(join(dataDir, 'assets', id, 'model.3dxa'));
          expect((await decodeContainer(new Uint8Array(container))).format).toBe('glb');
        }
      }
      // The printed triangles per asset are the realistic ones.
      for (const { key } of INSTANCE_DEMO_ASSETS) {
        const printed = Number(new RegExp(`demo-${key}-realistic \\(([\\d,]+) triangles each`).exec(result.stdout)![1]!.replace(/,/g, ''));
        expect(Math.abs(printed / REALISTIC_TRIANGLE_TARGETS[key] - 1), key).toBeLessThanOrEqual(0.2);
      }
    } finally {
      await store.close();
    }
  }, 180_000);

  it('refuses an unknown --assets value, naming the sets it takes (exit 2)', async () => {
    const result = await run(['instances', '10', '--assets', 'photoreal'], { DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: --assets must be one of simple, realistic \(got 'photoreal'\)\n/);
  }, 60_000);
});
