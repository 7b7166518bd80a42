import { ClientConfig } from '../protocol/config';
import { ModelDoc, SceneDoc } from '../protocol/scene';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import { loadModelFile } from './container-client';
import { earlyDownloadsStarted, fetchJson, takeEarlyFetch } from './fetch';
import { createServiceClient, path, ServiceError, type TokenGetter } from '../service/client';
import { pageToken } from '../service/token';
import type { ModelLoader } from './gltf';
import { spawnModel } from './model-entities';
import { configUrl, LOADABLE_FORMAT, MODEL_DOWNLOAD_CONCURRENCY, modelFileAt, sceneUrl } from './load-requests';

export { LOADABLE_FORMAT, MODEL_DOWNLOAD_CONCURRENCY } from './load-requests';

/** A performance mark for profiling loads (devtools and the load benchmark read them). */
export function mark(name: string): void {
  if (typeof performance !== 'undefined' && performance.mark) performance.mark(`viewer:${name}`);
}

/** The model file URL (modelFileAt); index.html's boot script builds it with the same function. */
export function modelFileUrl(config: ClientConfig, model: ModelDoc): string {
  return modelFileAt(config.endpoints.modelDerivativeCdn, model.latestVersionKey, model.derivativeQuery);
}

export async function fetchClientConfig(base = '', signal?: AbortSignal): Promise<ClientConfig> {
  const body = await fetchJson(configUrl(base), signal);
  const parsed = ClientConfig.safeParse(body);
  if (!parsed.success) throw new Error(`The viewer configuration is invalid: ${parsed.error.issues.map(describeIssue).join('; ')}`);
  return parsed.data;
}

/**
 * The scene document (GET /v1/scenes/{id}) through the model service's client. index.html's early
 * download (sent without a token: a public scene's) is taken when there is one; a private scene
 * refuses it (401, 403 or 404), and then, as without an early download, the document is asked for
 * with the page's token when it has one (`token`: the token generator's, else the sign-in's), so a
 * private scene opens for its owner and editors. A token the service refuses (401: expired,
 * revoked) does not keep a public scene from opening: it is asked for once more without.
 */
export async function fetchScene(config: ClientConfig, sceneId: string, signal?: AbortSignal, token: TokenGetter = pageToken): Promise<SceneDoc> {
  const service = createServiceClient({ baseUrl: config.endpoints.modelService, token });
  const scenePath = path`/v1/scenes/${sceneId}`;
  const read = { schema: SceneDoc, what: 'The scene document' };
  const early = await earlyAnswer(sceneUrl(config.endpoints.modelService, sceneId), signal);
  // A public scene's early answer is taken without asking for a token (a slow token generator of
  // the host page does not hold it up); the token is asked for only when it could change the answer.
  if (early && (early.ok || !REFUSED_WITHOUT_TOKEN.has(early.status))) return service.read(early, 'GET', scenePath, read);
  const hasToken = await Promise.resolve()
    .then(token)
    .then(Boolean, () => false);
  if (early && !hasToken) return service.read(early, 'GET', scenePath, read);
  if (early) await early.body?.cancel().catch(() => undefined);
  const ask = (auth: 'optional' | 'none') => service.request('GET', scenePath, { ...read, auth, headers: { Accept: 'application/json' }, signal });
  if (!hasToken) return ask('none');
  try {
    return await ask('optional');
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) return ask('none');
    throw error;
  }
}

/** What the model service answers a reader of a private scene who sent no token. */
const REFUSED_WITHOUT_TOKEN = new Set([401, 403, 404]);

/** index.html's early download of `url`, once its chain has started all it starts; null when it has none. */
async function earlyAnswer(url: string, signal?: AbortSignal): Promise<Response | null> {
  const now = takeEarlyFetch(url, signal);
  if (now) return now;
  const started = earlyDownloadsStarted(signal);
  if (!started) return null;
  await started;
  return takeEarlyFetch(url, signal);
}

function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  return issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

export type LoadStage = 'download' | 'decode' | 'parse' | 'build';

