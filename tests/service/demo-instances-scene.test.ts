import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { decodeInstanceSet } from '../../src/protocol/instance-set.ts';
import { loadServerConfig } from '../../src/server/config.ts';
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
    const cases = [['instances', '0'], ['instances', '1000001'], ['instances', 'many'], ['trees', '10'], ['instances', '5', '--seed', 'x']];
    const results = await Promise.all(cases.map((args) => run(args, { DATA_DIR: dataDir })));
    for (const [i, args] of cases.entries()) {
      const result = results[i];
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: .*\n\nusage: npm run demo -- instances N/);
    }
  }, 120_000);
});
