import { BoxGeometry, MeshStandardMaterial } from 'three';
import type { InstanceAsset } from '../engine/instances';
import { assetFromGltf } from './instance-asset-gltf';
import type { ClientConfig } from '../protocol/config';
import { FLOATS_PER_INSTANCE, unpackMatrices } from '../protocol/instances';
import type { SceneObject } from '../protocol/scene-objects';
import { decodeContainerInWorker, fetchInstanceSetInWorker } from './container-client';
import { fetchBinary, untilAborted } from './fetch';
import { assetFileAt, FIRST_PICTURE_INSTANCES, instanceSetAt } from './load-requests';
import type { ModelLoader } from './gltf';

/**
 * What instanced asset groups load (editor specification section 7, "Asset download"): each asset
 * from `{assetCdn}/assets/{assetId}/model.3dxa` (our container, decoded in the worker, parsed by
 * the models' GLTFLoader with the same decoders) once however many groups use it, and each group's
 * instances: inline `matrices` (the spec's short shape, ids 0..n-1) or the binary instance set from
 * the model service. An asset that cannot be loaded becomes the specification's red placeholder
 * cube (a 1 m cube, colour 0xff0000) at every instance.
 */

/** The placeholder's edge (m) and colour. */
export const PLACEHOLDER_SIZE = 1;
export const PLACEHOLDER_COLOR = 0xff0000;

export function assetUrl(config: ClientConfig, assetId: string): string {
  return assetFileAt(config.endpoints.assetCdn, assetId);
}

export function instanceSetUrl(config: ClientConfig, sceneId: string, groupId: string): string {
  return instanceSetAt(config.endpoints.modelService, sceneId, groupId);
}

/** The red placeholder cube standing in for asset `assetId`. */
export function placeholderAsset(assetId: string): InstanceAsset {
  const geometry = new BoxGeometry(PLACEHOLDER_SIZE, PLACEHOLDER_SIZE, PLACEHOLDER_SIZE);
  const material = new MeshStandardMaterial({ color: PLACEHOLDER_COLOR, roughness: 0.6 });
  material.name = 'Placeholder';
  const h = PLACEHOLDER_SIZE / 2;
  return { assetId, parts: [{ name: `${assetId} (placeholder)`, geometry, material }], box: new Float32Array([-h, -h, -h, h, h, h]), placeholder: true };
}


/** An asset as loaded: its parts, or the placeholder with the reason the asset could not be loaded. */
export interface LoadedAsset {
  asset: InstanceAsset;
  error: Error | null;
}

/** Assets by id, each downloaded once however many groups ask for it. */
export interface AssetCache {
  get(assetId: string): Promise<LoadedAsset>;
  /** Assets fetched so far (a test and the bench read it). */
  readonly downloads: number;
  dispose(): void;
}

export function createAssetCache(config: ClientConfig, loader: ModelLoader, options: { signal?: AbortSignal } = {}): AssetCache {
  const assets = new Map<string, Promise<LoadedAsset>>();
  let downloads = 0;
  const load = async (assetId: string): Promise<LoadedAsset> => {
    try {
      downloads++;
      const file = await fetchBinary(assetUrl(config, assetId), undefined, options.signal);
      const decoded = await decodeContainerInWorker(file);
      const gltf = await loader.parse(decoded.asset, decoded.format);
      return { asset: assetFromGltf(gltf, assetId), error: null };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      return { asset: placeholderAsset(assetId), error: error instanceof Error ? error : new Error(String(error)) };
    }
  };
  return {
    get(assetId) {
      let loading = assets.get(assetId);
      if (!loading) {
        loading = load(assetId);
        assets.set(assetId, loading);
      }
      return loading;
    },
    get downloads() {
      return downloads;
    },
    dispose() {
      for (const loading of assets.values()) {
        void loading.then(({ asset }) => {
          const parts = [...asset.parts, ...(asset.levels ?? []).flatMap((level) => level.parts)];
          if (asset.impostor) {
            parts.push({ name: 'impostor', geometry: asset.impostor.geometry, material: asset.impostor.material });
            (asset.impostor.material as MeshStandardMaterial).map?.dispose();
            (asset.impostor.material as MeshStandardMaterial).normalMap?.dispose();
          }
          for (const part of parts) {
            part.geometry.dispose();
            for (const m of Array.isArray(part.material) ? part.material : [part.material]) m.dispose();
          }
        }, () => undefined);
      }
      assets.clear();
    },
  };
}

/** A group's instances: ids in slot order and their matrices. */
export interface LoadedInstances {
  ids: Uint32Array;
  /** 16 floats (three.js order) per instance, or 12 as the binary set packs them (createInstanceGroup takes both). */
  matrices: Float32Array;
  nextId: number;
  revision: number;
}

