import { z } from 'zod';

/**
 * The saved render config (viewer specification section 3, `viewerConfig.postprocessing`): what
 * the post-processing stack of the medium and high quality tiers draws. Every field has a default
 * (named once, in RENDER_CONFIG_DEFAULTS), so `RenderConfig.parse({})` is the stack a new scene
 * gets, and `parse -> apply -> read back` gives the same JSON (tests/unit/protocol).
 *
 * Modes are names, not the numbers of the library's enums, so a saved scene survives a library
 * update. Numbers are rounded to the precision the effects keep (SMAA thresholds to 6 decimals,
 * corner rounding to 4), so what is read back equals what was parsed.
 *
 * Fields the specification leaves open, decided here:
 * - `ssr` (screen-space reflections) has the specification's constants (intensity 0.6, thickness 2,
 *   max distance 8, 25 steps) and is off by default: it costs the most and, without material
 *   information in screen space, makes every surface a little glossy.
 * - `ssao.quality` is the editor specification's 0..4 (Performance, Low, Medium, High, Ultra;
 *   default 2). A quality chooses aoSamples, denoiseSamples and denoiseRadius (N8AO's presets);
 *   values given next to it win. So `{quality: 4}` parses to Ultra's 64 / 16 / 6.
 * - Enabled by default: SMAA, ambient occlusion, tone mapping, bloom (threshold 0.95, so only
 *   emissive or very bright pixels glow). Off by default: chromatic aberration, vignette,
 *   reflections, multisampling (SMAA does the antialiasing).
 */

/** Ambient occlusion quality names, index = the saved number (editor specification section 9). */
export const AO_QUALITY_NAMES = ['Performance', 'Low', 'Medium', 'High', 'Ultra'] as const;
export type AoQualityName = (typeof AO_QUALITY_NAMES)[number];
export const AO_QUALITY_DEFAULT = 2;

/** What each ambient occlusion quality sets (N8AO's quality modes). */
export const AO_QUALITY_PRESETS: readonly { aoSamples: number; denoiseSamples: number; denoiseRadius: number }[] = [
  { aoSamples: 8, denoiseSamples: 4, denoiseRadius: 12 },
  { aoSamples: 16, denoiseSamples: 4, denoiseRadius: 12 },
  { aoSamples: 16, denoiseSamples: 8, denoiseRadius: 12 },
  { aoSamples: 64, denoiseSamples: 8, denoiseRadius: 6 },
  { aoSamples: 64, denoiseSamples: 16, denoiseRadius: 6 },
];

export const EDGE_DETECTION_MODES = ['depth', 'luma', 'color'] as const;
export const PREDICATION_MODES = ['disabled', 'depth', 'custom'] as const;
/** The tone mapping operators of the post-processing stack (pmndrs ToneMappingMode). */
export const TONE_MAPPING_MODES = ['linear', 'reinhard', 'reinhard2', 'reinhard2Adaptive', 'uncharted2', 'cineon', 'acesFilmic', 'agx', 'neutral'] as const;
export const KERNEL_SIZES = ['verySmall', 'small', 'medium', 'large', 'veryLarge', 'huge'] as const;

export type EdgeDetectionModeName = (typeof EDGE_DETECTION_MODES)[number];
export type PredicationModeName = (typeof PREDICATION_MODES)[number];
export type ToneMappingModeName = (typeof TONE_MAPPING_MODES)[number];
export type KernelSizeName = (typeof KERNEL_SIZES)[number];

/** White point of the tone mapping (viewer specification: ACES filmic, white point 4). */
export const TONE_MAPPING_WHITE_POINT = 4;

/** The defaults of the saved render config, named once (viewer specification section 9). */
export const RENDER_CONFIG_DEFAULTS = {
  multisampling: 0,
  smaa: {
    enabled: true,
    edgeDetectionMode: 'color' as EdgeDetectionModeName,
    edgeDetectionThreshold: 0.1,
    predicationMode: 'disabled' as PredicationModeName,
    predicationScale: 2,
    predicationStrength: 1,
    predicationThreshold: 0.01,
    searchSteps: 16,
    diagonalDetection: true,
    cornerRounding: 25,
  },
  ssao: {
    enabled: true,
    quality: AO_QUALITY_DEFAULT,
    ...AO_QUALITY_PRESETS[AO_QUALITY_DEFAULT],
    distanceFalloff: 1,
    intensity: 3,
  },
  toneMapping: { enabled: true, mode: 'acesFilmic' as ToneMappingModeName },
  bloom: { enabled: true, intensity: 1, threshold: 0.95, smoothing: 0.5, kernelSize: 'large' as KernelSizeName },
  chromaticAberration: { enabled: false, offset: [0.001, 0.0005] as [number, number] },
  vignette: { enabled: false, offset: 0.35, darkness: 0.5 },
  ssr: { enabled: false, intensity: 0.6, thickness: 2, maxDistance: 8, steps: 25 },
} as const;

