import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../../../src/protocol/config';
import { INSTANCE_SET_MIME } from '../../../src/protocol/instances';
import { SceneDoc } from '../../../src/protocol/scene';
import { EARLY_REQUEST_IDS } from '../../../src/scene/container-client';
import { FIRST_PICTURE_INSTANCES, instanceSetUrl, assetUrl } from '../../../src/scene/instance-assets';
import { modelFileUrl } from '../../../src/scene/load-scene';
import { earlyBoot } from '../../../src/viewer/early-boot';
import { BENCHMARK_SIZE, LOW_TEXTURE_LIMIT, parseQualityTier, PROBE_ATTRIBUTES, settingsForTier, takeEarlyProbe } from '../../../src/viewer/quality';
import { runEarlyPage } from '../../support/early-page';

/** A stand-in for the loader worker the boot script starts: records what it is sent. */
class FakeWorker {
  static last: FakeWorker | null = null;
  sent: Record<string, unknown>[] = [];
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: { preventDefault(): void }) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  terminated = false;
  constructor(
    readonly url: string,
    readonly options: unknown,
  ) {
    FakeWorker.last = this;
  }
  postMessage(message: Record<string, unknown>): void {
    this.sent.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
}

const WORKER_URL = '/assets/container-worker-AbC123.js';

function config(): ClientConfig {
  return {
    endpoints: {
      account: '',
      meetings: '',
      publicMeetings: '',
      modelService: 'http://ms.test/',
      modelDerivative: '',
      modelDerivativeCdn: 'http://cdn.test//',
      assetCdn: 'http://assets.test/',
    },
    identityProvider: { domain: '', clientId: 'viewer', callbackUrl: '', audience: 'parametricos' },
    rtc: { iceServers: [] },
  };
}

const model = (id: string) => ({ _id: id, name: id, sourceFileName: `${id}.glb`, outputFormat: 'glb', latestVersionKey: `derivatives/${id}/v1` });

const SCENE = {
  _id: 's 1',
  name: 'Early',
  models: [model('a'), model('b'), { ...model('skipped'), outputFormat: 'ifc' }, model('c'), model('d')],
  viewerConfig: {
    objects: [
      { type: 'InstancedAssetGroup', uuid: 'small', assetId: 'chair', instanceCount: FIRST_PICTURE_INSTANCES },
      { type: 'InstancedAssetGroup', uuid: 'large', assetId: 'chair', instanceCount: FIRST_PICTURE_INSTANCES + 1 },
      { type: 'InstancedAssetGroup', uuid: 'inline', assetId: 'table', matrices: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]] },
    ],
  },
};

afterEach(() => {
  FakeWorker.last = null;
  vi.unstubAllGlobals();
  delete (globalThis as { __earlyProbe?: unknown }).__earlyProbe;
});

/** The built page at `href` with its loader worker, answered with the configuration and `scene`. */
async function bootWithWorker(href: string, scene: unknown = SCENE) {
  const early = await runEarlyPage(href, { modelService: 'http://ms.test', workerUrl: WORKER_URL, Worker: FakeWorker });
  early.answer('/v1/config', config());
  early.answer('http://ms.test/v1/scenes/s%201', scene);
  await early.page.__earlyFetchesStarted;
  return { ...early, worker: FakeWorker.last! };
}

