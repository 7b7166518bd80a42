import type { Material, Mesh, Object3D, WebGLRenderer, WebGLRenderTarget } from 'three';
import type { RenderContext } from '../engine/renderer';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import { describeRenderConfigError, RenderConfig, defaultRenderConfig } from '../protocol/render-config';
import type { SceneDoc } from '../protocol/scene';
import { SceneSettings, type EnvironmentRef } from '../protocol/scene-settings';
import { loadEnvironment, resolveEnvironment, type LoadedEnvironment } from '../scene/environments';
import { applyMutations, fetchMutationLog } from '../scene/apply-mutations';
import { fetchUploadedImages, registerUploadedImages, type fetchUploadedImage } from '../scene/uploaded-textures';
import type { ModelLoader } from '../scene/gltf';
import { LOADABLE_FORMAT, loadSceneModels, mark, type LoadProgress, type LoadSceneResult, type ModelFailure } from '../scene/load-scene';
import { attachAnimationEvents } from './animation';
import { applySceneSettings, type SceneSettingsHost } from './scene-settings';
import { areaLightTables, sceneObjectsOf } from './scene-objects';
import type { AssetCache } from '../scene/instance-assets';
import { awaitLinks, compileGroupPrograms, groupRoots, loadInstanceGroups, startInstanceGroupDownloads, type CompiledGroupPrograms, type InstanceGroupDownloads } from './instance-groups';
import type { SceneObject } from '../protocol/scene-objects';
import { FIRST_PICTURE_INSTANCES, type LoadedAsset, type LoadedInstances } from '../scene/instance-assets';
import { buildPendingBounds } from '../engine/instances';
import { requestModelBatches } from '../engine/model-batches';
import { deferShadows, shadowMapsDrawn } from '../engine/shadow-reveal';
import { yieldToMain } from '../engine/yield';

