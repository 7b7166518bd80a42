/**
 * What the scene's load asks for, and how much at once: the URLs of the configuration, the scene
 * document, the model files, their saved edits and the groups' assets and instance sets, and the
 * numbers of the first downloads. index.html's boot script (src/viewer/early-boot.ts, compiled into
 * the page) starts the first of them from these same functions, so this module imports nothing:
 * the compiled script stays small.
 */

/** An endpoint's address without its trailing slashes. */
export function trimBase(address: string): string {
  return address.replace(/\/+$/, '');
}

/** The client configuration, from this page's server (`base`: another origin's, or none). */
export function configUrl(base = ''): string {
  return `${base}/v1/config`;
}

/** GET {modelService}/v1/scenes/{sceneId}: the scene document. */
export function sceneUrl(modelService: string, sceneId: string): string {
  return `${trimBase(modelService)}/v1/scenes/${encodeURIComponent(sceneId)}`;
}

/** One page of a model's saved edits: GET {modelService}/v1/models/{modelId}/mutations?after=SEQ&limit=N. */
export function mutationLogUrl(modelService: string, modelId: string, after: number, limit: number): string {
  return `${trimBase(modelService)}/v1/models/${encodeURIComponent(modelId)}/mutations?after=${after}&limit=${limit}`;
}

/**
 * A model file: {model-derivative CDN}/{latestVersionKey}/model_file.binz, with the model's signed
 * query when the scene document gives one (`derivativeQuery`: a model only private scenes list;
 * src/server/auth/derivative-urls.ts).
 */
export function modelFileAt(derivativeCdn: string, versionKey: string, derivativeQuery?: string): string {
  const url = `${trimBase(derivativeCdn)}/${versionKey}/model_file.binz`;
  return derivativeQuery ? `${url}?${derivativeQuery}` : url;
}

/** An instanced asset group's asset: {assetCdn}/assets/{assetId}/model.3dxa. */
export function assetFileAt(assetCdn: string, assetId: string): string {
  return `${trimBase(assetCdn)}/assets/${encodeURIComponent(assetId)}/model.3dxa`;
}

/** A group's instance set: GET {modelService}/v1/scenes/{sceneId}/groups/{groupId}/instances. */
export function instanceSetAt(modelService: string, sceneId: string, groupId: string): string {
  return `${trimBase(modelService)}/v1/scenes/${encodeURIComponent(sceneId)}/groups/${encodeURIComponent(groupId)}/instances`;
}

/** The only model output format the viewer loads (viewer specification section 5). */
export const LOADABLE_FORMAT = 'glb';

/** Models downloaded at once (index.html starts the first this many before the app runs). */
export const MODEL_DOWNLOAD_CONCURRENCY = 3;

/** Mutations asked for per page of the log. */
export const MUTATION_LOG_PAGE = 1000;

/** index.html's loader-worker request ids start here, far above the ones container-client.ts gives. */
export const EARLY_REQUEST_IDS = 1_000_000_000;

/**
 * At most this many instances in all are part of the models' first picture (src/viewer/load.ts
 * groupsFitFirstPicture); sets of groups that say they hold more are fetched at low priority.
 */
export const FIRST_PICTURE_INSTANCES = 50_000;
