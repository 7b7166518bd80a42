import {
  EffectAttribute,
  EffectComposer,
  EffectPass,
  LambdaPass,
  Pass,
  RenderPass,
  ToneMappingMode,
  type Effect,
} from 'postprocessing';
import {
  ACESFilmicToneMapping,
  AgXToneMapping,
  CineonToneMapping,
  HalfFloatType,
  LinearToneMapping,
  NeutralToneMapping,
  NoToneMapping,
  ReinhardToneMapping,
  UnsignedByteType,
  type Texture,
  type ToneMapping,
  type WebGLRenderTarget,
} from 'three';
import { ERR_CAMERA, ERR_CUSTOM_EFFECTS, ERR_RENDERER, ERR_SCENE } from '../../protocol/errors';
import { HELPER_LAYER } from '../../engine/layers';
import type { ViewerWorld } from '../../engine/world';
import { mergeRenderConfig, RenderConfig, type EffectName, type RenderConfigInput, type RenderConfigPatch, type ToneMappingModeName } from '../../protocol/render-config';
import { applyRenderConfig, createEffectStack, disposeEffectStack, readRenderConfig, TONE_MAPPING_MODE, type EffectStack } from './effects';
import { createHelperOverlay } from './helper-overlay';

/**
 * The post-processing stack of the medium and high tiers, on pmndrs/postprocessing:
 *
 *   RenderPass (scene without the helper layer, HDR half-float buffer, optional MSAA)
 *   -> N8AOPostPass (ambient occlusion)
 *   -> EffectPasses: reflections, bloom, tone mapping, SMAA, chromatic aberration, vignette
 *   -> helper overlay (layer 15, straight to the screen, see helper-overlay.ts).
 *
 * Effects are merged into as few EffectPasses as the library allows: it sorts convolution effects
 * (those that read neighbouring pixels: reflections, SMAA, chromatic aberration) to the front of a
 * pass and refuses two in one, so a new pass starts only at the second convolution effect. With
 * everything on that is three EffectPasses ([reflections, bloom, tone mapping], [SMAA],
 * [chromatic aberration, vignette]); the default config (SMAA, AO, bloom, tone mapping) needs one.
 * The full stack is 4 full-screen passes after the scene pass (AO and 3 EffectPasses); inside them
 * N8AO, SMAA and the bloom blur draw more (bench/rendering.bench.ts counts 24 draw calls a frame).
 * The shadow maps are drawn once a frame, by the scene pass (N8AO renders the scene again for
 * transparent objects and must not redraw them).
 *
 * Tone mapping happens once, in the ToneMappingEffect: the scene is rendered with NoToneMapping
 * into linear HDR buffers. The scene settings own `renderer.toneMapping` and
 * `renderer.toneMappingExposure`: the exposure reaches the effect's shader as three's
 * `toneMappingExposure` uniform every frame, and when the scene settings change the renderer's
 * curve the effect follows it (NoToneMapping turns the effect off). The saved config's
 * `toneMapping` sets the effect too; whichever was changed last wins, and the config read back
 * reports what the effect does.
 *
 * Frames stay on demand: `draw` runs only when the render system draws. Temporal parts ask for a
 * few more frames themselves: the adaptive Reinhard operator (its luminance adapts over about two
 * seconds) and SMAA's lookup images, which load asynchronously.
 */

export interface PostProcessingOptions {
  /** Ambient occlusion at half resolution (the medium tier); default false. */
  aoHalfRes?: boolean;
  /** The saved render config to start with; default RenderConfig.parse({}). */
  config?: RenderConfig | RenderConfigInput;
}

export interface PassSummary {
  /** Top-level passes in order: 'RenderPass', 'N8AOPostPass', 'EffectPass(SMAAEffect, BloomEffect, ...)'. */
  names: string[];
  /** Passes that draw the whole screen (all but the RenderPass). */
  fullScreen: number;
  effectPasses: number;
}

export interface PostProcessing {
  readonly composer: EffectComposer;
  readonly effects: EffectStack;
  /** The saved render config, read back from the effects. */
  getConfig(): RenderConfig;
  /** Replaces the whole config (missing fields take their defaults); returns what was applied. */
  setConfig(config: RenderConfig | RenderConfigInput): RenderConfig;
  /** Changes some fields and keeps the rest. */
  updateConfig(patch: RenderConfigPatch): RenderConfig;
  /** After the renderer's size or pixel ratio changed (CSS pixels). */
  setSize(width: number, height: number): void;
  /** Scales the ambient occlusion radius to the framed scene (its bounding radius). */
  setSceneRadius(radius: number): void;
  /** Draws a frame: world.render.draw. */
  draw(delta: number): void;
  passes(): PassSummary;
  /** The buffer the scene is drawn into (for compiling materials for the right target). */
  sceneTarget(): WebGLRenderTarget;
  dispose(): void;
}

