import { BoxGeometry, Group, Matrix4, Mesh, MeshBasicMaterial } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INSTANCE_SET_MIME, packMatrix } from '../../../src/protocol/instances';
import { encodeInstanceSet } from '../../../src/protocol/instance-set';
import type { ClientConfig } from '../../../src/protocol/config';
import { assetUrl, createAssetCache, expandMatrices, fetchGroupInstances, inlineInstances, instanceSetUrl, PLACEHOLDER_COLOR, placeholderAsset, prefetchGroupInstances } from '../../../src/scene/instance-assets';
import { assetFromGltf } from '../../../src/scene/instance-asset-gltf';
import type { ModelLoader } from '../../../src/scene/gltf';

const config = { endpoints: { assetCdn: 'https://cdn.test/', modelService: 'https://ms.test' } } as unknown as ClientConfig;

afterEach(() => vi.unstubAllGlobals());

describe('instance assets', () => {
  it('names the asset and instance set URLs', () => {
    expect(assetUrl(config, 'crate-1')).toBe('https://cdn.test/assets/crate-1/model.3dxa');
    expect(instanceSetUrl(config, 's1', 'g1')).toBe('https://ms.test/v1/scenes/s1/groups/g1/instances');
  });

  it('makes the red placeholder cube', () => {
    const asset = placeholderAsset('lost');
    expect(asset.placeholder).toBe(true);
    expect((asset.parts[0]!.material as MeshBasicMaterial).color.getHex()).toBe(PLACEHOLDER_COLOR);
    expect([...asset.box]).toEqual([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]);
  });

  it('bakes each mesh node transform into its part, and bounds the asset', () => {
    const root = new Group();
    const a = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    a.position.set(0, 2, 0);
    root.add(a);
    root.add(new Mesh(new BoxGeometry(2, 2, 2), new MeshBasicMaterial()));
    const asset = assetFromGltf({ scene: root } as unknown as GLTF, 'lamp');
    expect(asset.parts).toHaveLength(2);
    expect(asset.parts[0]!.geometry).not.toBe(a.geometry); // a moved copy
    expect([...asset.box]).toEqual([-1, -1, -1, 1, 2.5, 1]);
    expect(() => assetFromGltf({ scene: new Group() } as unknown as GLTF, 'empty')).toThrow('The asset has no mesh to draw.');
  });

  it('expands 12-float matrices to three.js 4x4s', () => {
    const m = new Matrix4().makeRotationY(0.3).setPosition(1, 2, 3);
    const packed = new Float32Array(24);
    packMatrix(m.elements, packed, 1);
    const out = expandMatrices(packed);
    expect(out).toHaveLength(32);
    expect([...out.subarray(16)].map((v) => Math.round(v * 1e5) / 1e5)).toEqual(m.elements.map((v) => Math.round(v * 1e5) / 1e5));
  });

  it('takes inline matrices as ids 0..n-1', async () => {
    const group = { uuid: 'g', type: 'InstancedAssetGroup', matrices: [new Matrix4().elements, new Matrix4().makeTranslation(5, 0, 0).elements] } as never;
    const loaded = await fetchGroupInstances(config, 's', group);
    expect([...loaded.ids]).toEqual([0, 1]);
    expect(loaded.matrices[16 + 12]).toBe(5);
    expect(loaded.nextId).toBe(2);
    expect(inlineInstances([]).ids).toHaveLength(0);
  });

  it('downloads each asset once however many groups ask, and gives the placeholder with the reason when it fails', async () => {
    const fetchMock = vi.fn(async () => new Response('nope', { status: 404, statusText: 'Not Found' }));
    vi.stubGlobal('fetch', fetchMock);
    const loader: ModelLoader = { parse: vi.fn(), dispose: vi.fn() };
    const cache = createAssetCache(config, loader);
    const [a, b] = await Promise.all([cache.get('gone'), cache.get('gone')]);
    expect(a).toBe(b);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(a.asset.placeholder).toBe(true);
    expect(a.error!.message).toContain('404');
  });

  it('takes a prefetched instance set once by its URL; the next load downloads it again', async () => {
    const set = encodeInstanceSet({ ids: new Uint32Array([4, 9]), matrices: new Float32Array(24).fill(1), nextId: 10, revision: 3 });
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) => {
      expect(new Headers(init?.headers).get('Accept')).toBe(INSTANCE_SET_MIME);
      return new Response(set.slice(), { status: 200 });
    });
    vi.stubGlobal('fetch', fetchMock);
    const group = { uuid: 'g1', type: 'InstancedAssetGroup', assetId: 'tree' } as never;
    const inline = { uuid: 'g2', type: 'InstancedAssetGroup', assetId: 'tree', matrices: [new Matrix4().elements] } as never;
    // Node has no Worker: the loader worker's download runs on this thread, the same way.
    prefetchGroupInstances(config, 's1', [group, inline, group]);
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1)); // the inline group needs none, the same group one
    expect(fetchMock.mock.calls[0]![0]).toBe('https://ms.test/v1/scenes/s1/groups/g1/instances');
    const loaded = await fetchGroupInstances(config, 's1', group);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect([...loaded.ids]).toEqual([4, 9]);
    expect(loaded.nextId).toBe(10);
    expect(loaded.revision).toBe(3);
    await fetchGroupInstances(config, 's1', group);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('a taken prefetch is stopped by the load\'s abort; a failed one gives the status', async () => {
    const signals: AbortSignal[] = [];
    vi.stubGlobal('fetch', vi.fn((_url: string, init?: RequestInit) => {
      signals.push(init!.signal!);
      return new Promise<Response>(() => undefined);
    }));
    const group = { uuid: 'slow', type: 'InstancedAssetGroup', assetId: 'tree' } as never;
    prefetchGroupInstances(config, 's1', [group]);
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    const abort = new AbortController();
    const pending = fetchGroupInstances(config, 's1', group, abort.signal);
    abort.abort(new Error('left the scene'));
    await expect(pending).rejects.toThrow('left the scene');
    // The download itself stops: nobody else holds the set.
    expect(signals[0]!.aborted).toBe(true);

    vi.stubGlobal('fetch', vi.fn(async () => new Response('gone', { status: 404, statusText: 'Not Found' })));
    const gone = { uuid: 'gone', type: 'InstancedAssetGroup', assetId: 'tree' } as never;
    prefetchGroupInstances(config, 's1', [gone]);
    await expect(fetchGroupInstances(config, 's1', gone)).rejects.toThrow('https://ms.test/v1/scenes/s1/groups/gone/instances answered 404 Not Found.');
  });

  it('prefetches the load never takes are stopped: when the embed closes, and after a minute', async () => {
    const signals = new Map<string, AbortSignal>();
    vi.stubGlobal('fetch', vi.fn((url: string, init?: RequestInit) => {
      signals.set(url, init!.signal!);
      return new Promise<Response>(() => undefined);
    }));
    const closing = new AbortController();
    prefetchGroupInstances(config, 's2', [{ uuid: 'a', type: 'InstancedAssetGroup', assetId: 'tree' } as never], closing.signal);
    await vi.waitFor(() => expect(signals.size).toBe(1));
    closing.abort();
    expect(signals.get('https://ms.test/v1/scenes/s2/groups/a/instances')!.aborted).toBe(true);

    vi.useFakeTimers();
    try {
      prefetchGroupInstances(config, 's2', [{ uuid: 'b', type: 'InstancedAssetGroup', assetId: 'tree' } as never]);
      await vi.waitFor(() => expect(signals.size).toBe(2));
      const b = signals.get('https://ms.test/v1/scenes/s2/groups/b/instances')!;
      vi.advanceTimersByTime(59_000);
      expect(b.aborted).toBe(false);
      vi.advanceTimersByTime(2_000);
      expect(b.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a taken prefetch leaves nothing on the embed\'s signal (which lives as long as the page)', async () => {
    const set = encodeInstanceSet({ ids: new Uint32Array([1]), matrices: new Float32Array(12), nextId: 2, revision: 0 });
    vi.stubGlobal('fetch', vi.fn(async () => new Response(set.slice(), { status: 200 })));
    const embed = new AbortController();
    const added: unknown[] = [];
    const removed: unknown[] = [];
    const add = embed.signal.addEventListener.bind(embed.signal);
    const remove = embed.signal.removeEventListener.bind(embed.signal);
    embed.signal.addEventListener = ((type: string, listener: () => void, options?: unknown) => {
      added.push(listener);
      add(type as 'abort', listener, options as AddEventListenerOptions);
    }) as typeof embed.signal.addEventListener;
    embed.signal.removeEventListener = ((type: string, listener: () => void) => {
      removed.push(listener);
      remove(type as 'abort', listener);
    }) as typeof embed.signal.removeEventListener;
    const group = { uuid: 'kept', type: 'InstancedAssetGroup', assetId: 'tree', instanceCount: 1 } as never;
    prefetchGroupInstances(config, 's3', [group], embed.signal);
    expect(added).toHaveLength(1);
    await fetchGroupInstances(config, 's3', group);
    expect(removed).toEqual(added);
  });
});

