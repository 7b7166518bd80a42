import { autoPlayOf, EMBED_PATH } from '../protocol/embed-query';
import { INSTANCE_SET_MIME } from '../protocol/instances';
import type { EarlyLoader } from '../scene/container-client';
import type { DecodeReply, InstanceSetRequest, ModelRequest } from '../scene/container-worker';
import {
  assetFileAt,
  configUrl,
  EARLY_REQUEST_IDS,
  FIRST_PICTURE_INSTANCES,
  instanceSetAt,
  LOADABLE_FORMAT,
  MODEL_DOWNLOAD_CONCURRENCY,
  modelFileAt,
  MUTATION_LOG_PAGE,
  mutationLogUrl,
  sceneUrl,
} from '../scene/load-requests';
import { BENCHMARK_SIZE, parseQualityTier, PROBE_ATTRIBUTES, tierTextureLimit } from './quality-tier';

/**
 * index.html's boot script: compiled by scripts/early-boot.ts into a classic inline script of the
 * page, which runs it before the app's code has loaded. It imports only small pure modules (their
 * functions and numbers are the app's own: one source for both), and only types of the rest.
 *
 * The embedded viewer's first downloads start here: the configuration and the scene document,
 * then (unless autoPlay is off) its models and their saved edits. The app takes each response once
 * by its URL (takeEarlyFetch in src/scene/fetch.ts) and checks it as it checks its own; anything it
 * does not find here it fetches itself. Then the tier probe's WebGL context (earlyProbe).
 */
export function earlyBoot(loaderWorkerUrl: string): void {
  earlyDownloads(loaderWorkerUrl);
  earlyProbe();
}

/** What the boot leaves on the page's global object for the app. */
interface EarlyPage {
  __earlyFetches?: Record<string, Promise<Response>>;
  /** Settles once every early download has been started (or the chain failed): earlyOrFetch in src/scene/fetch.ts. */
  __earlyFetchesStarted?: Promise<void>;
  __earlyLoader?: EarlyLoader;
  /** undefined: not opened yet; null: the app detected its tier (takeEarlyProbe in src/viewer/quality.ts). */
  __earlyProbe?: { canvas: HTMLCanvasElement; gl: WebGL2RenderingContext; ms: number } | null;
}

type Json = Record<string, unknown>;

const page = (): EarlyPage => window as unknown as EarlyPage;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

function earlyDownloads(loaderWorkerUrl: string): void {
  const match = EMBED_PATH.exec(location.pathname);
  if (!match || typeof fetch !== 'function') return;
  const early: Record<string, Promise<Response>> = (page().__earlyFetches = {});
  const start = (url: string, init?: RequestInit): Promise<Response> => {
    const response = fetch(url, init);
    response.catch(() => {});
    early[url] = response;
    return response;
  };
  const json = (response: Promise<Response>): Promise<Json> =>
    response.then((r) => {
      if (!r.ok) throw new Error(String(r.status));
      return r.clone().json() as Promise<Json>;
    });
  const accept: RequestInit = { headers: { Accept: 'application/json' } };
  const autoPlay = autoPlayOf(location.search);
  // The loader worker (src/scene/container-worker.ts), started before anything else: it takes
  // about a second to start on a busy weak device, and it decodes every model and downloads every
  // instance set. The app adopts it with its requests and replies (src/scene/container-client.ts).
  // A built page only: in dev the URL is empty and the app starts the worker itself.
  const loader = autoPlay && loaderWorkerUrl && typeof Worker === 'function' ? startLoader(loaderWorkerUrl) : null;
  // The scene document is asked for at once, beside the configuration, when the server that sent
  // this page says where the model service is (src/server/index-page.ts); else one round trip
  // later, once the configuration says it. Its body is read at once: the app may take the response
  // as soon as it knows the URL. Should the configuration name another address, the early one is
  // dropped and the document asked for there.
  const hint = document.querySelector('meta[name="model-service"]');
  let hintedUrl: string | null = null;
  try {
    if (hint) hintedUrl = sceneUrl(String(hint.getAttribute('content') || ''), decodeURIComponent(match[1]));
  } catch {
    // A scene id that is no URI component: the chain below fails the same way.
  }
  const hinted = hintedUrl ? start(hintedUrl, accept) : null;
  const hintedJson = hinted ? json(hinted) : null;
  if (hintedJson) hintedJson.catch(() => {});
  page().__earlyFetchesStarted = json(start(configUrl(), accept))
    .then((config) => {
      const endpoints = config.endpoints as Json;
      const service = String(endpoints.modelService);
      const scene = sceneUrl(service, decodeURIComponent(match[1]));
      let sceneJson = hintedJson;
      if (scene !== hintedUrl) {
        // (The app asks by the configuration's URL, so it cannot have taken this one.)
        if (hinted) delete early[hintedUrl!];
        if (hinted && new URL(scene, location.href).href === new URL(hintedUrl!, location.href).href) early[scene] = hinted;
        else sceneJson = json(start(scene, accept));
      }
      return sceneJson!.then((doc) => {
        if (autoPlay && Array.isArray(doc.models))
          startScene(doc, service, String(endpoints.modelDerivativeCdn), String(endpoints.assetCdn), start, accept, loader);
      });
    })
    .catch(() => {});
}