/** Ambient occlusion radius as a share of the scene's bounding radius. */
const AO_RADIUS_SHARE = 0.3;
/** Extra frames the adaptive tone mapping asks for after a change (about 1.5 s at 60 Hz). */
const ADAPTATION_FRAMES = 90;

/** The order the effects act on the picture (ambient occlusion is its own pass before them). */
const EFFECT_ORDER: Exclude<EffectName, 'ssao'>[] = ['ssr', 'bloom', 'toneMapping', 'smaa', 'chromaticAberration', 'vignette'];

/** The scene settings' three.js curve -> the effect's operator (CustomToneMapping has none). */
const THREE_TONE_MAPPING: Partial<Record<ToneMapping, ToneMappingModeName>> = {
  [LinearToneMapping]: 'linear',
  [ReinhardToneMapping]: 'reinhard',
  [CineonToneMapping]: 'cineon',
  [ACESFilmicToneMapping]: 'acesFilmic',
  [AgXToneMapping]: 'agx',
  [NeutralToneMapping]: 'neutral',
};

/**
 * Groups effects into EffectPasses: a convolution effect joins the current pass unless it already
 * holds one (the library runs it first in its pass, and allows one per pass).
 */
export function groupEffects<E extends Pick<Effect, 'getAttributes'>>(effects: readonly E[]): E[][] {
  const groups: E[][] = [];
  let current: E[] = [];
  let hasConvolution = false;
  for (const effect of effects) {
    const convolution = (effect.getAttributes() & EffectAttribute.CONVOLUTION) !== 0;
    if (convolution && hasConvolution) {
      groups.push(current);
      current = [];
      hasConvolution = false;
    }
    current.push(effect);
    hasConvolution ||= convolution;
  }
  if (current.length) groups.push(current);
  return groups;
}

/** Asks the composer for its depth texture without drawing anything (the helper overlay reads it). */
class DepthTextureRequest extends Pass {
  texture: Texture | null = null;
  constructor() {
    super('DepthTextureRequest');
    this.needsDepthTexture = true;
    this.needsSwap = false;
    this.enabled = false;
  }
  override setDepthTexture(depthTexture: Texture | null): void {
    this.texture = depthTexture;
  }
}

