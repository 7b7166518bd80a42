import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelDoc, SceneDoc } from '../../src/protocol/scene.ts';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { openFileStore } from '../../src/server/store.ts';
import { INDEX_HTML, MODELS_DIR, REPO_ROOT, tempDir } from './helpers.ts';
import { indexPageHtml } from '../../src/server/index-page.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for a child: this one without anything that would change the server's config. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of ['PORT', 'HOST', 'DATA_DIR', 'DIST_DIR', 'PUBLIC_URL', 'CONFIG_FILE', 'MAX_ASSET_BYTES']) delete base[key];
  return { ...base, ...env };
}

function runTs(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, script), ...args], { cwd: REPO_ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

describe('npm run import', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = join(await tempDir('cli-'), 'data');
  });
  afterAll(() => rm(join(dataDir, '..'), { recursive: true, force: true }));

  it('imports a GLB into a named scene and prints the scene id and viewer URL', async () => {
    const run = await runTs('src/server/import-cli.ts', [join(MODELS_DIR, 'BoxAnimated.glb'), '--scene', 'boxes', '--name', 'Animated boxes', '--no-optimize'], { DATA_DIR: dataDir, PORT: '9123' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Scene: boxes (Animated boxes, 1 model)');
    expect(run.stdout).toContain('Viewer: http://localhost:9123/embed/boxes\n');

    const store = await openFileStore(dataDir);
    const scene = SceneDoc.parse(await store.getScene('boxes'));
    expect(scene.name).toBe('Animated boxes');
    const model = ModelDoc.parse(await store.getModel(scene.models[0]._id));
    expect(model).toEqual(scene.models[0]);
    const decoded = await decodeContainer(new Uint8Array(await readFile(store.derivativePath(model.latestVersionKey))));
    expect(Buffer.compare(Buffer.from(decoded.asset), await readFile(join(MODELS_DIR, 'BoxAnimated.glb')))).toBe(0);
    await store.close();
  });

  it('makes a new scene without --scene and uses PUBLIC_URL when set', async () => {
    const run = await runTs('src/server/import-cli.ts', [join(MODELS_DIR, 'Duck.glb')], { DATA_DIR: dataDir, PUBLIC_URL: 'https://viewer.example.com/' });
    expect(run.code).toBe(0);
    const match = /Viewer: https:\/\/viewer\.example\.com\/embed\/([A-Za-z0-9_-]+)\n/.exec(run.stdout);
    expect(match).not.toBeNull();
    const sceneId = match?.[1] ?? '';
    expect(run.stdout).toContain(`Scene: ${sceneId} (Duck, 1 model)`);
    const store = await openFileStore(dataDir);
    const scene = SceneDoc.parse(await store.getScene(sceneId));
    expect(scene.models[0].sourceFileName).toBe('Duck.glb');
    await store.close();
  });

  it('exits 2 on usage errors', async () => {
    const cases = [[], ['a.glb', 'b.glb'], ['a.glb', '--frobnicate'], ['a.glb', '--scene', '../x'], ['a.glb', '--scene']];
    const runs = await Promise.all(cases.map((args) => runTs('src/server/import-cli.ts', args, { DATA_DIR: dataDir })));
    for (const [i, args] of cases.entries()) {
      const run = runs[i];
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stderr).toContain('usage: npm run import -- FILE');
    }
  });

  it('exits 1 with "error: ..." on failures', async () => {
    const notModel = join(dataDir, '..', 'notes.txt');
    await writeFile(notModel, 'not a model');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[join(dataDir, 'missing.glb')], {}, /^error: Cannot read .*missing\.glb/],
      [[notModel], {}, /^error: notes\.txt: Unknown file format/],
      [[join(MODELS_DIR, 'Duck.glb')], { MAX_ASSET_BYTES: '100' }, /^error: Duck\.glb: The model is larger than the limit of 100 bytes/],
      [[join(MODELS_DIR, 'Duck.glb')], { PORT: 'x' }, /^error: invalid configuration: PORT must be a number/],
    ];
    const runs = await Promise.all(cases.map(([args, env]) => runTs('src/server/import-cli.ts', args, { DATA_DIR: dataDir, ...env })));
    for (const [i, [args, , message]] of cases.entries()) {
      const run = runs[i];
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toMatch(message);
    }
  });
});

/** Starts main.ts and resolves once it printed its viewer URL. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/server/main.ts')], { cwd: REPO_ROOT, env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolvePromise) => child.on('exit', (code) => resolvePromise(code)));
  const ready = new Promise<string>((resolvePromise, reject) => {
    const check = () => {
      const match = /Viewer: (http:\/\/localhost:\d+)\/embed\/demo\n/.exec(stdout);
      if (match) resolvePromise(match[1]);
    };
    child.stdout.on('data', check);
    exited.then((code) => reject(new Error(`main.ts exited with ${code}: ${stderr}`)));
  });
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

describe('npm run serve (main.ts)', () => {
  let root: string;
  let blocker: Server;
  beforeAll(async () => {
    root = await tempDir('main-');
    await mkdir(join(root, 'dist'));
    await writeFile(join(root, 'dist', 'index.html'), INDEX_HTML);
  });
  afterAll(async () => {
    await new Promise<void>((resolvePromise) => (blocker ? blocker.close(() => resolvePromise()) : resolvePromise()));
    await rm(root, { recursive: true, force: true });
  });

  it('creates the demo scene, prints the URLs, serves, and stops cleanly on SIGTERM', async () => {
    const main = startMain({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(root, 'data'), DIST_DIR: join(root, 'dist') });
    const origin = await main.ready;
    const { stdout } = main.output();
    expect(stdout).toMatch(/^Home: +http:\/\/localhost:\d+\/$/m);
    expect(stdout).toMatch(/^Viewer: http:\/\/localhost:\d+\/embed\/demo$/m);
    const port = new URL(origin).port;
    const scene = await (await fetch(`http://127.0.0.1:${port}/v1/scenes/demo`)).json();
    expect(scene.name).toBe('Demo machine');
    expect(await (await fetch(`http://127.0.0.1:${port}/embed/demo`)).text()).toBe(indexPageHtml(INDEX_HTML, ''));

    // The import CLI writes into the running server's DATA_DIR; the server sees it at once.
    const run = await runTs('src/server/import-cli.ts', [join(MODELS_DIR, 'BoxAnimated.glb'), '--scene', 'demo'], { DATA_DIR: join(root, 'data') });
    expect(run.code).toBe(0);
    const extended = await (await fetch(`http://127.0.0.1:${port}/v1/scenes/demo`)).json();
    expect(extended.models.map((m: { sourceFileName: string }) => m.sourceFileName)).toEqual(['demo-machine.glb', 'BoxAnimated.glb']);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
  });

  it('says clearly when the port is taken', async () => {
    blocker = createServer();
    await new Promise<void>((resolvePromise) => blocker.listen(0, '127.0.0.1', () => resolvePromise()));
    const port = (blocker.address() as { port: number }).port;
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(root, 'data'), DIST_DIR: join(root, 'dist') });
    expect(await main.exited).toBe(1);
    expect(main.output().stderr).toContain(`error: port ${port} is already in use`);
    await main.ready.catch(() => undefined);
  });

  it('reports a configuration error and exits 1', async () => {
    const main = startMain({ PORT: '99999', DATA_DIR: join(root, 'data') });
    expect(await main.exited).toBe(1);
    expect(main.output().stderr).toContain('error: invalid configuration: PORT must be at most 65535');
    await main.ready.catch(() => undefined);
  });
});
