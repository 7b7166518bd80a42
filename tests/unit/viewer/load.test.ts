import { BoxGeometry, Mesh, MeshStandardMaterial, Object3D, PerspectiveCamera, Scene, type Material, type WebGLRenderer } from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RenderContext } from '../../../src/engine/renderer';
import { createViewerWorld, type ModelRecord } from '../../../src/engine/world';
import type { ClientConfig } from '../../../src/protocol/config';
import { encodeInstanceSet } from '../../../src/protocol/instance-set';
import { placeholderAsset, type AssetCache } from '../../../src/scene/instance-assets';
import { defaultRenderConfig } from '../../../src/protocol/render-config';
import type { SceneDoc } from '../../../src/protocol/scene';
import { checkViewerConfig, FIRST_PICTURE_GROUPS_WAIT_MS, FIRST_PICTURE_INSTANCES, groupsFitFirstPicture, instancesInFirstPicture, loadScene, type LoadTarget } from '../../../src/viewer/load';

// The scene's models as a test gives them (no download, no decode); the real load otherwise.
const models = vi.hoisted(() => ({ records: null as null | (() => unknown[]) }));
vi.mock('../../../src/scene/load-scene', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/scene/load-scene')>();
  return {
    ...real,
    loadSceneModels: (...args: Parameters<typeof real.loadSceneModels>) => {
      if (!models.records) return real.loadSceneModels(...args);
      const loaded = models.records() as ModelRecord[];
      for (const record of loaded) args[3].onModel(record);
      return Promise.resolve({ loaded, failed: [], skipped: [] });
    },
  };
});

function scene(viewerConfig: SceneDoc['viewerConfig']): SceneDoc {
  return { _id: 's1', name: 'S', viewerConfig, models: [] };
}

describe('checkViewerConfig: the whole viewerConfig before any download', () => {
  it('an empty config gives the default render config, no settings and no environment', () => {
    const checked = checkViewerConfig(scene({}));
    expect(checked.renderConfig).toEqual(defaultRenderConfig());
    expect(checked.settings).toBeUndefined();
    expect(checked.environment).toBeNull();
  });

  it('keeps the settings as given (applied per present field) and names the environment to fetch', () => {
    const settings = { sunElevation: 30, environment: 'studio' };
    const checked = checkViewerConfig(scene({ scene: settings }));
    expect(checked.settings).toBe(settings);
    expect(checked.environment).toBe('studio');
  });

  it('parses the saved post-processing over the defaults', () => {
    const checked = checkViewerConfig(scene({ postprocessing: { bloom: { enabled: true } } }));
    expect(checked.renderConfig.bloom.enabled).toBe(true);
    expect(checked.renderConfig.smaa).toEqual(defaultRenderConfig().smaa);
  });

  it('an invalid post-processing field throws with its path', () => {
    expect(() => checkViewerConfig(scene({ postprocessing: { multisampling: 'lots' } }))).toThrow(
      /^The scene's post-processing settings are invalid: multisampling: /,
    );
  });

  it('invalid scene settings throw with every field and reason, before anything is loaded', () => {
    let message = '';
    try {
      checkViewerConfig(scene({ scene: { sunElevation: 120, fogEnabled: 'yes' } }));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^The scene settings are not valid: /);
    expect(message).toContain('sunElevation');
    expect(message).toContain('fogEnabled');
  });
});

describe('instancesInFirstPicture: small scenes of groups are drawn in the first picture, large ones after it', () => {
  it('counts every group, inline matrices by their length', () => {
    expect(instancesInFirstPicture([])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: 11_872 }, { matrices: [[1]] as never }])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: FIRST_PICTURE_INSTANCES }])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: FIRST_PICTURE_INSTANCES - 1 }, { instanceCount: 2 }])).toBe(false);
    expect(instancesInFirstPicture([{ instanceCount: 1_000_000 }])).toBe(false);
  });

  it('a group that does not say how many it holds may hold a million: after the first picture', () => {
    expect(instancesInFirstPicture([{ instanceCount: 3 }, {}])).toBe(false);
  });
});


