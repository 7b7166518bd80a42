import { N8AOPostPass } from 'n8ao';
import {
  BloomEffect,
  ChromaticAberrationEffect,
  EdgeDetectionMode,
  KernelSize,
  PredicationMode,
  EffectAttribute,
  SMAAEffect,
  ToneMappingMode,
  VignetteEffect,
} from 'postprocessing';
import { Vector2, type Camera, type Scene } from 'three';
import {
  EDGE_DETECTION_MODES,
  KERNEL_SIZES,
  PREDICATION_MODES,
  RENDER_CONFIG_DEFAULTS,
  RenderConfig,
  TONE_MAPPING_MODES,
  TONE_MAPPING_WHITE_POINT,
  type EffectName,
  type RenderConfigInput,
  type ToneMappingModeName,
} from '../../protocol/render-config';
import { ReflectionEffect } from './reflection-effect';
import { SceneToneMappingEffect } from './tone-mapping-effect';

/**
 * The effects of the post-processing stack and the saved render config they are set from and read
 * back into. Nothing here needs a WebGL context, so the round trip is unit-tested in Node
 * (tests/unit/protocol/render-config.test.ts); src/viewer/postprocessing/composer.ts puts the
 * effects into passes.
 */

/** ToneMappingMode by saved name. */
export const TONE_MAPPING_MODE: Record<ToneMappingModeName, ToneMappingMode> = {
  linear: ToneMappingMode.LINEAR,
  reinhard: ToneMappingMode.REINHARD,
  reinhard2: ToneMappingMode.REINHARD2,
  reinhard2Adaptive: ToneMappingMode.REINHARD2_ADAPTIVE,
  uncharted2: ToneMappingMode.UNCHARTED2,
  cineon: ToneMappingMode.CINEON,
  acesFilmic: ToneMappingMode.ACES_FILMIC,
  agx: ToneMappingMode.AGX,
  neutral: ToneMappingMode.NEUTRAL,
};
const EDGE_DETECTION_MODE = [EdgeDetectionMode.DEPTH, EdgeDetectionMode.LUMA, EdgeDetectionMode.COLOR];
const PREDICATION_MODE = [PredicationMode.DISABLED, PredicationMode.DEPTH, PredicationMode.CUSTOM];
const KERNEL_SIZE = [KernelSize.VERY_SMALL, KernelSize.SMALL, KernelSize.MEDIUM, KernelSize.LARGE, KernelSize.VERY_LARGE, KernelSize.HUGE];
/** Diagonal search steps used while diagonal detection is on (SMAA's HIGH preset). */
const SMAA_DIAGONAL_SEARCH_STEPS = 8;

export interface EffectStack {
  smaa: SMAAEffect;
  ao: N8AOPostPass;
  toneMapping: SceneToneMappingEffect;
  bloom: BloomEffect;
  chromaticAberration: ChromaticAberrationEffect;
  vignette: VignetteEffect;
  ssr: ReflectionEffect;
  /** The parts of the config no effect holds. */
  state: {
    multisampling: number;
    enabled: Record<EffectName, boolean>;
    /** Ambient occlusion quality 0..4 (N8AO keeps only the values a quality sets). */
    aoQuality: number;
  };
}

export function createEffectStack(scene: Scene, camera: Camera): EffectStack {
  const d = RENDER_CONFIG_DEFAULTS;
  const ao = new N8AOPostPass(scene, camera, 1, 1);
  ao.name = 'N8AOPostPass';
  // Accumulation refines AO over frames while the camera holds still: off, so that a still scene
  // costs no GPU work (frames are drawn on demand).
  ao.configuration.accumulate = false;
  const stack: EffectStack = {
    smaa: new SMAAEffect({ edgeDetectionMode: EdgeDetectionMode.COLOR }),
    ao,
    toneMapping: new SceneToneMappingEffect({ mode: TONE_MAPPING_MODE[d.toneMapping.mode], whitePoint: TONE_MAPPING_WHITE_POINT }),
    bloom: createBloom(),
    chromaticAberration: new ChromaticAberrationEffect({ offset: new Vector2(...d.chromaticAberration.offset), radialModulation: false, modulationOffset: 0 }),
    vignette: new VignetteEffect({ offset: d.vignette.offset, darkness: d.vignette.darkness }),
    ssr: new ReflectionEffect(camera),
    state: {
      multisampling: d.multisampling,
      enabled: { ssao: true, ssr: false, bloom: true, toneMapping: true, smaa: true, chromaticAberration: false, vignette: false },
      aoQuality: d.ssao.quality,
    },
  };
  applyRenderConfig(stack, RenderConfig.parse({}));
  return stack;
}