const D = RENDER_CONFIG_DEFAULTS;

/** Rounds to the number of decimals an effect keeps (it stores some values as shader defines). */
const rounded = (decimals: number) => (v: number) => Number(v.toFixed(decimals));

const num = (min: number, max: number) => z.number().min(min).max(max);
const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const SmaaConfig = z.object({
  enabled: z.boolean().default(D.smaa.enabled),
  edgeDetectionMode: z.enum(EDGE_DETECTION_MODES).default(D.smaa.edgeDetectionMode),
  edgeDetectionThreshold: num(0, 0.5).transform(rounded(6)).default(D.smaa.edgeDetectionThreshold),
  predicationMode: z.enum(PREDICATION_MODES).default(D.smaa.predicationMode),
  predicationScale: num(1, 5).transform(rounded(6)).default(D.smaa.predicationScale),
  predicationStrength: num(0, 1).transform(rounded(6)).default(D.smaa.predicationStrength),
  predicationThreshold: num(0, 0.5).transform(rounded(6)).default(D.smaa.predicationThreshold),
  /** Orthogonal search steps (0..112). */
  searchSteps: int(0, 112).default(D.smaa.searchSteps),
  diagonalDetection: z.boolean().default(D.smaa.diagonalDetection),
  /** 0..100; 0 turns corner detection off. */
  cornerRounding: num(0, 100).transform(rounded(4)).default(D.smaa.cornerRounding),
});

export const SsaoFields = z.object({
  enabled: z.boolean().default(D.ssao.enabled),
  /** 0..4 = Performance, Low, Medium, High, Ultra. */
  quality: int(0, 4).default(D.ssao.quality),
  aoSamples: int(1, 128),
  denoiseSamples: int(1, 64),
  denoiseRadius: num(0, 64),
  distanceFalloff: num(0, 100).default(D.ssao.distanceFalloff),
  intensity: num(0, 100).default(D.ssao.intensity),
});