/** The loader worker at `url`, or null when the browser refuses it (the app decodes on its own, and the downloads still start). */
function startLoader(url: string): EarlyLoader | null {
  let worker: Worker;
  try {
    worker = new Worker(url, { type: 'module' });
  } catch {
    return null;
  }
  const loader: EarlyLoader = { worker, ids: {}, replies: {}, failed: false };
  worker.onmessage = (event: MessageEvent) => {
    // Progress replies are for the app, which asks later; the final reply is kept.
    const data = event.data as (DecodeReply & { progress?: unknown }) | null;
    if (data && typeof data.id === 'number' && !data.progress) loader.replies[data.id] = data;
  };
  const fail = (event: Event) => {
    if (event && event.preventDefault) event.preventDefault();
    loader.failed = true;
    worker.terminate();
  };
  worker.onerror = fail;
  worker.onmessageerror = fail;
  page().__earlyLoader = loader;
  return loader;
}

/** The scene document's first models, their saved edits, and its groups' assets and instance sets. */
function startScene(
  doc: Json,
  service: string,
  cdn: string,
  assetCdn: string,
  start: (url: string, init?: RequestInit) => Promise<Response>,
  accept: RequestInit,
  loader: EarlyLoader | null,
): void {
  // The models the app loads (src/scene/load-scene.ts); the first ones, as many as it downloads at
  // once: more would share the bandwidth and delay the first model.
  const models = (doc.models as unknown[]).filter(
    (model): model is Json => isObject(model) && model.outputFormat === LOADABLE_FORMAT && typeof model.latestVersionKey === 'string',
  );
  // With the loader worker, each is downloaded and decoded there, its images too: they are ready
  // when the app takes them (loadModelFile in src/scene/container-client.ts). The images are decoded
  // at the viewer's texture limit: a forced tier's is sent here; a detected tier's comes from the
  // app once it knows it (setEarlyTextureLimit).
  let nextId = EARLY_REQUEST_IDS;
  const tier = parseQualityTier(new URLSearchParams(location.search).get('quality'));
  const textureLimit = tier ? tierTextureLimit(tier) : undefined;
  for (const model of models.slice(0, MODEL_DOWNLOAD_CONCURRENCY)) {
    // Its saved edits' first page (fetchMutationLog in src/scene/apply-mutations.ts), which the
    // first picture waits for as it waits for the model.
    if (typeof model._id === 'string') start(mutationLogUrl(service, model._id, 0, MUTATION_LOG_PAGE), accept);
    // A private scene's model carries its signed query (modelFileUrl in src/scene/load-scene.ts).
    const file = modelFileAt(cdn, model.latestVersionKey as string, typeof model.derivativeQuery === 'string' ? model.derivativeQuery : undefined);
    if (!loader) {
      start(file);
      continue;
    }
    const url = new URL(file, location.href).href;
    loader.ids[url] = nextId;
    const request: ModelRequest = { id: nextId++, kind: 'model', url, images: true, textureLimit };
    loader.worker.postMessage(request);
  }
  // Instanced asset groups' assets (src/scene/instance-assets.ts), each once. Their instance sets
  // are downloaded by the loader worker (prefetchGroupInstances): a response read here would wait
  // for every task of the main thread.
  const config = doc.viewerConfig;
  const listed = isObject(config) ? config.objects : undefined;
  const objects = Array.isArray(listed) ? (listed as unknown[]) : [];
  const assets: Record<string, true> = {};
  const sets: Json[] = [];
  let decodes = models.length > 0;
  for (const object of objects) {
    if (!isObject(object) || object.type !== 'InstancedAssetGroup' || typeof object.assetId !== 'string' || !object.assetId) continue;
    decodes = true;
    if (!object.matrices && typeof object.uuid === 'string' && typeof doc._id === 'string') sets.push(object);
    if (assets[object.assetId]) continue;
    assets[object.assetId] = true;
    start(assetFileAt(assetCdn, object.assetId));
  }
  // A scene with nothing to decode (no model, no group) needs no loader worker.
  if (!loader) return;
  if (!decodes) {
    if (!loader.adopted) {
      loader.worker.terminate();
      page().__earlyLoader = undefined;
    }
    return;
  }
  // The groups' instance sets, downloaded and decoded by the loader worker. The request ids are
  // above the app's own. A large group's set comes after the models.
  for (const object of sets) {
    const url = new URL(instanceSetAt(service, doc._id as string, object.uuid as string), location.href).href;
    const id = nextId++;
    loader.ids[url] = id;
    const large = !(typeof object.instanceCount === 'number' && object.instanceCount <= FIRST_PICTURE_INSTANCES);
    const request: InstanceSetRequest = { id, kind: 'instance-set', url, accept: INSTANCE_SET_MIME, priority: large ? 'low' : undefined };
    loader.worker.postMessage(request);
  }
}