describe('the boot script with the loader worker (a built embed)', () => {
  it("starts the worker at its built URL and asks it for the first models and the groups' sets with the app's ids, URLs, media type and priority rule", async () => {
    const early = await bootWithWorker('http://viewer.test/embed/s%201');
    expect(early.worker.url).toBe(WORKER_URL);
    expect(early.worker.options).toEqual({ type: 'module' });
    expect(early.page.__earlyLoader?.worker).toBe(early.worker);
    const parsed = SceneDoc.parse({ _id: SCENE._id, name: SCENE.name, models: SCENE.models });
    // The first three loadable models (MODEL_DOWNLOAD_CONCURRENCY), at the URLs the app builds.
    const models = parsed.models.filter((m) => m.outputFormat === 'glb').slice(0, 3);
    const sets = ['small', 'large'].map((group) => instanceSetUrl(config(), 's 1', group));
    expect(early.worker.sent).toEqual([
      ...models.map((m, i) => ({ id: EARLY_REQUEST_IDS + i, kind: 'model', url: modelFileUrl(config(), m), images: true, textureLimit: undefined })),
      { id: EARLY_REQUEST_IDS + 3, kind: 'instance-set', url: sets[0], accept: INSTANCE_SET_MIME, priority: undefined },
      { id: EARLY_REQUEST_IDS + 4, kind: 'instance-set', url: sets[1], accept: INSTANCE_SET_MIME, priority: 'low' },
    ]);
    expect(early.page.__earlyLoader?.ids).toEqual(Object.fromEntries(early.worker.sent.map((m) => [m.url, m.id])));
    // Fetched on the main thread: the documents, the three models' saved edits, each asset once.
    expect(early.requests).toEqual([
      'http://ms.test/v1/scenes/s%201',
      '/v1/config',
      ...models.map((m) => `http://ms.test/v1/models/${m._id}/mutations?after=0&limit=1000`),
      assetUrl(config(), 'chair'),
      assetUrl(config(), 'table'),
    ]);
    expect(early.inits.slice(0, 5).every((init) => (init?.headers as Record<string, string>).Accept === 'application/json')).toBe(true);
    expect(early.worker.terminated).toBe(false);
  });

  it("sends a forced tier's texture limit as the app reads the tier and sets its limit; none for a detected tier", async () => {
    for (const search of [
      '?quality=low',
      '?quality=%20LOW%20',
      '?quality=Medium',
      '?quality=high',
      '?quality=',
      '?quality=ultra',
      '',
      '?autoPlay=1&quality=low',
    ]) {
      const early = await bootWithWorker(`http://viewer.test/embed/s%201${search}`);
      const tier = parseQualityTier(new URLSearchParams(search).get('quality'));
      const limits = early.worker.sent.filter((m) => m.kind === 'model').map((m) => m.textureLimit);
      expect(limits, search).toEqual(Array(3).fill(tier ? settingsForTier(tier, 1).textureLimit : undefined));
    }
    expect((await bootWithWorker('http://viewer.test/embed/s%201?quality=low')).worker.sent[0].textureLimit).toBe(LOW_TEXTURE_LIMIT);
  });

  it('keeps the final replies the worker sends before the app adopts it, not its progress', async () => {
    const early = await bootWithWorker('http://viewer.test/embed/s%201');
    early.worker.onmessage!({ data: { id: EARLY_REQUEST_IDS, progress: { loaded: 1, total: 2 } } });
    expect(early.page.__earlyLoader?.replies).toEqual({});
    const reply = { id: EARLY_REQUEST_IDS, asset: new ArrayBuffer(1) };
    early.worker.onmessage!({ data: reply });
    expect(early.page.__earlyLoader?.replies).toEqual({ [EARLY_REQUEST_IDS]: reply });
  });

  it('a worker that fails is marked failed and stopped (the app starts its own)', async () => {
    const early = await bootWithWorker('http://viewer.test/embed/s%201');
    const event = { preventDefault: vi.fn() };
    early.worker.onerror!(event);
    expect(event.preventDefault).toHaveBeenCalled();
    expect(early.page.__earlyLoader?.failed).toBe(true);
    expect(early.worker.terminated).toBe(true);
  });

  it('stops the worker when the scene has nothing to decode', async () => {
    const early = await bootWithWorker('http://viewer.test/embed/s%201', { _id: 's 1', name: 'Empty', models: [] });
    expect(early.worker.sent).toEqual([]);
    expect(early.worker.terminated).toBe(true);
    expect(early.page.__earlyLoader).toBeUndefined();
  });

  it('starts no worker for a cover (autoPlay off) nor on the dev server (no built URL)', async () => {
    await runEarlyPage('http://viewer.test/embed/s1?autoPlay=off', { workerUrl: WORKER_URL, Worker: FakeWorker });
    expect(FakeWorker.last).toBeNull();
    const dev = await runEarlyPage('http://viewer.test/embed/s1', { Worker: FakeWorker });
    expect(FakeWorker.last).toBeNull();
    expect(dev.requests).toEqual(['/v1/config']);
  });
});