/**
 * Bloom with the Kawase blur, so that the saved kernelSize means what it says (the mipmap blur
 * ignores it). It gets the DEPTH attribute although it reads no depth: EffectPass sorts effects by
 * their attributes, and the tone mapping has DEPTH (it leaves the background alone), so bloom
 * needs it too to stay in front of the tone mapping, on HDR colours.
 */
function createBloom(): BloomEffect {
  const d = RENDER_CONFIG_DEFAULTS.bloom;
  const bloom = new BloomEffect({ mipmapBlur: false, kernelSize: KernelSize.LARGE, luminanceThreshold: d.threshold, luminanceSmoothing: d.smoothing });
  const attributes = bloom.getAttributes() | EffectAttribute.DEPTH;
  (bloom as unknown as { setAttributes(a: EffectAttribute): void }).setAttributes(attributes);
  return bloom;
}

/**
 * Sets every effect from a config (parsed here, so a raw saved object works too). Returns whether
 * the set of enabled effects changed, which means the passes must be rebuilt.
 */
export function applyRenderConfig(stack: EffectStack, input: RenderConfig | RenderConfigInput): boolean {
  const c = RenderConfig.parse(input);
  const before = JSON.stringify(stack.state.enabled);

  stack.state.multisampling = c.multisampling;
  stack.state.enabled = {
    ssao: c.ssao.enabled,
    ssr: c.ssr.enabled,
    bloom: c.bloom.enabled,
    toneMapping: c.toneMapping.enabled,
    smaa: c.smaa.enabled,
    chromaticAberration: c.chromaticAberration.enabled,
    vignette: c.vignette.enabled,
  };

  const edges = stack.smaa.edgeDetectionMaterial;
  edges.edgeDetectionMode = EDGE_DETECTION_MODE[EDGE_DETECTION_MODES.indexOf(c.smaa.edgeDetectionMode)];
  edges.edgeDetectionThreshold = c.smaa.edgeDetectionThreshold;
  edges.predicationMode = PREDICATION_MODE[PREDICATION_MODES.indexOf(c.smaa.predicationMode)];
  edges.predicationScale = c.smaa.predicationScale;
  edges.predicationStrength = c.smaa.predicationStrength;
  edges.predicationThreshold = c.smaa.predicationThreshold;
  const weights = stack.smaa.weightsMaterial;
  weights.orthogonalSearchSteps = c.smaa.searchSteps;
  weights.diagonalDetection = c.smaa.diagonalDetection;
  weights.diagonalSearchSteps = SMAA_DIAGONAL_SEARCH_STEPS;
  weights.cornerRounding = c.smaa.cornerRounding;
  // Typed as a number in the library's declarations; the setter takes a flag.
  (weights as unknown as { cornerDetection: boolean }).cornerDetection = c.smaa.cornerRounding > 0;

  // N8AO recompiles its shaders when a sample count changes; the proxy ignores equal values.
  stack.state.aoQuality = c.ssao.quality;
  const ao = stack.ao.configuration;
  ao.aoSamples = c.ssao.aoSamples;
  ao.denoiseSamples = c.ssao.denoiseSamples;
  ao.denoiseRadius = c.ssao.denoiseRadius;
  ao.distanceFalloff = c.ssao.distanceFalloff;
  ao.intensity = c.ssao.intensity;

  stack.toneMapping.mode = TONE_MAPPING_MODE[c.toneMapping.mode];

  stack.bloom.intensity = c.bloom.intensity;
  stack.bloom.luminanceMaterial.threshold = c.bloom.threshold;
  stack.bloom.luminanceMaterial.smoothing = c.bloom.smoothing;
  stack.bloom.kernelSize = KERNEL_SIZE[KERNEL_SIZES.indexOf(c.bloom.kernelSize)];

  stack.chromaticAberration.offset.set(c.chromaticAberration.offset[0], c.chromaticAberration.offset[1]);

  stack.vignette.offset = c.vignette.offset;
  stack.vignette.darkness = c.vignette.darkness;

  stack.ssr.intensity = c.ssr.intensity;
  stack.ssr.thickness = c.ssr.thickness;
  stack.ssr.maxDistance = c.ssr.maxDistance;
  stack.ssr.steps = c.ssr.steps;

  return JSON.stringify(stack.state.enabled) !== before;
}