/** The inline `matrices` of a short group (ids 0..n-1). */
export function inlineInstances(matrices: readonly (readonly number[])[], revision = 0): LoadedInstances {
  const n = matrices.length;
  const out = new Float32Array(n * 16);
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    out.set(matrices[i]!, i * 16);
    ids[i] = i;
  }
  return { ids, matrices: out, nextId: n, revision };
}

/** 12 floats per instance (the set's form) to 16 (three's), the constant row filled in. */
export function expandMatrices(packed: Float32Array): Float32Array {
  const n = packed.length / FLOATS_PER_INSTANCE;
  return unpackMatrices(packed, new Float32Array(n * 16), n);
}

/** A set whose download the embed started before the viewer asked (prefetchGroupInstances). */
interface Prefetched {
  loading: Promise<LoadedInstances>;
  /** Stops the download: on expiry, when the embed closes, when the load that took it aborts. */
  abort: AbortController;
  timer: ReturnType<typeof setTimeout>;
  /** Stops listening to the embed's signal (which lives as long as the page: it must not hold the set). */
  unlisten(): void;
}
/** Prefetched sets by URL, until taken. */
const prefetched = new Map<string, Prefetched>();
/** A prefetched set nobody takes within this long is stopped and let go (its memory with it). */
const PREFETCH_KEPT_MS = 60_000;

/**
 * Starts the downloads of the scene's instance sets in the loader worker before the viewer loads
 * the scene (the embed calls it as soon as the scene document is known, while the viewer still
 * sets up its WebGL context); fetchGroupInstances takes each once by its URL. `signal` (the
 * embed's) stops the ones not taken yet.
 */
export function prefetchGroupInstances(config: ClientConfig, sceneId: string, objects: readonly SceneObject[], signal?: AbortSignal): void {
  if (signal?.aborted) return;
  for (const object of objects) {
    if (object.type !== 'InstancedAssetGroup' || !object.assetId || object.matrices) continue;
    const url = instanceSetUrl(config, sceneId, object.uuid);
    if (prefetched.has(url)) continue;
    const abort = new AbortController();
    // A group that says it is large comes after the models (low priority); a small one may be
    // part of the first picture, which waits for it.
    const large = (object.instanceCount ?? Infinity) > FIRST_PICTURE_INSTANCES;
    const loading = downloadSet(url, abort.signal, large ? 'low' : undefined);
    loading.catch(() => undefined);
    const onAbort = () => drop(url, entry);
    const entry: Prefetched = {
      loading,
      abort,
      timer: setTimeout(onAbort, PREFETCH_KEPT_MS),
      unlisten: () => signal?.removeEventListener('abort', onAbort),
    };
    prefetched.set(url, entry);
    signal?.addEventListener('abort', onAbort, { once: true });
  }
}

export { FIRST_PICTURE_INSTANCES } from './load-requests';

/** Lets go of a prefetch entry's timer and listener (taken or dropped). */
function release(entry: Prefetched): void {
  clearTimeout(entry.timer);
  entry.unlisten();
}

/** Stops and forgets a prefetched set that nobody took. */
function drop(url: string, entry: Prefetched): void {
  if (prefetched.get(url) !== entry) return;
  prefetched.delete(url);
  release(entry);
  entry.abort.abort(new DOMException('The prefetched instance set was not needed.', 'AbortError'));
}

async function downloadSet(url: string, signal?: AbortSignal, priority?: RequestPriority): Promise<LoadedInstances> {
  const set = await fetchInstanceSetInWorker(url, signal, priority);
  // Packed: the group copies them into its buffer in one loop (no 16-float copy in between).
  return { ids: set.ids, matrices: set.matrices, nextId: set.nextId, revision: set.revision };
}

/**
 * A group's instances: its inline matrices when it carries them, none when it says it has none,
 * else the binary instance set from the model service (downloaded and decoded in the loader
 * worker; a prefetched one is taken).
 */
export async function fetchGroupInstances(config: ClientConfig, sceneId: string, object: SceneObject, signal?: AbortSignal): Promise<LoadedInstances> {
  if (object.matrices) return inlineInstances(object.matrices, object.instanceRevision ?? 0);
  // instanceCount is as of the group's last putObject (instance changes do not rewrite the scene):
  // the set is always asked for.
  const url = instanceSetUrl(config, sceneId, object.uuid);
  signal?.throwIfAborted();
  const early = prefetched.get(url);
  if (!early) return downloadSet(url, signal);
  // Taken: this load owns it now (its abort stops the download; nothing else holds the set).
  prefetched.delete(url);
  release(early);
  return signal ? untilAborted(early.loading, signal, () => early.abort.abort(signal.reason)) : early.loading;
}
