import type CameraControls from 'camera-controls';
import type { Object3D } from 'three';
import { PIPELINE } from '../../systems';
import { createFrameLoop, type FrameLoop } from '../engine/frame-loop';
import { placeSunShadow } from '../engine/lights';
import { removeModelBatches, requestModelBatches } from '../engine/model-batches';
import { createRenderContext, resizeRenderContext, type RenderContext } from '../engine/renderer';
import type { ViewerWorld } from '../engine/world';
import { createViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import { STUDIO_FETCH_TIMEOUT_MS, STUDIO_PREFILTERED_SIZE } from '../protocol/environment';
import type { PostProcessing } from './postprocessing/composer';
import type { RenderConfig, RenderConfigPatch } from '../protocol/render-config';
import type { SceneDoc } from '../protocol/scene';
import { setEarlyTextureLimit } from '../scene/container-client';
import { fetchPrefilteredStudio } from '../scene/environments';
import { createModelLoader, type ModelLoader } from '../scene/gltf';
import { mark, type LoadSceneResult } from '../scene/load-scene';
import { createAnimationControl, type ViewerAnimations } from './animation-control';
import { Emitter, type ViewerEventMap } from './events';
import { createKeyboard, type Keyboard } from './input/keyboard';
import { attachDomPointerSource } from './input/pointer';
import { createPointerRouter, type PointerRouter } from './input/pointer-router';
import { loadScene, type LoadCallbacks } from './load';
import { createAssetCache, type AssetCache, type LoadedAsset } from '../scene/instance-assets';
import { createNavigation, type FitOptions, type Navigation } from './navigation';
import { createOrientationGizmo, type OrientationGizmo } from './orientation-gizmo';
import { createPicker, type ViewerPicker } from './picking';
import { detectQuality, type QualityDetection, type QualitySettings, type QualityTier } from './quality';
import { createRendering, requirePostProcessing } from './rendering';
import { disposeSceneSettings } from './scene-settings';
import type { ScreenshotOptions } from './screenshot';

type ScreenshotModule = typeof import('./screenshot');
import { summarize, type ModelSummary } from './summary';
import { createTools, type ViewerTools } from './tools';
import type { ViewerComments } from './comments';

export type { ModelSummary } from './summary';

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

export interface Viewer {
  world: ViewerWorld;
  context: RenderContext;
  controls: CameraControls;
  /**
   * Modes, projection, camera config, fit, recentre, views along the axes (src/viewer/navigation).
   * `navigation.camera` (also world.render.camera) is the camera in use; `context.camera` stays the
   * perspective one.
   */
  readonly navigation: Navigation;
  /** The orientation gizmo, or null when turned off. */
  readonly gizmo: OrientationGizmo | null;
  /** The viewer's keyboard: the one key map (src/viewer/input/keymap.ts) and the handlers bound to it. */
  readonly keys: Keyboard;
  /**
   * The viewer's one pointer router (src/viewer/input/pointer-router.ts): handlers in the declared
   * order of POINTER_ORDER (the editor's gizmo and box selection, the meeting's cursor add theirs),
   * and the one pick per frame under the pointer (`hit()`).
   */
  readonly pointer: PointerRouter;
  /**
   * A picture of the current view (src/viewer/screenshot.ts): measurements, their labels and pins
   * included unless `annotations: false`; section planes, gizmos and other helpers left out.
   */
  screenshot(options?: ScreenshotOptions): Promise<Blob>;
  /**
   * Resolves when the screenshot's code (a chunk fetched as the viewer starts) is there: from then
   * on a screenshot draws in the task that asks for it, in order with the changes around it.
   */
  screenshotReady(): Promise<void>;
  /** The viewer's outward events (hit, background-hit, the tools', navigation, ...): the one emitter. */
  readonly events: Emitter<ViewerEventMap>;
  /** Picking (src/viewer/picking): hits under a screen point, vertex snapping; trees built in the background. */
  readonly picker: ViewerPicker;
  /** Pointer input, measurement, section planes and the point sampler (src/viewer/tools). */
  readonly tools: ViewerTools;
  /**
   * The comment tool, the pins of the scene's comments and their views (src/viewer/comments): a
   * chunk of its own, fetched by `loadComments()` once a page wants comments; null until then.
   */
  readonly comments: ViewerComments | null;
  /** Fetches and starts the comments (once; later calls get the same). */
  loadComments(): Promise<ViewerComments>;
  /** The loaded models' animations (play, pause, resume, stop, speed); changes go out as 'animation' events. */
  readonly animations: ViewerAnimations;
  loadScene(config: ClientConfig, scene: SceneDoc, callbacks?: LoadCallbacks): Promise<LoadSceneResult>;
  /** An asset of the asset CDN for instanced groups, through the viewer's cache (one download per asset). */
  instanceAsset(config: ClientConfig, assetId: string): Promise<LoadedAsset>;
  /**
   * Frames every loaded model (the frame's systems run first, so every world matrix is current):
   * from the three-quarter view, or from the current direction with `keepDirection` (the Fit button).
   */
  frame(enableTransition?: boolean, options?: FitOptions): Promise<void>;
  /** Resolves after the next frame was drawn. */
  nextFrame(): Promise<void>;
  summary(): ModelSummary[];
  /** The quality tier in use (settings) and how it was chosen (score, facts, detection time). */
  readonly quality: QualityDetection;
  /**
   * Switches the tier at run time (for the host API): pixel ratio and post-processing change at
   * once; antialiasing and the environment size stay as the renderer was created (a WebGL context
   * cannot change it), so a page that needs it reloads with `?quality=`. 'auto' goes back to the
   * detected tier. Resolves once the tier's post-processing stack is in place (its code is a chunk
   * of its own, fetched the first time a tier needs it).
   */
  setQuality(tier: QualityTier | 'auto'): Promise<QualitySettings>;
  /** The post-processing stack; throws 'Custom effects not initialized!' when it is off (low tier). */
  readonly postprocessing: PostProcessing;
  /** The saved render config, read back from the effects; throws 'Custom effects not initialized!' when off. */
  getRenderConfig(): RenderConfig;
  /** Changes some fields of the render config; throws 'Custom effects not initialized!' when off. */
  setRenderConfig(patch: RenderConfigPatch): RenderConfig;
  /**
   * Models of many parts drawn through one batch per material (on by default,
   * src/engine/model-batches.ts), or mesh by mesh: for comparing pictures and the benchmark.
   */
  setModelBatching(on: boolean): void;
  dispose(): void;
}

/**
 * The viewer on a canvas, composed: world and renderer (src/engine), the frame loop running PIPELINE
 * (src/engine/frame-loop.ts), quality and post-processing (rendering.ts), keyboard and navigation,
 * the orientation gizmo, picking, the tools, and the load (load.ts). The UI (src/ui) drives it
 * through this interface and hears it through `events`.
 */
export function createViewer(options: ViewerOptions): Viewer {
  const world = createViewerWorld();
  // The screenshot's code is a chunk of its own, fetched now, in parallel with the scene.
  let screenshots: ScreenshotModule | null = null;
  const screenshotsLoaded = import('./screenshot').then((module) => {
    screenshots = module;
  });
  screenshotsLoaded.catch(() => undefined);
  // Nothing is drawn before the first scene is loaded: an empty frame would cost a shadow map and
  // a program link for nothing, and the first picture is the finished scene.
  world.render.hold++;
  let initialHold = true;
  // The tier decides antialiasing, which is fixed when the WebGL context is created: detect first.
  const detection = detectQuality({ forced: options.quality ?? null });
  mark('quality');
  // The models index.html asked the loader worker for decode their images at this tier's size.
  setEarlyTextureLimit(detection.settings.textureLimit);
  const pixelRatio = options.pixelRatio ?? detection.settings.pixelRatio;
  // The context's drawing buffer is made at the container's size: resized afterwards, it is made
  // again (a synchronous wait for the GPU process, tens of milliseconds on a software GPU). The
  // canvas gets the CSS size, which three's renderer takes as its size and scales by the pixel
  // ratio (a no-op at ratio 1, the low tier's).
  const initial = options.container.getBoundingClientRect();
  if (initial.width > 0 && initial.height > 0) {
    options.canvas.width = Math.round(initial.width);
    options.canvas.height = Math.round(initial.height);
  }
  const context = createRenderContext(world, {
    canvas: options.canvas,
    antialias: options.antialias ?? detection.settings.antialias,
    pixelRatio,
  });
  // Detect compressed texture formats before the GPU gets busy: the queries are synchronous.
  const loader: ModelLoader = createModelLoader(context.renderer, '', { textureLimit: detection.settings.textureLimit });
  let size = { width: 0, height: 0 };
  const resize = () => {
    const rect = options.container.getBoundingClientRect();
    size = { width: Math.round(rect.width), height: Math.round(rect.height) };
    resizeRenderContext(world, context, size.width, size.height);
    navigation.setSize(size.width, size.height);
    if (size.width > 0 && size.height > 0) rendering.setSize(size.width, size.height);
  };
  const rendering = createRendering(world, context, detection, { antialias: options.antialias, pixelRatio: options.pixelRatio }, () => resize());
  // The low tier's studio was prefiltered at build time: its device skips the prefiltering passes.
  const environmentSize = rendering.settings.environmentSize;
  // A file that has not arrived within STUDIO_FETCH_TIMEOUT_MS is given up for the GPU prefiltering.
  context.useStudioEnvironment(environmentSize, environmentSize === STUDIO_PREFILTERED_SIZE ? fetchPrefilteredStudio(undefined, AbortSignal.timeout(STUDIO_FETCH_TIMEOUT_MS)) : undefined);
  mark('context');

  const events = new Emitter<ViewerEventMap>();
  const keys = createKeyboard(options.container);
  // One pointer router for the viewer, fed by the container's DOM events (presses, moves and wheels
  // on the canvas only: UI overlays in the container never drive it); handle drags turn the camera off.
  const pointer = createPointerRouter(world, { camera: () => navigation.controls, pick: (x, y) => picker.pickAtClient(x, y) });
  const detachPointer = attachDomPointerSource(pointer, options.container, options.canvas);
  // Camera input on the canvas itself: UI overlays in the container (toolbars, panels, sliders)
  // never drive the camera.
  const navigation = createNavigation(world, context.camera, options.canvas, {
    keyboard: keys,
    events,
    // The wheel zooms towards the model surface under the pointer (never through it): the frame's one pick.
    pointer,
    // The projection replaced the camera: the renderer draws with it and the passes are rebuilt on it.
    onCameraChange: (camera) => {
      world.render.camera = camera;
      rendering.cameraChanged();
    },
  });
  const controls = navigation.controls;
  const gizmo = options.orientationGizmo === false ? null : createOrientationGizmo(world, options.container, navigation);
  resize();
  const observer = new ResizeObserver(resize);
  observer.observe(options.container);

  const loop: FrameLoop = createFrameLoop({ world, pipeline: PIPELINE, scheduler: context.renderer, onFatal: options.onFatal });
  const picker = createPicker({ world });
  // Double-click recentres through the navigation (which handles Orbit, FirstPerson and Plan).
  const tools = createTools({
    world,
    container: options.container,
    pointer,
    events,
    picker: () => picker,
    keyboard: keys,
    recentre: (point) => void navigation.recentreOn(point),
  });

  const animations = createAnimationControl(world, events);
  // Instanced assets by id, per viewer and client configuration: one download per asset.
  let assets: { config: ClientConfig; cache: AssetCache } | null = null;
  const assetsFor = (config: ClientConfig): AssetCache => {
    if (!assets || assets.config.endpoints.assetCdn !== config.endpoints.assetCdn) {
      assets?.cache.dispose();
      assets = { config, cache: createAssetCache(config, loader) };
    }
    return assets.cache;
  };
  const releaseInitialHold = () => {
    if (!initialHold) return;
    initialHold = false;
    world.render.hold--;
    world.render.needsRender = true;
  };
  // Comments (pins, the comment tool, views) are a chunk of their own: the embed's first load
  // stays small, and a page without comments never fetches them.
  let comments: ViewerComments | null = null;
  let commentsLoading: Promise<ViewerComments> | null = null;
  let disposed = false;
  const loadComments = () =>
    (commentsLoading ??= import('./comments').then(({ createComments }) => {
      if (disposed) throw new Error('The viewer was closed before its comments loaded.');
      comments = createComments({
        world,
        scene: context.scene,
        canvas: options.canvas,
        events,
        navigation,
        picker,
        tools,
        keyboard: keys,
        pixelRatio: () => context.renderer.getPixelRatio(),
      });
      return comments;
    }));

  const viewer: Viewer = {
    world,
    context,
    controls,
    navigation,
    gizmo,
    keys,
    pointer,
    screenshot(screenshotOptions) {
      const take = (module: ScreenshotModule) =>
        module.takeScreenshot(
          { world, setPassSize: (w, h) => rendering.post?.setSize(w, h), restoreViewport: resize, labels: () => tools.labels.list() },
          screenshotOptions,
        );
      // Once the code is there the picture is drawn in this task; before, after it arrives (or the
      // download's failure is the answer).
      return screenshots ? take(screenshots) : import('./screenshot').then(take);
    },
    screenshotReady: () => screenshotsLoaded,
    events,
    picker,
    tools,
    get comments() {
      return comments;
    },
    loadComments,
    animations,
    instanceAsset(config, assetId) {
      return assetsFor(config).get(assetId);
    },
    async loadScene(config, scene, callbacks = {}) {
      try {
        const result = await loadScene(
          {
            world,
            context,
            loader,
            settings: viewer,
            useRenderConfig: (renderConfig) => rendering.useConfig(renderConfig),
            sceneTarget: () => rendering.sceneTarget(),
            effectsReady: () => rendering.ready(),
            frame: () => viewer.frame(false),
            step: () => loop.step(),
            preparePicking: (roots) => void picker.prepare(roots),
            nextFrame: () => viewer.nextFrame(),
            assets: assetsFor(config),
            release: releaseInitialHold,
          },
          config,
          scene,
          callbacks,
        );
        // The view the scene opened with (framing and the scene's saved camera) is Home.
        if (result.loaded.length > 0) navigation.saveHome();
        events.emit('models', { modelIds: result.loaded.map((record) => record.modelId) });
        return result;
      } finally {
        releaseInitialHold();
      }
    },
    async frame(enableTransition = false, fitOptions) {
      // One frame of the pipeline now brings every world matrix up to date (nothing is drawn while
      // a load holds the picture).
      loop.step();
      const roots: Object3D[] = [];
      for (const record of world.models.values()) roots.push(record.root);
      // Instanced asset groups are framed by their meshes' bounds (kept by the engine: no walk over instances).
      for (const group of world.instanceGroups.values()) roots.push(group.object);
      const radius = await navigation.fit(roots, enableTransition, fitOptions);
      if (radius > 0) {
        // The sun's shadow box around the new view (the shadow-follow system keeps it there).
        placeSunShadow(world, context.sun);
        rendering.setSceneRadius(radius);
      }
      world.render.needsRender = true;
    },
    nextFrame() {
      return loop.nextFrame();
    },
    summary() {
      return [...world.models.values()].map(summarize);
    },
    get quality() {
      return rendering.detection;
    },
    async setQuality(tier) {
      const settings = rendering.setQuality(tier);
      await rendering.ready();
      return settings;
    },
    get postprocessing() {
      return requirePostProcessing(rendering.post);
    },
    getRenderConfig() {
      return requirePostProcessing(rendering.post).getConfig();
    },
    setRenderConfig(patch) {
      return rendering.updateConfig(patch);
    },
    setModelBatching(on) {
      const batches = world.render.batches;
      batches.enabled = on;
      for (const modelEid of world.models.keys()) {
        if (on) requestModelBatches(world, modelEid);
        else removeModelBatches(world, modelEid);
      }
      world.render.needsRender = true;
    },
    dispose() {
      loop.stop();
      animations.dispose();
      events.clear();
      disposed = true;
      comments?.dispose();
      comments = null;
      tools.dispose();
      detachPointer();
      pointer.dispose();
      picker.dispose();
      observer.disconnect();
      rendering.dispose();
      gizmo?.dispose();
      navigation.dispose();
      keys.dispose();
      loader.dispose();
      assets?.cache.dispose();
      // Water, shadow plane, loaded environment and gradient background of the scene settings.
      disposeSceneSettings(viewer);
      context.dispose();
    },
  };
  return viewer;
}