export interface LoadCallbacks {
  onProgress?: (p: LoadProgress) => void;
  onModelError?: (f: ModelFailure) => void;
  /** Something the viewer should tell but that does not fail the scene (saved edits or an environment that could not be loaded). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
}

/** What the load needs of the viewer it loads into. */
export interface LoadTarget {
  world: ViewerWorld;
  context: RenderContext;
  loader: ModelLoader;
  /** Where the scene settings are applied (the viewer: world, context, camera controls). */
  settings: SceneSettingsHost;
  /** The saved render config: applied to the post-processing stack (or kept while it is off). */
  useRenderConfig(config: RenderConfig): void;
  /** The buffer the scene is drawn into (materials compile for it), null for the screen. */
  sceneTarget(): WebGLRenderTarget | null;
  /** Resolves when the post-processing stack the tier wants is in place (its code loads on demand). */
  effectsReady(): Promise<void>;
  /** Frames the loaded models (the first picture's view). */
  frame(): Promise<void>;
  /** Runs one frame of the pipeline now (nothing is drawn while the load holds the picture). */
  step(): void;
  /** Starts the picking trees once the first picture is out. */
  preparePicking(roots: Object3D[]): void;
  nextFrame(): Promise<void>;
  /** The viewer's instanced assets: each downloaded once however many groups use it. */
  assets?: AssetCache;
  /** Lets the first picture out (the viewer's initial hold) before the instanced asset groups load. */
  release?(): void;
}

/** A scene's viewerConfig, checked as a whole. */
export interface CheckedViewerConfig {
  renderConfig: RenderConfig;
  /** The scene settings as given (applied per present field), or undefined. */
  settings: unknown;
  environment: Exclude<EnvironmentRef, null> | null;
}

/**
 * Checks the whole viewerConfig before anything is downloaded: the saved render config and the
 * scene settings. Anything invalid throws with the field and the reason (the scene fails like any
 * configuration error, before it costs a download).
 */
export function checkViewerConfig(scene: SceneDoc): CheckedViewerConfig {
  const config = scene.viewerConfig ?? {};
  let renderConfig = defaultRenderConfig();
  if (config.postprocessing !== undefined) {
    const parsed = RenderConfig.safeParse(config.postprocessing);
    if (!parsed.success) throw new Error(`The scene's post-processing settings are invalid: ${describeRenderConfigError(parsed.error)}`);
    renderConfig = parsed.data;
  }
  const settings = config.scene;
  const parsed = SceneSettings.safeParse(settings ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; ');
    throw new Error(`The scene settings are not valid: ${problems}.`);
  }
  return { renderConfig, settings, environment: parsed.data.environment ?? null };
}

/**
 * The load of a scene, the one orchestration of it:
 *
 * 1. the whole viewerConfig is checked before any download (checkViewerConfig);
 * 2. in parallel: the models (download, worker decode, parse, entities; src/scene), each model's
 *    saved edits, and the scene's environment; each model's textures go to the GPU as soon as the
 *    model is built;
 * 3. the saved edits are applied, the models framed, the scene settings applied (an initial
 *    camera overrides the framing), the shadow budget settled with one frame of the pipeline, and
 *    the materials' programs compiled for the lights and target they will be drawn with (all
 *    issued at once; a small scene's groups are made while they link, then the links awaited);
 * 4. only then is the picture released: the first picture is the finished one.
 */
export async function loadScene(target: LoadTarget, config: ClientConfig, scene: SceneDoc, callbacks: LoadCallbacks = {}): Promise<LoadSceneResult> {
  const { world, context } = target;
  const checked = checkViewerConfig(scene);
  // Applied before the scene settings, so that a tone mapping the scene settings set afterwards
  // wins over the config's.
  target.useRenderConfig(checked.renderConfig);
  world.render.hold++;
  // The first picture goes out before any shadow map is drawn; the shadows fade in after it.
  deferShadows(world);
  let result: LoadSceneResult;
  const groupObjects = (scene.viewerConfig?.objects ?? []).filter((o) => o.type === 'InstancedAssetGroup');
  let groupDownloads: InstanceGroupDownloads | undefined;
  let groupsFirst = false;
  let groupPrograms: ReturnType<typeof compileGroupProgramsOnArrival> | undefined;
  try {
    // Instanced asset groups' assets and sets download from the start, alongside the models.
    groupDownloads = groupObjects.length > 0 && target.assets ? startInstanceGroupDownloads(config, scene._id, groupObjects, target.assets, callbacks.signal) : undefined;
    const environment = checked.environment ? startEnvironment(context.renderer, checked.environment) : null;
    const logs = new Map<string, Promise<SavedEdits>>();
    for (const model of scene.models) {
      if (model.outputFormat === LOADABLE_FORMAT) logs.set(model._id, fetchSavedEdits(config, model._id, callbacks.signal));
    }
    const uploads: Promise<void>[] = [];
    result = await loadSceneModels(world, config, scene, {
      loader: target.loader,
      onModel: (record) => {
        attachAnimationEvents(world, record);
        context.scene.add(record.root);
        uploads.push(uploadTextures(context, record));
      },
      onProgress: callbacks.onProgress,
      onModelError: callbacks.onModelError,
      signal: callbacks.signal,
    });
    // The saved edits of each model, before framing: a reload shows every saved edit.
    for (const record of result.loaded) applySavedEdits(world, record, await logs.get(record.modelId)!, callbacks);
    // The lights, cameras and groups the editor added (viewerConfig.objects), as entities.
    const objects = scene.viewerConfig?.objects;
    if (objects && objects.length > 0) {
      sceneObjectsOf(world, context.scene).putAll(objects);
      // A rect area light is drawn with tables fetched on demand: the first picture waits for them.
      await areaLightTables()?.catch((error: Error) => callbacks.onNotice?.(error.message));
    }
    // Models of many parts: their static meshes drawn by one batch per material, made in the frame
    // below (after the saved edits, with every matrix current), before the programs compile.
    for (const record of result.loaded) requestModelBatches(world, record.eid);
    if (result.loaded.length > 0) {
      await target.frame();
      mark('framed');
    }
    // The default studio (fetched since the viewer started, on the low tier) before the scene
    // settings, which keep it to go back to, and before the programs compile for it.
    await context.environmentReady().catch((error: Error) => callbacks.onNotice?.(`The studio environment could not be loaded (${error.message}): the scene is lit by its lights alone.`));
    if (checked.settings !== undefined) {
      await applySceneSettings(target.settings, checked.settings, {
        onWarning: (message) => callbacks.onNotice?.(message),
        ...(environment ? { loadEnvironment: () => environment } : {}),
      });
      mark('settings');
    } else {
      environment?.then((e) => e.dispose(), () => undefined);
    }
    // The lights as they will be drawn: the shadow budget and the sun's box settle in one frame
    // (held: nothing is drawn), so the programs compiled next are the ones the picture uses.
    target.step();
    await Promise.all([...uploads, target.effectsReady()]);
    // The programs of groups that may be in the first picture (their documents say they are few)
    // start compiling now, with the models' below: the GPU process links both at once, where the
    // groups' alone would wait for the models'. Should their sets turn out large or slow, the
    // models' links shared the GPU process with theirs (A/B: a clear gain for the small scenes
    // they are meant for). A large scene of groups starts its own after the models' links.
    if (groupDownloads && target.assets && instancesInFirstPicture(groupObjects)) groupPrograms = compileGroupProgramsOnArrival(context, groupObjects, target.assets, target.sceneTarget());
    // The models' programs are all issued now, and their links waited for only after the groups
    // are made: that is main-thread work while the GPU process links. Before, each compile was
    // awaited in turn and the groups were made after the links (A/B, 8 pairs twice, the demo
    // warehouse `?quality=low`: viewerready 1466 -> 1394 and 1443 -> 1368 ms median).
    const modelLinks = result.loaded.length > 0 ? await issuePrograms(context, result.loaded, target.sceneTarget()) : null;
    // A small scene of groups (a warehouse's shelves) whose downloads are in, or nearly: in the
    // first picture. Two pictures (the models', then the groups') would cost a whole frame more
    // before the viewer is ready. A large or slow one never waits to be in the models' picture.
    // A scene of groups alone has nothing to show before them: no time limit then.
    groupsFirst = !!groupDownloads && (await groupsFitFirstPicture(groupObjects, groupDownloads, callbacks.signal, result.loaded.length > 0 ? FIRST_PICTURE_GROUPS_WAIT_MS : Infinity));
    if (modelLinks && groupDownloads && !groupsFirst && instancesInFirstPicture(groupObjects)) {
      // The picture waits for the models' links anyway (seconds on a slow device): groups whose
      // downloads are in by then still join it.
      await modelLinks();
      groupsFirst = await groupsFitFirstPicture(groupObjects, groupDownloads, callbacks.signal, 0);
    }
    if (groupObjects.length > 0 && target.assets && groupsFirst) {
      // Handed over: loadGroups lets them go, whatever happens.
      const programs = groupPrograms;
      groupPrograms = undefined;
      await loadGroups(target, config, scene, groupObjects, groupDownloads, result, hasInitialCamera(checked.settings), callbacks, true, programs);
    }
    if (modelLinks) {
      await modelLinks();
      // The models' programs linked (and a small scene's groups made, while they linked).
      mark('compiled');
    }
  } catch (error) {
    // A load that failed before it handed the groups' early programs over lets them go (an asset
    // that arrives later is not compiled any more).
    groupPrograms?.dispose();
    throw error;
  } finally {
    world.render.hold--;
    world.render.needsRender = true;
  }
  if (result.loaded.length > 0) {
    // Picking trees in the background once the first frame is out (a pick before then uses
    // three's plain raycast for that mesh); a hidden tab that draws no frame starts them anyway.
    const roots = result.loaded.map((record) => record.root);
    // A viewer disposed before that frame rejects it: nothing to prepare then.
    void Promise.race([target.nextFrame(), new Promise((resolve) => setTimeout(resolve, 1000))]).then(
      () => target.preparePicking(roots),
      () => undefined,
    );
  }
  if (groupObjects.length > 0 && target.assets && !groupsFirst) {
    // A large scene of groups: the models' picture first, so the groups never delay it; the load
    // (and the viewer's ready) waits for them.
    // Their programs start compiling now (unless they started with the models'), as each asset
    // arrives: they link while the sets download.
    const programs = groupPrograms ?? compileGroupProgramsOnArrival(context, groupObjects, target.assets, target.sceneTarget());
    target.release?.();
    await Promise.race([target.nextFrame(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await loadGroups(target, config, scene, groupObjects, groupDownloads, result, hasInitialCamera(checked.settings), callbacks, false, programs);
  }
  if ((result.instanceGroups?.loaded ?? 0) > 0) {
    target.preparePicking(groupRoots(world));
    // The groups' bounds indexes in idle time once the first picture is out (a pick before builds on demand).
    // A viewer disposed before that frame rejects it: no indexes to build then.
    void target.nextFrame().then(
      () => buildPendingBounds(world, callbacks.signal),
      () => undefined,
    );
  }
  world.render.needsRender = true;
  return result;
}

export { FIRST_PICTURE_INSTANCES } from '../scene/instance-assets';

/**
 * How long the held first picture waits for the groups' downloads after the models' programs are
 * issued (or until their links are done, if that is later).
 */
export const FIRST_PICTURE_GROUPS_WAIT_MS = 1000;

/**
 * Whether the scene's groups may say they are few enough to be part of the first picture. The
 * documents' counts are a hint only (a group's `instanceCount` is as of its last putObject:
 * instance changes do not rewrite it), so this only rules out the groups that say they are many;
 * groupsFitFirstPicture counts what was downloaded.
 */
export function instancesInFirstPicture(objects: readonly Pick<SceneObject, 'matrices' | 'instanceCount'>[]): boolean {
  let total = 0;
  for (const o of objects) {
    const count = o.matrices ? o.matrices.length : o.instanceCount;
    // A group that does not say how many it holds may hold a million.
    if (count === undefined) return false;
    total += count;
  }
  return total <= FIRST_PICTURE_INSTANCES;
}

/**
 * Whether the groups go into the first picture: their documents do not say they are many, all
 * their downloads are in within `waitMs` (FIRST_PICTURE_GROUPS_WAIT_MS after the models' programs
 * are issued, and the load asks once more, with no wait, once their links are done if that came
 * later; Infinity for a scene of groups alone, which has nothing to show before them), and what was
 * downloaded holds at most FIRST_PICTURE_INSTANCES instances. Otherwise the models' picture goes
 * out first.
 */
export async function groupsFitFirstPicture(objects: readonly Pick<SceneObject, 'matrices' | 'instanceCount'>[], downloads: InstanceGroupDownloads, signal?: AbortSignal, waitMs = FIRST_PICTURE_GROUPS_WAIT_MS): Promise<boolean> {
  if (!instancesInFirstPicture(objects)) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const waits: Promise<readonly [unknown, LoadedInstances | Error][] | null>[] = [Promise.all(downloads.values()).catch(() => null)];
  if (Number.isFinite(waitMs)) waits.push(new Promise((resolve) => (timer = setTimeout(() => resolve(null), waitMs))));
  if (signal) waits.push(new Promise((resolve) => signal.addEventListener('abort', (onAbort = () => resolve(null)), { once: true })));
  try {
    signal?.throwIfAborted();
    const all = await Promise.race(waits);
    signal?.throwIfAborted();
    if (!all) return false;
    let total = 0;
    for (const [, instances] of all) if (!(instances instanceof Error)) total += instances.ids.length;
    return total <= FIRST_PICTURE_INSTANCES;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Loads the scene's instanced asset groups (src/viewer/instance-groups.ts) with their programs
 * compiled as each asset arrives (the lights are settled by now: they link while the instance sets
 * download, not in the first frame that draws them). `held`: the load already holds the picture;
 * otherwise nothing is drawn from the first group made until all are made and framed, so that one
 * frame draws them.
 */
async function loadGroups(
  target: LoadTarget,
  config: ClientConfig,
  scene: SceneDoc,
  groupObjects: SceneObject[],
  downloads: InstanceGroupDownloads | undefined,
  result: LoadSceneResult,
  initialCamera: boolean,
  callbacks: LoadCallbacks,
  held: boolean,
  programs = compileGroupProgramsOnArrival(target.context, groupObjects, target.assets!, target.sceneTarget()),
): Promise<void> {
  const { world, context } = target;
  let holding = false;
  try {
    const loaded = await loadInstanceGroups(world, context.scene, config, scene._id, groupObjects, target.assets!, {
      onNotice: callbacks.onNotice,
      signal: callbacks.signal,
      downloads,
      assetReady: (asset) => programs.ready(asset),
      beforeCreate: () => {
        if (held) return;
        world.render.hold++;
        holding = true;
        // A scene of groups alone showed nothing before them: their picture is its first, and its
        // shadows (a pass over every instance) follow it. Where models were shown with their
        // shadows, the groups' picture keeps them.
        if (result.loaded.length === 0) deferShadows(world);
      },
    });
    result.instanceGroups = { loaded: loaded.groups.length, failedAssets: loaded.failedAssets, failedGroups: loaded.failedGroups };
    // A scene of groups alone is framed on them (unless its settings placed the camera).
    if (result.loaded.length === 0 && loaded.groups.length > 0 && !initialCamera) await target.frame();
  } finally {
    if (holding) world.render.hold--;
    world.render.needsRender = true;
    // The stand-in shadow materials hold their programs until the groups' own have taken them: the
    // depth programs at the first shadow pass, which may come after the first picture.
    // A disposed viewer rejects the frame: the stand-ins go at once then.
    void target
      .nextFrame()
      .then(() => shadowMapsDrawn(world))
      .then(
        () => programs.dispose(),
        () => programs.dispose(),
      );
  }
}

/**
 * Compiles each asset's group programs (src/viewer/instance-groups.ts compileGroupPrograms) as soon
 * as the asset has loaded, once per asset; `ready(asset)` resolves when that asset's are (a failure
 * is only a warning: the first frame then compiles them itself).
 */
function compileGroupProgramsOnArrival(
  context: RenderContext,
  objects: readonly { uuid: string; assetId?: string | null; castShadow?: boolean }[],
  assets: AssetCache,
  sceneTarget: WebGLRenderTarget | null,
): { ready(loaded: LoadedAsset): Promise<void>; dispose(): void } {
  const castShadow = new Map<string, boolean>();
  for (const o of objects) if (o.assetId) castShadow.set(o.assetId, (castShadow.get(o.assetId) ?? false) || (o.castShadow ?? true));
  const compiled = new Map<LoadedAsset['asset'], CompiledGroupPrograms | null>();
  const ready = new Map<LoadedAsset['asset'], Promise<void>>();
  let disposed = false;
  const compile = (loaded: LoadedAsset): Promise<void> => {
    // Let go (a failed or replaced load): an asset that arrives now is compiled by nobody.
    if (disposed) return Promise.resolve();
    let waiting = ready.get(loaded.asset);
    if (!waiting) {
      let programs: CompiledGroupPrograms | null = null;
      try {
        programs = compileGroupPrograms({ renderer: context.renderer, camera: context.camera, scene: context.scene, sceneTarget }, loaded.asset, castShadow.get(loaded.asset.assetId) ?? true);
      } catch (error) {
        console.warn('Shader precompilation failed:', error);
      }
      compiled.set(loaded.asset, programs);
      waiting = programs ? programs.ready.catch((error: unknown) => console.warn('Shader precompilation failed:', error)) : Promise.resolve();
      ready.set(loaded.asset, waiting);
    }
    return waiting;
  };
  for (const assetId of castShadow.keys()) void assets.get(assetId).then(compile, () => undefined);
  return {
    ready: compile,
    dispose() {
      disposed = true;
      for (const programs of compiled.values()) programs?.dispose();
      compiled.clear();
    },
  };
}

function hasInitialCamera(settings: unknown): boolean {
  return !!settings && typeof settings === 'object' && (settings as { initialCameraPosition?: unknown }).initialCameraPosition != null;
}

/** The environment's download and prefiltering, started at once; a failure surfaces where it is applied. */
function startEnvironment(renderer: WebGLRenderer, ref: Exclude<EnvironmentRef, null>): Promise<LoadedEnvironment> {
  const loading = (async () => loadEnvironment(renderer, await resolveEnvironment(ref)))();
  loading.catch(() => undefined);
  return loading;
}

type SavedEdits = { log: unknown[]; images: Map<string, Awaited<ReturnType<typeof fetchUploadedImage>> | Error> } | { error: unknown };

/** The model's saved log and the uploaded textures it names, fetched while the model downloads. */
async function fetchSavedEdits(config: ClientConfig, modelId: string, signal?: AbortSignal): Promise<SavedEdits> {
  try {
    const log = await fetchMutationLog(config.endpoints.modelService, modelId, { signal });
    return { log, images: await fetchUploadedImages(config.endpoints.modelService, modelId, log, { signal }) };
  } catch (error) {
    return { error };
  }
}

/** How many problems of one model's log a notice lists before "and N more". */
const MAX_LISTED_PROBLEMS = 3;

/**
 * Applies a loaded model's saved mutation log. A log that could not be fetched or edits that cannot
 * be applied are a notice: the model stays loaded as it is.
 */
function applySavedEdits(world: ViewerWorld, record: ModelRecord, edits: SavedEdits, callbacks: LoadCallbacks): void {
  if ('error' in edits) {
    if (callbacks.signal?.aborted) throw edits.error;
    const reason = edits.error instanceof Error ? edits.error.message : String(edits.error);
    console.error(`The saved edits of model ${record.modelId} (${record.name}) could not be loaded:`, edits.error);
    callbacks.onNotice?.(`The saved edits of "${record.name}" could not be loaded, so it is shown as originally uploaded: ${reason}`);
    return;
  }
  if (edits.log.length === 0) return;
  // The uploaded textures first (the pre-pass), so that the log's maps find them.
  const textureProblems = registerUploadedImages(record, edits.images);
  const failed = [...edits.images.keys()].filter((id) => !record.textures.has(id));
  const applied = applyMutations(world, record, edits.log).problems.filter((p) => !failed.some((id) => p.includes(`the uploaded texture '${id}' is not loaded`)));
  const problems = [...textureProblems, ...applied];
  if (problems.length === 0) return;
  console.warn(`Saved edits of model ${record.modelId} (${record.name}) that could not be applied:`, problems);
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join(' ');
  const more = problems.length > MAX_LISTED_PROBLEMS ? ` (and ${problems.length - MAX_LISTED_PROBLEMS} more)` : '';
  callbacks.onNotice?.(`Some saved edits of "${record.name}" could not be applied: ${listed}${more}`);
}

/**
 * Sends a model's textures to the GPU, one per task, as soon as the model is built (while other
 * models still download): WebGL uploads are synchronous, and uploading at the first frame would
 * make it one long task.
 */
async function uploadTextures(context: RenderContext, record: ModelRecord): Promise<void> {
  for (const texture of record.textures.values()) {
    await yieldToMain();
    context.renderer.initTexture(texture);
  }
}

/**
 * Compiles the loaded materials before the first frame for the lights and target they will be
 * drawn with, one per task, and resolves with the wait for their links (one wait, however often it
 * is called): each program's link status read in a task of its own (without
 * KHR_parallel_shader_compile the first use of a program waits for its link). Left to the first
 * frame, the demo warehouse's floor and walls took 4 to 6 s to link in about half the loads on
 * SwiftShader (the GPU process busy on two threads; bench/LOAD-PROFILE.md, 2026-11-28); checked
 * here, never: A/B of 6 pairs, `?quality=low`,
 * viewerready 4573 -> 2009 ms median, GPU process 6.2 -> 1.6 s of CPU. All are issued before any
 * is waited for: compileAsync resolves when its program is linked where the browser can tell,
 * and one after the other those links would not overlap.
 */
async function issuePrograms(context: RenderContext, records: ModelRecord[], sceneTarget: WebGLRenderTarget | null): Promise<() => Promise<void>> {
  const byMaterial = new Map<Material, Object3D>();
  for (const record of records) {
    record.root.traverse((o) => {
      const material = (o as Mesh).material;
      if (!material) return;
      for (const m of Array.isArray(material) ? material : [material]) if (!byMaterial.has(m)) byMaterial.set(m, o);
    });
  }
  // Precompiling is an optimisation: a shader that fails reports its error when drawn.
  const failed = (error: unknown) => console.warn('Shader precompilation failed:', error);
  const compiles: Promise<unknown>[] = [];
  for (const object of byMaterial.values()) {
    try {
      compiles.push(compileFor(context, object, sceneTarget).catch(failed));
    } catch (error) {
      failed(error);
    }
    await yieldToMain();
  }
  let linked: Promise<void> | undefined;
  const link = async () => {
    await Promise.all(compiles);
    try {
      await awaitLinks(context.renderer, [...byMaterial.keys()]);
    } catch (error) {
      // As above: a program that fails to link reports its error when drawn.
      console.warn('Shader link check failed:', error);
    }
  };
  return () => (linked ??= link());
}

/**
 * Compiles an object's materials for the target the scene is drawn into: with post-processing that
 * is the composer's linear HDR buffer, not the screen, and three.js compiles a different program
 * for each (output colour space, tone mapping). compileAsync picks its programs synchronously.
 */
function compileFor(context: RenderContext, object: Object3D, target: WebGLRenderTarget | null): Promise<unknown> {
  const renderer = context.renderer;
  if (!target) return renderer.compileAsync(object, context.camera, context.scene);
  const previous = renderer.getRenderTarget();
  renderer.setRenderTarget(target);
  try {
    return renderer.compileAsync(object, context.camera, context.scene);
  } finally {
    renderer.setRenderTarget(previous);
  }
}