/** Fills aoSamples, denoiseSamples and denoiseRadius from the quality preset where absent. */
function withQualityPreset(raw: unknown): unknown {
  if (raw === undefined) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const input = raw as Record<string, unknown>;
  const q = input.quality === undefined ? D.ssao.quality : input.quality;
  if (typeof q !== 'number' || !Number.isInteger(q) || q < 0 || q > 4) return input; // the schema reports it
  return { ...AO_QUALITY_PRESETS[q], ...stripUndefined(input) };
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

export const SsaoConfig = z.preprocess(withQualityPreset, SsaoFields);

export const ToneMappingConfig = z.object({
  enabled: z.boolean().default(D.toneMapping.enabled),
  mode: z.enum(TONE_MAPPING_MODES).default(D.toneMapping.mode),
});

export const BloomConfig = z.object({
  enabled: z.boolean().default(D.bloom.enabled),
  intensity: num(0, 100).default(D.bloom.intensity),
  /** Luminance threshold. */
  threshold: num(0, 100).default(D.bloom.threshold),
  /** Luminance smoothing. */
  smoothing: num(0, 1).default(D.bloom.smoothing),
  kernelSize: z.enum(KERNEL_SIZES).default(D.bloom.kernelSize),
});

export const ChromaticAberrationConfig = z.object({
  enabled: z.boolean().default(D.chromaticAberration.enabled),
  /** Colour offset [x, y] in UV units. */
  offset: z.tuple([num(-1, 1), num(-1, 1)]).default([...D.chromaticAberration.offset] as [number, number]),
});

export const VignetteConfig = z.object({
  enabled: z.boolean().default(D.vignette.enabled),
  offset: num(0, 1).default(D.vignette.offset),
  darkness: num(0, 1).default(D.vignette.darkness),
});

/** Screen-space reflections (our own effect: src/viewer/postprocessing/reflection-effect.ts). */
export const SsrConfig = z.object({
  enabled: z.boolean().default(D.ssr.enabled),
  intensity: num(0, 1).default(D.ssr.intensity),
  /** How far behind a surface a ray still counts as hitting it, in scene units. */
  thickness: num(0, 1000).default(D.ssr.thickness),
  /** Longest reflected ray, in scene units. */
  maxDistance: num(0, 10000).default(D.ssr.maxDistance),
  /** Ray-march steps (a change recompiles the effect). */
  steps: int(1, 200).default(D.ssr.steps),
});

export const RenderConfig = z.object({
  /** MSAA samples of the scene buffer (the GPU may cap it, usually at 4 or 8). */
  multisampling: int(0, 16).default(D.multisampling),
  smaa: SmaaConfig.prefault({}),
  ssao: SsaoConfig.prefault({}),
  toneMapping: ToneMappingConfig.prefault({}),
  bloom: BloomConfig.prefault({}),
  chromaticAberration: ChromaticAberrationConfig.prefault({}),
  vignette: VignetteConfig.prefault({}),
  ssr: SsrConfig.prefault({}),
});
export type RenderConfig = z.infer<typeof RenderConfig>;
export type RenderConfigInput = z.input<typeof RenderConfig>;

/** The names of the switchable parts of the stack, in the order they act on the picture. */
export const EFFECT_NAMES = ['ssao', 'ssr', 'bloom', 'toneMapping', 'smaa', 'chromaticAberration', 'vignette'] as const;
export type EffectName = (typeof EFFECT_NAMES)[number];

/** A partial change: any subset of the sections and of their fields. */
export type RenderConfigPatch = { multisampling?: number } & { [K in Exclude<keyof RenderConfig, 'multisampling'>]?: Partial<RenderConfig[K]> };

/** A section's fields, each optional and without its default (a change names only what changes), unknown fields refused. */
function sectionChange(section: z.ZodObject): z.ZodObject {
  return z.strictObject(
    Object.fromEntries(Object.entries(section.shape).map(([key, field]) => [key, (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field).optional()])),
  );
}

/**
 * The schema of a RenderConfigPatch (the host API's setPostProcessing): the same fields and ranges
 * as RenderConfig, every one optional and without defaults, unknown sections and fields refused,
 * so an error names the field at fault ('bloom.intensity: Too big: ...') before anything changes.
 */
export const RenderConfigChange = z.strictObject({
  multisampling: RenderConfig.shape.multisampling.unwrap().optional(),
  smaa: sectionChange(SmaaConfig).optional(),
  ssao: sectionChange(SsaoFields).optional(),
  toneMapping: sectionChange(ToneMappingConfig).optional(),
  bloom: sectionChange(BloomConfig).optional(),
  chromaticAberration: sectionChange(ChromaticAberrationConfig).optional(),
  vignette: sectionChange(VignetteConfig).optional(),
  ssr: sectionChange(SsrConfig).optional(),
}) as unknown as z.ZodType<RenderConfigPatch, RenderConfigPatch>;

export function defaultRenderConfig(): RenderConfig {
  return RenderConfig.parse({});
}

/**
 * Merges a partial change into a full config and validates the result. Changing `ssao.quality`
 * without giving aoSamples, denoiseSamples or denoiseRadius takes them from the new preset.
 * Throws a ZodError naming the bad field.
 */
export function mergeRenderConfig(current: RenderConfig, patch: RenderConfigPatch): RenderConfig {
  const next: Record<string, unknown> = { ...current };
  if (patch.multisampling !== undefined) next.multisampling = patch.multisampling;
  for (const key of Object.keys(patch) as (keyof RenderConfigPatch)[]) {
    if (key === 'multisampling') continue;
    const change = patch[key];
    if (change === undefined) continue;
    if (typeof change !== 'object' || change === null) {
      next[key] = change; // let the schema say what is wrong
      continue;
    }
    const base: Record<string, unknown> = { ...current[key] };
    if (key === 'ssao' && 'quality' in change && change.quality !== undefined) {
      delete base.aoSamples;
      delete base.denoiseSamples;
      delete base.denoiseRadius;
    }
    next[key] = { ...base, ...stripUndefined(change as Record<string, unknown>) };
  }
  return RenderConfig.parse(next);
}

/** A one-line description of a validation failure: 'smaa.searchSteps: Too big: ...'. */
export function describeRenderConfigError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