describe('loadScene: the order of a scene of groups (no WebGL: a renderer that records)', () => {
  /** A promise the test lets through when it chooses (a download or the effects arriving). */
  function gate(): { passed: Promise<void>; open(): void } {
    let open!: () => void;
    const passed = new Promise<void>((resolve) => (open = resolve));
    return { passed, open };
  }

  function target(options: { onEvent: (event: string) => void; assetArrives?: Promise<void>; effectsReady?: Promise<void>; linked?: Promise<void> }) {
    const world = createViewerWorld();
    const scene = new Scene();
    const camera = new PerspectiveCamera();
    const renderer = {
      // A model's material (named) has a program whose first use waits for its link.
      properties: { get: (material: Material) => (material.name ? { currentProgram: { getUniforms: () => event(`link ${material.name}`) } } : {}) },
      shadowMap: { enabled: false },
      getRenderTarget: () => null,
      setRenderTarget: () => undefined,
      // As with KHR_parallel_shader_compile: a model's compile resolves once linked (`linked`).
      compileAsync: (object: Object3D) => {
        event(object.name ? `compile ${object.name}` : 'compile');
        return object.name ? (options.linked ?? Promise.resolve()).then(() => object) : Promise.resolve(object);
      },
    } as unknown as WebGLRenderer;
    const asset = placeholderAsset('crate');
    const assets: AssetCache = { get: async () => (await options.assetArrives, { asset, error: null }), downloads: 0, dispose: () => undefined };
    const event = (name: string) => options.onEvent(`${name} (hold ${world.render.hold}, groups ${world.instanceGroups.size})`);
    const loadTarget: LoadTarget = {
      world,
      context: { renderer, scene, camera, environmentReady: () => Promise.resolve() } as unknown as RenderContext,
      loader: { parse: vi.fn(), dispose: vi.fn() },
      settings: { world, context: { renderer, scene, camera } as never },
      useRenderConfig: () => event('render config'),
      sceneTarget: () => null,
      effectsReady: async () => (await options.effectsReady, event('effects ready')),
      frame: async () => event('frame'),
      step: () => event('step'),
      preparePicking: () => undefined,
      nextFrame: async () => event('next frame'),
      assets,
      release: () => event('release'),
    };
    return { world, loadTarget };
  }

  const group = (uuid: string, extra: object) => ({ uuid, type: 'InstancedAssetGroup', name: uuid, parent: null, position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1], visible: true, castShadow: false, assetId: 'crate', ...extra });
  const config = { endpoints: { modelService: 'http://ms.test', assetCdn: 'http://cdn.test', modelDerivativeCdn: 'http://cdn.test' } } as unknown as ClientConfig;
  const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  /** A loaded model of one box whose mesh and material are named `name`. */
  const modelRecord = (name: string): ModelRecord => {
    const root = new Object3D();
    root.add(Object.assign(new Mesh(new BoxGeometry(), new MeshStandardMaterial({ name })), { name }));
    return { eid: 0, modelId: name, name, root, nodes: new Map(), nodeIds: new Map(), primitives: new Map(), materials: new Map(), materialIds: new Map(), textures: new Map(), animations: [], mixer: null, animated: new Uint32Array(0), entities: new Uint32Array(0), syncPose: false } as unknown as ModelRecord;
  };
  /**
   * fetch answers a model's mutation log as empty and every other request with the instance set
   * `set`, once `arrives` (if given) has passed.
   */
  const serveSet = (set: Uint8Array, arrives?: Promise<void>): void => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (String(url).includes('/mutations') ? Response.json({ modelId: 'm', mutations: [], lastSeq: 0 }) : (await arrives, new Response(set.slice(), { status: 200 })))),
    );
  };
  /** fetch never answers; a request's abort rejects it. */
  const fetchUntilAborted = (): void => {
    vi.stubGlobal('fetch', vi.fn((_url: string, init?: RequestInit) => new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))));
  };
  afterEach(() => vi.unstubAllGlobals());

  it('a small scene of groups is made while the load holds the picture, framed on them, and never released early', async () => {
    const events: string[] = [];
    const { world, loadTarget } = target({ onEvent: (e) => events.push(e) });
    const doc = scene({ objects: [group('g1', { matrices: [identity, identity] })] } as never);
    const result = await loadScene(loadTarget, config, doc);
    expect(result.instanceGroups).toEqual({ loaded: 1, failedAssets: [], failedGroups: [] });
    expect(world.render.hold).toBe(0);
    expect(events).not.toContainEqual(expect.stringMatching(/^release/));
    // Framed on the groups with the hold still on: the first picture is the one with them.
    expect(events).toContain('frame (hold 1, groups 1)');
    expect(events[0]).toMatch(/^render config/);
  });

  it('a large one lets the first picture out first, then makes the groups in one held frame', async () => {
    const events: string[] = [];
    const { world, loadTarget } = target({ onEvent: (e) => events.push(e) });
    const set = encodeInstanceSet({ ids: new Uint32Array([0, 1]), matrices: new Float32Array(24), nextId: 2, revision: 1 });
    serveSet(set);
    const doc = scene({ objects: [group('big', { instanceCount: FIRST_PICTURE_INSTANCES + 1 })] } as never);
    const result = await loadScene(loadTarget, config, doc);
    expect(result.instanceGroups?.loaded).toBe(1);
    const release = events.findIndex((e) => e.startsWith('release'));
    expect(events[release]).toBe('release (hold 0, groups 0)');
    expect(events.slice(release)).toContain('frame (hold 1, groups 1)');
    expect(world.render.hold).toBe(0);
  });

  it('groups whose documents say they are few but whose set is large follow the first picture', async () => {
    const events: string[] = [];
    const { loadTarget } = target({ onEvent: (e) => events.push(e) });
    const n = FIRST_PICTURE_INSTANCES + 1;
    const set = encodeInstanceSet({ ids: Uint32Array.from({ length: n }, (_, i) => i), matrices: new Float32Array(n * 12), nextId: n, revision: 1 });
    serveSet(set);
    // Placed by the editor (instanceCount 0), then filled by instance changes.
    const doc = scene({ objects: [group('stale', { instanceCount: 0 })] } as never);
    await loadScene(loadTarget, config, doc);
    expect(events).toContainEqual('release (hold 0, groups 0)');
  });

  it('a set that does not arrive in time never holds the first picture back (the wait is bounded)', async () => {
    const never = new Map([['g', new Promise<never>(() => undefined)]]) as never;
    // The download never ends: only the limit can answer.
    expect(await groupsFitFirstPicture([{ instanceCount: 3 }], never, undefined, 50)).toBe(false);
    // An abort ends the wait at once, whatever the limit.
    const abort = new AbortController();
    const waiting = groupsFitFirstPicture([{ instanceCount: 3 }], never, abort.signal, Infinity);
    abort.abort(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
  });

  it('a scene of groups alone waits for them: it has nothing to show before them', async () => {
    const events: string[] = [];
    const { loadTarget } = target({ onEvent: (e) => events.push(e) });
    const abort = new AbortController();
    fetchUntilAborted();
    const loading = loadScene(loadTarget, config, scene({ objects: [group('slow', { instanceCount: 3 })] } as never), { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, FIRST_PICTURE_GROUPS_WAIT_MS + 300));
    expect(events).not.toContainEqual(expect.stringMatching(/^release/));
    abort.abort(new Error('closed'));
    await expect(loading).rejects.toThrow('closed');
  });

  it('a small set downloaded in time is part of the first picture', async () => {
    const events: string[] = [];
    const { world, loadTarget } = target({ onEvent: (e) => events.push(e) });
    const set = encodeInstanceSet({ ids: new Uint32Array([0, 1, 2]), matrices: new Float32Array(36), nextId: 3, revision: 7 });
    serveSet(set);
    const result = await loadScene(loadTarget, config, scene({ objects: [group('shelves', { instanceCount: 3 })] } as never));
    expect(result.instanceGroups?.loaded).toBe(1);
    // Prepared as the set arrived, then taken over by the group, with the set's revision.
    const made = [...world.instanceGroups.values()][0]!;
    expect([made.count, made.nextId, made.revision]).toEqual([3, 3, 7]);
    expect(made.attribute.array.length).toBeGreaterThanOrEqual(3 * 16);
    expect(events).not.toContainEqual(expect.stringMatching(/^release/));
    expect(events).toContain('frame (hold 1, groups 1)');
  });

  it('the early group programs compile for the settled lights and the effects\' target: after the held frame and the effects', async () => {
    const events: string[] = [];
    const effects = gate();
    const { loadTarget } = target({ onEvent: (e) => events.push(e), effectsReady: effects.passed });
    const set = encodeInstanceSet({ ids: new Uint32Array([0]), matrices: new Float32Array(12), nextId: 1, revision: 1 });
    serveSet(set);
    const loading = loadScene(loadTarget, config, scene({ objects: [group('shelves', { instanceCount: 1 })] } as never));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The asset and the set are in; the effects are not: nothing compiles yet.
    expect(events.filter((e) => e.startsWith('compile'))).toEqual([]);
    effects.open();
    await loading;
    const first = (name: string) => events.findIndex((e) => e.startsWith(name));
    expect(first('compile')).toBeGreaterThan(first('step'));
    expect(first('compile')).toBeGreaterThan(first('effects ready'));
  });

  it('a load that fails before its groups\' asset arrives compiles nothing for it afterwards', async () => {
    const events: string[] = [];
    const asset = gate();
    const { loadTarget } = target({ onEvent: (e) => events.push(e), assetArrives: asset.passed });
    const abort = new AbortController();
    fetchUntilAborted();
    const loading = loadScene(loadTarget, config, scene({ objects: [group('slow', { instanceCount: 3 })] } as never), { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort(new Error('closed'));
    await expect(loading).rejects.toThrow('closed');
    asset.open();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events.filter((e) => e.startsWith('compile'))).toEqual([]);
  });

  it('the programs of groups that may be in the first picture compile while their sets still download; a large scene\'s after the first picture', async () => {
    const set = encodeInstanceSet({ ids: new Uint32Array([0, 1, 2]), matrices: new Float32Array(36), nextId: 3, revision: 1 });
    for (const [count, early] of [[3, true], [FIRST_PICTURE_INSTANCES + 1, false]] as const) {
      const events: string[] = [];
      const { loadTarget } = target({ onEvent: (e) => events.push(e) });
      const setArrives = gate();
      serveSet(set, setArrives.passed);
      const loading = loadScene(loadTarget, config, scene({ objects: [group('shelves', { instanceCount: count })] } as never));
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The asset is in, the set is not: a small scene's programs are compiling, the picture held.
      if (early) expect(events.filter((e) => /^(compile|release)/.test(e))).toEqual(['compile (hold 1, groups 0)']);
      setArrives.open();
      expect((await loading).instanceGroups?.loaded).toBe(1);
      const compiled = events.findIndex((e) => e.startsWith('compile'));
      const released = events.findIndex((e) => e.startsWith('release'));
      expect(compiled).toBeGreaterThanOrEqual(0);
      if (!early) expect(compiled).toBeGreaterThan(released);
    }
  });

  it('models and a few groups: every model program is issued at once, the groups are made, then the links are waited for, all before the picture', async () => {
    const events: string[] = [];
    const linked = gate();
    const { loadTarget } = target({ onEvent: (e) => events.push(e), linked: linked.passed });
    models.records = () => [modelRecord('floor'), modelRecord('walls')];
    const set = encodeInstanceSet({ ids: new Uint32Array([0, 1, 2]), matrices: new Float32Array(36), nextId: 3, revision: 1 });
    serveSet(set);
    try {
      const doc = { ...scene({ objects: [group('shelves', { instanceCount: 3 })] } as never), models: ['floor', 'walls'].map((_id) => ({ _id, outputFormat: 'glb' })) } as SceneDoc;
      const loading = loadScene(loadTarget, config, doc);
      // The walls' program is asked for while the floor's still links: they link side by side.
      await vi.waitFor(() => expect(events).toContain('compile walls (hold 1, groups 0)'));
      expect(events).toContain('compile floor (hold 1, groups 0)');
      const modelLinks = () => events.filter((e) => /^link (floor|walls)/.test(e));
      expect(modelLinks()).toEqual([]);
      linked.open();
      const result = await loading;
      expect(result.instanceGroups?.loaded).toBe(1);
      // The group was made before the links were waited for, and the picture held throughout.
      expect(modelLinks()).toEqual(['link floor (hold 1, groups 1)', 'link walls (hold 1, groups 1)']);
    } finally {
      models.records = null;
    }
  });

  it('a set that comes after the groups\' wait but before the models\' links still joins the first picture', async () => {
    const events: string[] = [];
    const linked = gate();
    const setArrives = gate();
    const { loadTarget } = target({ onEvent: (e) => events.push(e), linked: linked.passed });
    models.records = () => [modelRecord('floor')];
    const set = encodeInstanceSet({ ids: new Uint32Array([0, 1, 2]), matrices: new Float32Array(36), nextId: 3, revision: 1 });
    serveSet(set, setArrives.passed);
    try {
      const doc = { ...scene({ objects: [group('shelves', { instanceCount: 3 })] } as never), models: [{ _id: 'floor', outputFormat: 'glb' }] } as SceneDoc;
      const loading = loadScene(loadTarget, config, doc);
      // Past the groups' wait, the models still linking: then the set, then the links.
      await new Promise((resolve) => setTimeout(resolve, FIRST_PICTURE_GROUPS_WAIT_MS + 100));
      setArrives.open();
      await new Promise((resolve) => setTimeout(resolve, 20));
      linked.open();
      expect((await loading).instanceGroups?.loaded).toBe(1);
      // One picture: the models' was never released before the group was made.
      expect(events).not.toContainEqual(expect.stringMatching(/^release/));
      expect(events.filter((e) => e.startsWith('link floor'))).toEqual(['link floor (hold 1, groups 0)']);
    } finally {
      models.records = null;
    }
  });

  it('a set with an id twice is that group’s failure, with a notice: the other groups and the scene still load', async () => {
    const events: string[] = [];
    const notices: string[] = [];
    const { world, loadTarget } = target({ onEvent: (e) => events.push(e) });
    const set = encodeInstanceSet({ ids: new Uint32Array([4, 4]), matrices: new Float32Array(24), nextId: 5, revision: 1 });
    serveSet(set);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const doc = scene({ objects: [group('twice', { instanceCount: 2 }), group('fine', { matrices: [identity] })] } as never);
      const result = await loadScene(loadTarget, config, doc, { onNotice: (text) => notices.push(text) });
      expect(result.instanceGroups).toEqual({ loaded: 1, failedAssets: [], failedGroups: ['twice'] });
      expect(notices).toEqual(['The instances of "twice" could not be loaded: Instance id 4 appears twice in group twice.']);
      expect([...world.instanceGroups.values()].map((g) => g.uuid)).toEqual(['fine']);
      expect(logged).toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });
});