describe("the boot script's tier probe", () => {
  const gl = { isContextLost: () => false };

  it("opens the detection's canvas size and attributes once the early downloads have started, and the app takes it", async () => {
    const early = await runEarlyPage('http://viewer.test/embed/s1', { getContext: () => gl });
    // Not before the downloads' chain has started them.
    expect(early.canvases).toEqual([]);
    // (A configuration that is no object ends the chain.)
    early.answer('/v1/config', null);
    await early.page.__earlyFetchesStarted;
    await Promise.resolve();
    expect(early.canvases).toEqual([
      { width: BENCHMARK_SIZE, height: BENCHMARK_SIZE, asked: [{ kind: 'webgl2', attributes: PROBE_ATTRIBUTES }], getContext: expect.any(Function) },
    ]);
    expect(early.page.__earlyProbe).toMatchObject({ gl, ms: expect.any(Number) });
    (globalThis as { __earlyProbe?: unknown }).__earlyProbe = early.page.__earlyProbe;
    expect(takeEarlyProbe()?.gl).toBe(gl);
  });

  it('opens none for the tiers parseQualityTier forces, nor for a cover, nor on other pages; one for anything else', async () => {
    const now = (run: () => void) => run();
    for (const value of ['low', ' HIGH ', 'Medium', 'auto', '', 'lowx', 'low medium', '\tlow\n']) {
      const early = await runEarlyPage(`http://viewer.test/edit/s1?quality=${encodeURIComponent(value)}`, { getContext: () => gl, setTimeout: now });
      expect(early.canvases.length, JSON.stringify(value)).toBe(parseQualityTier(value) === null ? 1 : 0);
    }
    for (const href of ['http://viewer.test/edit/s1?autoPlay=no', 'http://viewer.test/', 'http://viewer.test/embed/s1/x']) {
      expect((await runEarlyPage(href, { getContext: () => gl, setTimeout: now })).canvases, href).toEqual([]);
    }
  });

  it('opens none once the app has detected without it (null left behind)', async () => {
    const later: (() => void)[] = [];
    const early = await runEarlyPage('http://viewer.test/edit/s1', { getContext: () => gl, setTimeout: (run) => later.push(run) });
    early.page.__earlyProbe = null;
    later.forEach((run) => run());
    expect(early.canvases).toEqual([]);
  });
});

describe('earlyBoot (the module the script is compiled from)', () => {
  it('on a page that is no embed and no editor starts nothing', () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('location', new URL('http://viewer.test/'));
    vi.stubGlobal('fetch', fetchSpy);
    vi.stubGlobal('window', {});
    earlyBoot(WORKER_URL);
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(window).toEqual({});
  });

  it('on an embed starts the configuration with the JSON accept header', () => {
    const fetchSpy = vi.fn(() => new Promise<Response>(() => {}));
    vi.stubGlobal('location', new URL('http://viewer.test/embed/s1?autoPlay=0'));
    vi.stubGlobal('fetch', fetchSpy);
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', { querySelector: () => null });
    earlyBoot('');
    expect(fetchSpy.mock.calls).toEqual([['/v1/config', { headers: { Accept: 'application/json' } }]]);
    expect(Object.keys((window as unknown as { __earlyFetches: object }).__earlyFetches)).toEqual(['/v1/config']);
  });
});