export function createPostProcessing(world: ViewerWorld, options: PostProcessingOptions = {}): PostProcessing {
  const { renderer, scene, camera } = world.render;
  if (!renderer) throw new Error(ERR_RENDERER);
  if (!scene) throw new Error(ERR_SCENE);
  if (!camera) throw new Error(ERR_CAMERA);

  const halfFloat = renderer.extensions.has('EXT_color_buffer_float') || renderer.extensions.has('EXT_color_buffer_half_float');
  const composer = new EffectComposer(renderer, { frameBufferType: halfFloat ? HalfFloatType : UnsignedByteType, depthBuffer: true, stencilBuffer: false });
  composer.autoRenderToScreen = false;
  const effects = createEffectStack(scene, camera);
  effects.ao.configuration.halfRes = options.aoHalfRes ?? false;
  const renderPass = new RenderPass(scene, camera);
  // After the scene pass, the shadow maps are current: passes that render the scene again (N8AO
  // does, for transparent objects) must not draw them once more. draw() restores the flags.
  const shadowMapsDone = new LambdaPass(() => {
    renderer.shadowMap.autoUpdate = false;
    renderer.shadowMap.needsUpdate = false;
  });
  const depthRequest = new DepthTextureRequest();
  const overlay = createHelperOverlay();
  let effectPasses: EffectPass[] = [];
  let disposed = false;
  let rebuildNeeded = true;
  let seenToneMapping = renderer.toneMapping;
  let adaptationFrames = 0;
  let selfRequested = false;

  const onSmaaLoad = () => {
    world.render.needsRender = true;
  };
  (effects.smaa as unknown as { addEventListener(type: string, listener: () => void): void }).addEventListener('load', onSmaaLoad);

  function alive(): void {
    if (disposed) throw new Error(ERR_CUSTOM_EFFECTS);
  }

  function releaseEffectPass(pass: EffectPass): void {
    // EffectPass.dispose would dispose its effects too: they live on in the next passes.
    (pass as unknown as { setEffects(effects: Effect[]): void }).setEffects([]);
    pass.fullscreenMaterial.dispose();
  }

  function rebuild(): void {
    rebuildNeeded = false;
    composer.removeAllPasses();
    for (const pass of effectPasses) releaseEffectPass(pass);
    const enabled = effects.state.enabled;
    const ordered: Effect[] = [];
    for (const name of EFFECT_ORDER) if (enabled[name]) ordered.push(effects[name]);
    effectPasses = groupEffects(ordered).map((group) => new EffectPass(camera!, ...group));
    const passes: Pass[] = [renderPass];
    if (enabled.ssao) passes.push(effects.ao);
    passes.push(...effectPasses);
    for (const pass of passes) pass.renderToScreen = false;
    passes[passes.length - 1].renderToScreen = true;
    for (const pass of passes) composer.addPass(pass);
    if (passes.length > 1) composer.addPass(shadowMapsDone, 1);
    // The helper overlay needs the scene's depth, unless the RenderPass draws to the screen itself
    // (everything off), which leaves its depth in the screen's depth buffer.
    depthRequest.texture = null;
    if (passes.length > 1) composer.addPass(depthRequest);
    composer.multisampling = Math.min(effects.state.multisampling, renderer!.capabilities.maxSamples);
    world.render.needsRender = true;
  }

  /** The scene settings changed the renderer's tone mapping since we last looked: follow it. */
  function followSceneToneMapping(): void {
    const current = renderer!.toneMapping;
    if (current === seenToneMapping) return;
    seenToneMapping = current;
    const enabled = effects.state.enabled;
    if (current === NoToneMapping) {
      if (enabled.toneMapping) {
        enabled.toneMapping = false;
        rebuildNeeded = true;
      }
      return;
    }
    const mode = THREE_TONE_MAPPING[current];
    if (mode) effects.toneMapping.mode = TONE_MAPPING_MODE[mode];
    if (!enabled.toneMapping) {
      enabled.toneMapping = true;
      rebuildNeeded = true;
    }
  }

  function applied(changedStructure: boolean): RenderConfig {
    seenToneMapping = renderer!.toneMapping; // the config was changed last: it wins
    if (changedStructure || rebuildNeeded) rebuild();
    composer.multisampling = Math.min(effects.state.multisampling, renderer!.capabilities.maxSamples);
    adaptationFrames = 0;
    world.render.needsRender = true;
    return readRenderConfig(effects);
  }

  if (options.config) applyRenderConfig(effects, options.config);
  rebuild();

  const api: PostProcessing = {
    composer,
    effects,
    getConfig() {
      alive();
      return readRenderConfig(effects);
    },
    setConfig(config) {
      alive();
      return applied(applyRenderConfig(effects, RenderConfig.parse(config)));
    },
    updateConfig(patch) {
      alive();
      return applied(applyRenderConfig(effects, mergeRenderConfig(readRenderConfig(effects), patch)));
    },
    setSize(width, height) {
      alive();
      composer.setSize(width, height, false);
      world.render.needsRender = true;
    },
    setSceneRadius(radius) {
      alive();
      if (!(radius > 0) || !Number.isFinite(radius)) return;
      effects.ao.configuration.aoRadius = radius * AO_RADIUS_SHARE;
      world.render.needsRender = true;
    },
    draw(delta) {
      if (disposed) return;
      followSceneToneMapping();
      if (rebuildNeeded) rebuild();
      effects.toneMapping.updateBackground(scene);
      const savedToneMapping = renderer.toneMapping;
      const savedMask = camera.layers.mask;
      const shadowMap = renderer.shadowMap;
      const shadowAutoUpdate = shadowMap.autoUpdate;
      const info = renderer.info;
      const autoReset = info.autoReset;
      // Count the whole frame's draw calls (world.stats), not just the last pass's.
      info.reset();
      info.autoReset = false;
      try {
        renderer.toneMapping = NoToneMapping;
        camera.layers.disable(HELPER_LAYER);
        try {
          composer.render(delta);
        } finally {
          camera.layers.mask = savedMask;
          renderer.toneMapping = savedToneMapping;
          shadowMap.autoUpdate = shadowAutoUpdate;
        }
        overlay.draw(renderer, scene, camera, depthRequest.texture);
      } finally {
        info.autoReset = autoReset;
      }

      // The adaptive operator converges over a second or two: keep drawing for a while (the same
      // scene: its shadow maps are kept).
      if (effects.state.enabled.toneMapping && effects.toneMapping.mode === ToneMappingMode.REINHARD2_ADAPTIVE) {
        if (!selfRequested) adaptationFrames = ADAPTATION_FRAMES;
        selfRequested = adaptationFrames-- > 0;
        if (selfRequested) world.render.needsPicture = true;
      } else {
        selfRequested = false;
      }
    },
    passes() {
      alive();
      const names = composer.passes
        .filter((p) => p.enabled && p !== shadowMapsDone)
        .map((p) => (p instanceof EffectPass ? `EffectPass(${(p as unknown as { effects: Effect[] }).effects.map((e) => e.name).join(', ')})` : p.name));
      return { names, fullScreen: names.filter((n) => n !== 'RenderPass').length, effectPasses: effectPasses.length };
    },
    sceneTarget() {
      alive();
      return composer.inputBuffer;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      (effects.smaa as unknown as { removeEventListener(type: string, listener: () => void): void }).removeEventListener('load', onSmaaLoad);
      composer.removeAllPasses();
      for (const pass of effectPasses) releaseEffectPass(pass);
      effectPasses = [];
      disposeEffectStack(effects);
      renderPass.dispose();
      shadowMapsDone.dispose();
      overlay.dispose();
      composer.dispose();
      // The composer turned autoClear off for its own passes; plain rendering needs it back.
      renderer.autoClear = true;
      world.render.needsRender = true;
    },
  };
  return api;
}