export interface LoadProgress {
  /** Bytes downloaded so far over all models, and the total where known. */
  loaded: number;
  total: number;
  /** Models finished (loaded or failed) out of those to load. */
  modelsDone: number;
  modelsTotal: number;
}

export interface ModelFailure {
  model: ModelDoc;
  error: Error;
}

export interface LoadSceneResult {
  loaded: ModelRecord[];
  failed: ModelFailure[];
  /** Models listed with another outputFormat, not loaded. */
  skipped: ModelDoc[];
  /** The instanced asset groups loaded after the first picture (src/viewer/instance-groups.ts), when the scene has any. */
  instanceGroups?: { loaded: number; failedAssets: string[]; failedGroups: string[] };
}

export interface LoadSceneOptions {
  loader: ModelLoader;
  /** Called with each model's root once its entities exist (add it to the scene here). */
  onModel: (record: ModelRecord) => void;
  onProgress?: (progress: LoadProgress) => void;
  onModelError?: (failure: ModelFailure) => void;
  signal?: AbortSignal;
  maxAssetBytes?: number;
  /** Downloads in flight at once. */
  concurrency?: number;
}

/**
 * Loads every 'glb' model of a scene: download with byte progress, container and image decode in
 * the loader worker -> GLTFLoader -> entities. A model that fails is reported and skipped; the others load.
 */
export async function loadSceneModels(world: ViewerWorld, config: ClientConfig, scene: SceneDoc, options: LoadSceneOptions): Promise<LoadSceneResult> {
  const toLoad = scene.models.filter((m) => m.outputFormat === LOADABLE_FORMAT);
  const skipped = scene.models.filter((m) => m.outputFormat !== LOADABLE_FORMAT);
  const result: LoadSceneResult = { loaded: [], failed: [], skipped };
  const loadedBytes = new Map<string, number>();
  const totalBytes = new Map<string, number>();
  let done = 0;
  const report = () => {
    let loaded = 0;
    let total = 0;
    for (const v of loadedBytes.values()) loaded += v;
    for (const v of totalBytes.values()) total += v;
    options.onProgress?.({ loaded, total, modelsDone: done, modelsTotal: toLoad.length });
  };
  report();

  const loadOne = async (model: ModelDoc): Promise<void> => {
    try {
      // Downloaded and decoded in the loader worker, the GLB's images with it.
      const decoded = await loadModelFile(modelFileUrl(config, model), {
        onProgress: (loaded, total) => {
          loadedBytes.set(model._id, loaded);
          totalBytes.set(model._id, total);
          report();
        },
        signal: options.signal,
        maxAssetBytes: options.maxAssetBytes,
        textureLimit: options.loader.textureLimit,
      });
      mark(`model:${model._id}:decoded`);
      if (options.signal?.aborted) {
        for (const image of decoded.images) image?.close();
        options.signal.throwIfAborted();
      }
      const gltf = await options.loader.parse(decoded.asset, decoded.format, decoded.images);
      mark(`model:${model._id}:parsed`);
      options.signal?.throwIfAborted();
      const record = spawnModel(world, gltf, { modelId: model._id, name: model.sourceFileName });
      mark(`model:${model._id}:spawned`);
      result.loaded.push(record);
      options.onModel(record);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failure = { model, error: error instanceof Error ? error : new Error(String(error)) };
      result.failed.push(failure);
      options.onModelError?.(failure);
    } finally {
      done++;
      report();
    }
  };

  const queue = [...toLoad];
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? MODEL_DOWNLOAD_CONCURRENCY, queue.length)) }, async () => {
    for (let model = queue.shift(); model; model = queue.shift()) await loadOne(model);
  });
  await Promise.all(workers);
  // Keep the scene's order, whatever order the downloads finished in.
  const order = new Map(toLoad.map((m, i) => [m._id, i]));
  result.loaded.sort((a, b) => (order.get(a.modelId) ?? 0) - (order.get(b.modelId) ?? 0));
  return result;
}
