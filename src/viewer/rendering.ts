import type { WebGLRenderTarget } from 'three';
import type { RenderContext } from '../engine/renderer';
import type { ViewerWorld } from '../engine/world';
import { defaultRenderConfig, type RenderConfig, type RenderConfigPatch } from '../protocol/render-config';
import { createPostProcessing, requirePostProcessing, type PostProcessing } from './postprocessing/composer';
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
  /** The stack, or null on the low tier. */
  readonly post: PostProcessing | null;
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
      // Antialiasing and the environment's size stay as the context was set up.
      settings = { ...next, antialias, environmentSize: environmentSizeInUse, pixelRatio: options.pixelRatio ?? next.pixelRatio };
      context.renderer.setPixelRatio(settings.pixelRatio);
      resize();
      setPostProcessing(settings.postProcessing);
      return { ...settings };
    },
    get post() {
      return post;
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
      post?.dispose();
      post = null;
      world.render.draw = null;
    },
  };
}
