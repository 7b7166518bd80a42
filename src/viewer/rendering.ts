import type { WebGLRenderTarget } from 'three';
import { sizeSunShadow } from '../engine/lights';
import type { RenderContext } from '../engine/renderer';
import { setTriangleBudget, TRIANGLE_BUDGETS } from '../engine/triangle-budget';
import type { ViewerWorld } from '../engine/world';
import { defaultRenderConfig, type RenderConfig, type RenderConfigPatch } from '../protocol/render-config';
import { ERR_CUSTOM_EFFECTS } from '../protocol/errors';
import type { PostProcessing } from './postprocessing/composer';
import { detectQuality, settingsForTier, type QualityDetection, type QualitySettings, type QualityTier } from './quality';

export interface RenderingOptions {
  /** Overrides the quality tier's antialiasing (which is on for the low tier only). */
  antialias?: boolean;
  /** Overrides the quality tier's pixel ratio. */
  pixelRatio?: number;
}

/**
 * The picture's quality: the tier in use (pixel ratio, post-processing on or off), the
 * post-processing stack and the scene's saved render config, which is kept while post-processing is
 * off and applied when it turns on.
 */
export interface Rendering {
  readonly detection: QualityDetection;
  readonly settings: QualitySettings;
  setQuality(tier: QualityTier | 'auto'): QualitySettings;
  /** The stack, or null on the low tier (and while its code downloads). */
  readonly post: PostProcessing | null;
  /** Resolves when the stack the tier wants is in place (its code is its own chunk, fetched on demand). */
  ready(): Promise<void>;
  /** The saved render config in use (the stack's when on). */
  config(): RenderConfig;
  /** Replaces the saved render config (a scene's): applied now if the stack is on, kept otherwise. */
  useConfig(config: RenderConfig): void;
  /** Changes some fields; throws 'Custom effects not initialized!' while the stack is off. */
  updateConfig(patch: RenderConfigPatch): RenderConfig;
  /** The buffer the scene is drawn into (for compiling materials for the right target), or null for the screen. */
  sceneTarget(): WebGLRenderTarget | null;
  setSize(width: number, height: number): void;
  setSceneRadius(radius: number): void;
  /** The camera object was replaced (projection): the passes are rebuilt on it. */
  cameraChanged(): void;
  dispose(): void;
}

export function createRendering(world: ViewerWorld, context: RenderContext, detection: QualityDetection, options: RenderingOptions, resize: () => void): Rendering {
  const antialias = options.antialias ?? detection.settings.antialias;
  let current = detection;
  let settings: QualitySettings = { ...detection.settings, antialias, pixelRatio: context.renderer.getPixelRatio() };
  const environmentSizeInUse = settings.environmentSize;
  const textureLimitInUse = settings.textureLimit;
  let renderConfig: RenderConfig = defaultRenderConfig();
  let post: PostProcessing | null = null;
  let sceneRadius = 0;
  let size = { width: 0, height: 0 };

  // The stack's code (postprocessing, n8ao: about 180 kB gzip) is a chunk of its own, fetched only
  // by a tier that draws effects: the low tier never downloads it.
  let wanted = false;
  let pending: Promise<void> = Promise.resolve();
  // Once fetched, the module is kept: rebuilding the stack (a new camera, a tier switched back) is
  // then synchronous, so no frame is drawn without the effects and `post` is never briefly null.
  let composerModule: typeof import('./postprocessing/composer') | null = null;
  // A stack that cannot be fetched or built leaves the picture without effects; the person is told
  // through the console and the viewer keeps working (the host API's render-config calls then
  // answer 'Custom effects not initialized!').
  const report = (error: unknown) => console.error('The post-processing effects could not be loaded; the picture is drawn without them:', error);
  const build = (module: typeof import('./postprocessing/composer')) => {
    composerModule = module;
    if (!wanted || post || disposed) return;
    try {
      post = module.createPostProcessing(world, { aoHalfRes: settings.tier === 'medium', config: renderConfig });
    } catch (error) {
      report(error);
      return;
    }
    if (size.width > 0) post.setSize(size.width, size.height);
    if (sceneRadius > 0) post.setSceneRadius(sceneRadius);
    world.render.draw = post.draw;
    world.render.needsRender = true;
  };
  const setPostProcessing = (on: boolean) => {
    wanted = on;
    if (on && !post) {
      if (composerModule) build(composerModule);
      else pending = import('./postprocessing/composer').then(build, report);
    } else if (!on && post) {
      renderConfig = post.getConfig();
      post.dispose();
      post = null;
      world.render.draw = null;
    }
    if (post) post.effects.ao.configuration.halfRes = settings.tier === 'medium';
    world.render.needsRender = true;
  };
  let disposed = false;
  const applyShadows = () => {
    world.shadows.sunMapSize = settings.shadowMapSize;
    world.shadows.pointLights = settings.pointLightShadows;
    sizeSunShadow(world, context.sun);
    setTriangleBudget(world.render.budget, TRIANGLE_BUDGETS[settings.tier]);
    // The shadow budget decides again with the tier's rules.
    world.render.needsRender = true;
  };
  applyShadows();
  setPostProcessing(settings.postProcessing);

  return {
    get detection() {
      return { ...current, settings: { ...settings } };
    },
    get settings() {
      return { ...settings };
    },
    setQuality(tier) {
      if (tier === 'auto' && current.forced) current = detectQuality();
      const next = tier === 'auto' ? current.settings : settingsForTier(tier, globalThis.devicePixelRatio ?? 1);
      // Antialiasing, the environment's size and the texture limit stay as the context was set up.
      settings = { ...next, antialias, environmentSize: environmentSizeInUse, textureLimit: textureLimitInUse, pixelRatio: options.pixelRatio ?? next.pixelRatio };
      context.renderer.setPixelRatio(settings.pixelRatio);
      resize();
      applyShadows();
      setPostProcessing(settings.postProcessing);
      return { ...settings };
    },
    get post() {
      return post;
    },
    ready() {
      return pending;
    },
    config() {
      return post ? post.getConfig() : renderConfig;
    },
    useConfig(config) {
      renderConfig = config;
      post?.setConfig(config);
    },
    updateConfig(patch) {
      renderConfig = requirePostProcessing(post).updateConfig(patch);
      return renderConfig;
    },
    sceneTarget() {
      return post?.sceneTarget() ?? null;
    },
    setSize(width, height) {
      size = { width, height };
      if (post && width > 0 && height > 0) post.setSize(width, height);
    },
    setSceneRadius(radius) {
      sceneRadius = radius;
      post?.setSceneRadius(radius);
    },
    cameraChanged() {
      if (!post) return;
      setPostProcessing(false);
      setPostProcessing(true);
    },
    dispose() {
      disposed = true;
      post?.dispose();
      post = null;
      world.render.draw = null;
    },
  };
}

/** The stack, or 'Custom effects not initialized!' when it is off. */
export function requirePostProcessing(post: PostProcessing | null): PostProcessing {
  if (!post) throw new Error(ERR_CUSTOM_EFFECTS);
  return post;
}