/**
 * The page's first WebGL context opens the channel to the browser's GPU process, which takes tens
 * to hundreds of milliseconds; opened here while the app's code downloads, once the downloads
 * above have started, it is off the way to the first picture. The app's tier detection takes it as
 * its probe (takeEarlyProbe in src/viewer/quality.ts: the same size and attributes). Not opened for
 * a cover (autoPlay off: the viewer may never start), nor for a tier the page forces (?quality=low,
 * medium or high: nothing is detected, and the context, lost unused, cost the main thread 70 ms or
 * more just before the app's code ran; A/B, 32 pairs, the demo warehouse `?quality=low`:
 * viewerready about 50 ms sooner), nor once the app has detected without it.
 */
function earlyProbe(): void {
  if (!/^\/(embed|edit)\/[^/]+\/?$/.test(location.pathname)) return;
  if (!autoPlayOf(location.search)) return;
  if (parseQualityTier(new URLSearchParams(location.search).get('quality'))) return;
  const open = () => {
    if (page().__earlyProbe !== undefined) return;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = BENCHMARK_SIZE;
    try {
      const begun = performance.now();
      const gl = canvas.getContext('webgl2', PROBE_ATTRIBUTES);
      if (gl) page().__earlyProbe = { canvas, gl, ms: performance.now() - begun };
    } catch {
      // No probe: the app opens its own.
    }
  };
  const started = page().__earlyFetchesStarted;
  if (started) started.then(open, open);
  else setTimeout(open, 0);
}
