import type { Material, Mesh, Object3D, Texture, WebGLRenderTarget } from 'three';
import type { RenderContext } from '../engine/renderer';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import { describeRenderConfigError, RenderConfig, defaultRenderConfig } from '../protocol/render-config';
import type { SceneDoc } from '../protocol/scene';
import { applyMutations, fetchMutationLog } from '../scene/apply-mutations';
import type { ModelLoader } from '../scene/gltf';
import { loadSceneModels, mark, type LoadProgress, type LoadSceneResult, type ModelFailure } from '../scene/load-scene';
import { attachAnimationEvents } from './animation';

export interface LoadCallbacks {
  onProgress?: (p: LoadProgress) => void;
  onModelError?: (f: ModelFailure) => void;
  /** Something the viewer should tell but that does not fail the scene (e.g. saved edits that could not be loaded). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
}

/** What the load needs of the viewer it loads into. */
export interface LoadTarget {
  world: ViewerWorld;
  context: RenderContext;
  loader: ModelLoader;
  /** The saved render config: applied to the post-processing stack (or kept while it is off). */
  useRenderConfig(config: RenderConfig): void;
  /** The buffer the scene is drawn into (materials compile for it), null for the screen. */
  sceneTarget(): WebGLRenderTarget | null;
  /** Frames the loaded models (the first picture's view). */
  frame(): Promise<void>;
  /** Starts the picking trees once the first picture is out. */
  preparePicking(roots: Object3D[]): void;
  nextFrame(): Promise<void>;
}

/**
 * The load of a scene's models: the saved render config checked before any download (an invalid one
 * fails the scene like any configuration error), the models downloaded and built (src/scene), the
 * saved edits of each applied, and nothing drawn until the models are framed and their textures and
 * shaders are ready, so the first picture is the finished one.
 */
export async function loadModels(target: LoadTarget, config: ClientConfig, scene: SceneDoc, callbacks: LoadCallbacks = {}): Promise<LoadSceneResult> {
  const { world, context } = target;
  // Applied before the scene settings, so that a tone mapping the scene settings set afterwards
  // wins over the config's.
  const saved = scene.viewerConfig?.postprocessing;
  if (saved !== undefined) {
    const parsed = RenderConfig.safeParse(saved);
    if (!parsed.success) throw new Error(`The scene's post-processing settings are invalid: ${describeRenderConfigError(parsed.error)}`);
    target.useRenderConfig(parsed.data);
  } else {
    target.useRenderConfig(defaultRenderConfig());
  }
  world.render.hold++;
  let result: LoadSceneResult;
  try {
    result = await loadSceneModels(world, config, scene, {
      loader: target.loader,
      onModel: (record) => {
        attachAnimationEvents(world, record);
        context.scene.add(record.root);
      },
      onProgress: callbacks.onProgress,
      onModelError: callbacks.onModelError,
      signal: callbacks.signal,
    });
    // The saved edits of each model, before framing: a reload shows every saved edit.
    await Promise.all(result.loaded.map((record) => applySavedEdits(world, config, record, callbacks)));
    if (result.loaded.length > 0) {
      await target.frame();
      mark('framed');
      await warmUp(context, result.loaded, target.sceneTarget());
      mark('compiled');
    }
  } finally {
    world.render.hold--;
    world.render.needsRender = true;
  }
  if (result.loaded.length > 0) {
    // Picking trees in the background once the first frame is out (a pick before then uses
    // three's plain raycast for that mesh); a hidden tab that draws no frame starts them anyway.
    const roots = result.loaded.map((record) => record.root);
    void Promise.race([target.nextFrame(), new Promise((resolve) => setTimeout(resolve, 1000))]).then(() => target.preparePicking(roots));
  }
  return result;
}

/** How many problems of one model's log a notice lists before "and N more". */
const MAX_LISTED_PROBLEMS = 3;

/**
 * Fetches a loaded model's whole mutation log and applies it. A log that cannot be fetched or
 * edits that cannot be applied are a notice: the model stays loaded as it is.
 */
async function applySavedEdits(world: ViewerWorld, config: ClientConfig, record: ModelRecord, callbacks: LoadCallbacks): Promise<void> {
  let log: unknown[];
  try {
    log = await fetchMutationLog(config.endpoints.modelService, record.modelId, { signal: callbacks.signal });
  } catch (error) {
    if (callbacks.signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`The saved edits of model ${record.modelId} (${record.name}) could not be loaded:`, error);
    callbacks.onNotice?.(`The saved edits of "${record.name}" could not be loaded, so it is shown as originally uploaded: ${reason}`);
    return;
  }
  if (log.length === 0) return;
  const { problems } = applyMutations(world, record, log);
  if (problems.length === 0) return;
  console.warn(`Saved edits of model ${record.modelId} (${record.name}) that could not be applied:`, problems);
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join(' ');
  const more = problems.length > MAX_LISTED_PROBLEMS ? ` (and ${problems.length - MAX_LISTED_PROBLEMS} more)` : '';
  callbacks.onNotice?.(`Some saved edits of "${record.name}" could not be applied: ${listed}${more}`);
}

/**
 * Uploads textures and compiles materials before the first frame, one per task, so that the
 * first frame is not one long task that freezes the page (WebGL uploads and, without
 * KHR_parallel_shader_compile, program links are synchronous).
 */
async function warmUp(context: RenderContext, records: ModelRecord[], sceneTarget: WebGLRenderTarget | null): Promise<void> {
  const textures = new Set<Texture>();
  const byMaterial = new Map<Material, Object3D>();
  for (const record of records) {
    for (const texture of record.textures.values()) textures.add(texture);
    record.root.traverse((o) => {
      const material = (o as Mesh).material;
      if (!material) return;
      for (const m of Array.isArray(material) ? material : [material]) if (!byMaterial.has(m)) byMaterial.set(m, o);
    });
  }
  for (const texture of textures) {
    context.renderer.initTexture(texture);
    await yieldToMain();
  }
  for (const object of byMaterial.values()) {
    try {
      await compileFor(context, object, sceneTarget);
    } catch (error) {
      // Precompiling is an optimisation; a shader that fails reports its error when drawn.
      console.warn('Shader precompilation failed:', error);
    }
    await yieldToMain();
  }
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

function yieldToMain(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
