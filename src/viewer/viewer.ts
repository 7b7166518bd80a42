import type CameraControls from 'camera-controls';
import type { Material, Mesh, Object3D, Texture, WebGLRenderTarget } from 'three';
import { PIPELINE, runPipeline } from '../../systems';
import { placeSunShadow } from '../engine/lights';
import { createRenderContext, resizeRenderContext, type RenderContext } from '../engine/renderer';
import { syncObjectMatrices } from '../engine/sync';
import { advanceTime, createViewerWorld, type ModelRecord, type ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import { defaultRenderConfig, describeRenderConfigError, RenderConfig, type RenderConfigPatch } from '../protocol/render-config';
import type { SceneDoc } from '../protocol/scene';
import { applyMutations, fetchMutationLog } from '../scene/apply-mutations';
import { createModelLoader, type ModelLoader } from '../scene/gltf';
import { loadSceneModels, mark, type LoadProgress, type LoadSceneResult, type ModelFailure } from '../scene/load-scene';
import { transformSystem } from '../../systems/transformSystem';
import { attachAnimationEvents, listAnimations, type AnimationInfo } from './animation';
import { Emitter, type ViewerEventMap } from './events';
import { createNavigation, type Navigation } from './navigation';
import { createOrientationGizmo, type OrientationGizmo } from './orientation-gizmo';
import { takeScreenshot, type ScreenshotOptions } from './screenshot';
import { createPicker, type ViewerPicker } from './picking';
import { createTools, type ViewerTools } from './tools';
import { createPostProcessing, requirePostProcessing, type PostProcessing } from './postprocessing/composer';
import { disposeSceneSettings } from './scene-settings';
import { detectQuality, settingsForTier, type QualityDetection, type QualitySettings, type QualityTier } from './quality';

export interface ViewerOptions {
  canvas: HTMLCanvasElement;
  /** The element whose size the canvas follows and that receives pointer input. */
  container: HTMLElement;
  /** Overrides the quality tier's antialiasing (which is on for the low tier only). */
  antialias?: boolean;
  /** Overrides the quality tier's pixel ratio. */
  pixelRatio?: number;
  /** A forced quality tier (`?quality=`); absent or null detects it (src/viewer/quality.ts). */
  quality?: QualityTier | null;
  /** Called when the frame loop throws: the viewer stops drawing and reports. */
  onFatal?: (error: Error) => void;
  /** The orientation gizmo at the container's top right (default true). */
  orientationGizmo?: boolean;
}

export interface ModelSummary {
  modelId: string;
  name: string;
  /** glTF nodes of the default scene registered by nodeId. */
  nodes: number;
  /** Drawable objects (one per primitive and node; an instanced mesh counts once). */
  meshes: number;
  materials: number;
  textures: number;
  animations: AnimationInfo[];
  entities: number;
}

export interface Viewer {
  world: ViewerWorld;
  context: RenderContext;
  controls: CameraControls;
  /**
   * Modes, projection, camera config, fit, recentre, views along the axes (src/viewer/navigation.ts).
   * `navigation.camera` (also world.render.camera) is the camera in use; `context.camera` stays the
   * perspective one.
   */
  readonly navigation: Navigation;
  /** The orientation gizmo, or null when turned off. */
  readonly gizmo: OrientationGizmo | null;
  /** A picture of the current view without helpers (src/viewer/screenshot.ts). */
  screenshot(options?: ScreenshotOptions): Promise<Blob>;
  /** The viewer's outward events (hit, background-hit and the tools' events). */
  readonly events: Emitter<ViewerEventMap>;
  /** Picking (src/viewer/picking.ts): hits under a screen point, vertex snapping; trees built in the background. */
  readonly picker: ViewerPicker;
  /** Pointer input, measurement, section planes and the point sampler (src/viewer/tools). */
  readonly tools: ViewerTools;
  loadScene(
    config: ClientConfig,
    scene: SceneDoc,
    callbacks?: {
      onProgress?: (p: LoadProgress) => void;
      onModelError?: (f: ModelFailure) => void;
      /** Something the viewer should tell but that does not fail the scene (e.g. saved edits that could not be loaded). */
      onNotice?: (text: string) => void;
      signal?: AbortSignal;
    },
  ): Promise<LoadSceneResult>;
  /** Frames every loaded model. */
  frame(enableTransition?: boolean): Promise<void>;
  /** Resolves after the next frame was drawn. */
  nextFrame(): Promise<void>;
  summary(): ModelSummary[];
  /** The quality tier in use (settings) and how it was chosen (score, facts, detection time). */
  readonly quality: QualityDetection;
  /**
   * Switches the tier at run time (for the host API): pixel ratio and post-processing change at
   * once; antialiasing and the environment size stay as the renderer was created (a WebGL context cannot change it), so a
   * page that needs it reloads with `?quality=`. 'auto' goes back to the detected tier.
   */
  setQuality(tier: QualityTier | 'auto'): QualitySettings;
  /** The post-processing stack; throws 'Custom effects not initialized!' when it is off (low tier). */
  readonly postprocessing: PostProcessing;
  /** The saved render config, read back from the effects; throws 'Custom effects not initialized!' when off. */
  getRenderConfig(): RenderConfig;
  /** Changes some fields of the render config; throws 'Custom effects not initialized!' when off. */
  setRenderConfig(patch: RenderConfigPatch): RenderConfig;
  dispose(): void;
}

/**
 * The viewer engine on a canvas: world, renderer, navigation, the frame loop running PIPELINE,
 * and scene loading. The UI (src/ui) drives it and shows its state.
 */
export function createViewer(options: ViewerOptions): Viewer {
  const world = createViewerWorld();
  // The tier decides antialiasing, which is fixed when the WebGL context is created: detect first.
  let detection = detectQuality({ forced: options.quality ?? null });
  mark('quality');
  const context = createRenderContext(world, {
    canvas: options.canvas,
    antialias: options.antialias ?? detection.settings.antialias,
    pixelRatio: options.pixelRatio ?? detection.settings.pixelRatio,
  });
  const antialias = options.antialias ?? detection.settings.antialias;
  let settings: QualitySettings = { ...detection.settings, antialias, pixelRatio: context.renderer.getPixelRatio() };
  // Detect compressed texture formats before the GPU gets busy: the queries are synchronous.
  const loader: ModelLoader = createModelLoader(context.renderer);
  // The scene's saved render config; kept while post-processing is off, applied when it turns on.
  let renderConfig: RenderConfig = defaultRenderConfig();
  let post: PostProcessing | null = null;
  let sceneRadius = 0;
  let size = { width: 0, height: 0 };
  const setPostProcessing = (on: boolean) => {
    if (on && !post) {
      post = createPostProcessing(world, { aoHalfRes: settings.tier === 'medium', config: renderConfig });
      if (size.width > 0) post.setSize(size.width, size.height);
      if (sceneRadius > 0) post.setSceneRadius(sceneRadius);
      world.render.draw = post.draw;
    } else if (!on && post) {
      renderConfig = post.getConfig();
      post.dispose();
      post = null;
      world.render.draw = null;
    }
    if (post) post.effects.ao.configuration.halfRes = settings.tier === 'medium';
    world.render.needsRender = true;
  };
  setPostProcessing(settings.postProcessing);
  const environmentSizeInUse = settings.environmentSize;
  context.useStudioEnvironment(environmentSizeInUse);
  mark('context');
  // Pointer and keyboard input on the canvas itself: UI overlays in the container (toolbars,
  // panels, sliders) never drive the camera.
  const navigation = createNavigation(world, context.camera, options.canvas, {
    // The projection replaced the camera: the renderer draws with it and the passes are rebuilt on it.
    onCameraChange: (camera) => {
      world.render.camera = camera;
      if (post) {
        setPostProcessing(false);
        setPostProcessing(true);
      }
    },
  });
  const controls = navigation.controls;
  const gizmo = options.orientationGizmo === false ? null : createOrientationGizmo(options.container, navigation);
  let drawnWaiters: (() => void)[] = [];
  let stopped = false;

  const resize = () => {
    const rect = options.container.getBoundingClientRect();
    size = { width: Math.round(rect.width), height: Math.round(rect.height) };
    resizeRenderContext(world, context, size.width, size.height);
    navigation.setSize(size.width, size.height);
    if (post && size.width > 0 && size.height > 0) post.setSize(size.width, size.height);
  };
  resize();
  const observer = new ResizeObserver(resize);
  observer.observe(options.container);

  context.renderer.setAnimationLoop((now) => {
    if (stopped) return;
    try {
      const before = world.stats.renderedFrames;
      advanceTime(world, now);
      runPipeline(world, PIPELINE);
      if (drawnWaiters.length && world.stats.renderedFrames > before) {
        const waiters = drawnWaiters;
        drawnWaiters = [];
        for (const resolve of waiters) resolve();
      }
    } catch (error) {
      stopped = true;
      context.renderer.setAnimationLoop(null);
      options.onFatal?.(error instanceof Error ? error : new Error(String(error)));
    }
  });

  const events = new Emitter<ViewerEventMap>();
  const picker = createPicker({ world });
  // Double-click recentres through the navigation (which handles Orbit, FirstPerson and Plan).
  const tools = createTools({ world, container: options.container, events, picker: () => picker, controls, recentre: (point) => void navigation.recentreOn(point) });
  const viewer: Viewer = {
    world,
    context,
    controls,
    navigation,
    gizmo,
    screenshot(screenshotOptions) {
      return takeScreenshot({ world, setPassSize: (w, h) => post?.setSize(w, h), restoreViewport: resize }, screenshotOptions);
    },
    events,
    picker,
    tools,
    async loadScene(config, scene, callbacks = {}) {
      // The saved render config: checked before any download (an invalid one fails the scene like
      // any configuration error) and applied before the scene settings, so that a tone mapping
      // the scene settings set afterwards wins over the config's.
      const saved = scene.viewerConfig?.postprocessing;
      if (saved !== undefined) {
        const parsed = RenderConfig.safeParse(saved);
        if (!parsed.success) throw new Error(`The scene's post-processing settings are invalid: ${describeRenderConfigError(parsed.error)}`);
        renderConfig = parsed.data;
      } else {
        renderConfig = defaultRenderConfig();
      }
      post?.setConfig(renderConfig);
      // Nothing is drawn until the models are loaded, framed and warmed up: the first picture is
      // the finished one, and the GPU does not draw the scene half-loaded and unframed before it.
      world.render.hold++;
      let result: LoadSceneResult;
      try {
        result = await loadSceneModels(world, config, scene, {
          loader,
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
          await viewer.frame(false);
          mark('framed');
          await warmUp(context, result.loaded, post?.sceneTarget() ?? null);
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
        void Promise.race([viewer.nextFrame(), new Promise((resolve) => setTimeout(resolve, 1000))]).then(() => picker.prepare(roots));
      }
      return result;
    },
    async frame(enableTransition = false) {
      // Bring world matrices up to date now rather than at the next frame.
      transformSystem(world);
      syncObjectMatrices(world);
      const roots: Object3D[] = [];
      for (const record of world.models.values()) roots.push(record.root);
      const radius = await navigation.fit(roots, enableTransition);
      // The sun's shadow box around the new view (the shadow-follow system keeps it there).
      if (radius > 0) placeSunShadow(world, context.sun);
      if (radius > 0) {
        sceneRadius = radius;
        post?.setSceneRadius(radius);
      }
      world.render.needsRender = true;
    },
    nextFrame() {
      world.render.needsRender = true;
      return new Promise((resolve) => drawnWaiters.push(resolve));
    },
    summary() {
      return [...world.models.values()].map(summarize);
    },
    get quality() {
      return { ...detection, settings: { ...settings } };
    },
    setQuality(tier) {
      if (tier === 'auto' && detection.forced) detection = detectQuality();
      const next = tier === 'auto' ? detection.settings : settingsForTier(tier, globalThis.devicePixelRatio ?? 1);
      // Antialiasing and the environment's size stay as the context was set up.
      settings = { ...next, antialias, environmentSize: environmentSizeInUse, pixelRatio: options.pixelRatio ?? next.pixelRatio };
      context.renderer.setPixelRatio(settings.pixelRatio);
      resize();
      setPostProcessing(settings.postProcessing);
      return { ...settings };
    },
    get postprocessing() {
      return requirePostProcessing(post);
    },
    getRenderConfig() {
      return requirePostProcessing(post).getConfig();
    },
    setRenderConfig(patch) {
      renderConfig = requirePostProcessing(post).updateConfig(patch);
      return renderConfig;
    },
    dispose() {
      stopped = true;
      events.clear();
      tools.dispose();
      picker.dispose();
      observer.disconnect();
      context.renderer.setAnimationLoop(null);
      post?.dispose();
      post = null;
      world.render.draw = null;
      gizmo?.dispose();
      navigation.dispose();
      loader.dispose();
      // Water, shadow plane, loaded environment and gradient background of the scene settings.
      disposeSceneSettings(viewer);
      context.dispose();
    },
  };
  return viewer;
}

/** How many problems of one model's log a notice lists before "and N more". */
const MAX_LISTED_PROBLEMS = 3;

/**
 * Fetches a loaded model's whole mutation log and applies it. A log that cannot be fetched or
 * edits that cannot be applied are a notice: the model stays loaded as it is.
 */
async function applySavedEdits(
  world: ViewerWorld,
  config: ClientConfig,
  record: ModelRecord,
  callbacks: { onNotice?: (text: string) => void; signal?: AbortSignal },
): Promise<void> {
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

function summarize(record: ModelRecord): ModelSummary {
  let meshes = 0;
  record.root.traverse((o) => {
    if ((o as Mesh).isMesh) meshes++;
  });
  return {
    modelId: record.modelId,
    name: record.name,
    nodes: record.nodes.size,
    meshes,
    materials: record.materials.size,
    textures: record.textures.size,
    animations: listAnimations(record),
    entities: record.entities.length,
  };
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