/** Reads the config back from the effects themselves. */
export function readRenderConfig(stack: EffectStack): RenderConfig {
  const edges = stack.smaa.edgeDetectionMaterial;
  const weights = stack.smaa.weightsMaterial;
  const ao = stack.ao.configuration;
  const e = stack.state.enabled;
  const offset = stack.chromaticAberration.offset;
  const mode = TONE_MAPPING_MODES.find((name) => TONE_MAPPING_MODE[name] === stack.toneMapping.mode) ?? RENDER_CONFIG_DEFAULTS.toneMapping.mode;
  return {
    multisampling: stack.state.multisampling,
    smaa: {
      enabled: e.smaa,
      edgeDetectionMode: EDGE_DETECTION_MODES[EDGE_DETECTION_MODE.indexOf(edges.edgeDetectionMode)],
      edgeDetectionThreshold: edges.edgeDetectionThreshold,
      predicationMode: PREDICATION_MODES[PREDICATION_MODE.indexOf(edges.predicationMode)],
      predicationScale: edges.predicationScale,
      predicationStrength: edges.predicationStrength,
      predicationThreshold: edges.predicationThreshold,
      searchSteps: weights.orthogonalSearchSteps,
      diagonalDetection: weights.diagonalDetection,
      cornerRounding: weights.cornerRounding,
    },
    ssao: {
      enabled: e.ssao,
      quality: stack.state.aoQuality,
      aoSamples: ao.aoSamples,
      denoiseSamples: ao.denoiseSamples,
      denoiseRadius: ao.denoiseRadius,
      distanceFalloff: ao.distanceFalloff,
      intensity: ao.intensity,
    },
    toneMapping: { enabled: e.toneMapping, mode },
    bloom: {
      enabled: e.bloom,
      intensity: stack.bloom.intensity,
      threshold: stack.bloom.luminanceMaterial.threshold,
      smoothing: stack.bloom.luminanceMaterial.smoothing,
      kernelSize: KERNEL_SIZES[KERNEL_SIZE.indexOf(stack.bloom.kernelSize)],
    },
    chromaticAberration: { enabled: e.chromaticAberration, offset: [offset.x, offset.y] },
    vignette: { enabled: e.vignette, offset: stack.vignette.offset, darkness: stack.vignette.darkness },
    ssr: {
      enabled: e.ssr,
      intensity: stack.ssr.intensity,
      thickness: stack.ssr.thickness,
      maxDistance: stack.ssr.maxDistance,
      steps: stack.ssr.steps,
    },
  };
}

/** Frees every GPU resource the effects own (render targets, materials, textures). */
export function disposeEffectStack(stack: EffectStack): void {
  stack.smaa.dispose();
  stack.toneMapping.dispose();
  stack.bloom.dispose();
  stack.chromaticAberration.dispose();
  stack.vignette.dispose();
  stack.ssr.dispose();
  disposeN8AO(stack.ao);
}

/**
 * N8AOPostPass inherits Pass.dispose, which frees the render targets, materials and textures held
 * directly as properties, but not its full-screen quads (their materials) nor its depth mip atlas.
 * Recognised by shape: a quad holds its mesh in `_mesh`, the atlas its quad in `quad`. (Nothing
 * broader: the pass also holds the renderer, whose dispose() would end the whole viewer.)
 */
function disposeN8AO(pass: N8AOPostPass): void {
  for (const value of Object.values(pass as unknown as Record<string, unknown>)) {
    if (!value || typeof value !== 'object') continue;
    const owner = value as { dispose?: unknown; _mesh?: unknown; quad?: unknown; isWebGLRenderer?: boolean };
    if (owner.isWebGLRenderer || typeof owner.dispose !== 'function') continue;
    if (owner._mesh || owner.quad) (owner.dispose as () => void).call(owner);
  }
  pass.dispose();
}
