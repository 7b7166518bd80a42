import { HIGH_TIER_SCORE, LOW_PIXEL_RATIO, MAX_PIXEL_RATIO, MEDIUM_PIXEL_RATIO, MEDIUM_TIER_SCORE } from '../protocol/constants';
import { SHADOW_MAP_SIZE } from '../protocol/scene-settings';
import { BENCHMARK_SIZE, PROBE_ATTRIBUTES, tierTextureLimit, type QualityTier } from './quality-tier';
/**
 * Quality tiers (viewer specification section 9): a score from the CPU, the memory, the GPU and a
 * GPU micro-benchmark chooses low, medium or high, which set the pixel ratio, antialiasing and
 * whether post-processing runs. The score functions are pure (tests/unit/viewer/quality.test.ts
 * covers the whole table); `detectQuality` gathers the facts in the browser, before the renderer
 * exists (antialiasing is fixed when a WebGL context is created), on a small probe canvas of its own.
 *
 * The table:
 * - CPU (navigator.hardwareConcurrency): 5 below 4 cores, 10 from 4, 15 from 6, 20 from 12.
 * - Memory (navigator.deviceMemory, GB): 5 below 4, 15 from 4, 25 from 8.
 * - GPU: max texture size >= 4096 gives 10, >= 8192 gives 20; a renderable float target
 *   (EXT_color_buffer_float) adds 10; at most 30.
 * - Benchmark: run only when the partial score (CPU + memory + GPU) is >= 30, worth up to 20;
 *   a partial score >= 60 gets the full 20 without running it.
 * - Total >= 80 is high, >= 50 medium, otherwise low.
 *
 * Decisions the specification leaves open:
 * - Missing facts: a browser without navigator.deviceMemory (Firefox, Safari) counts as 4 GB, one
 *   without hardwareConcurrency as 4 cores.
 * - Device overrides, applied after the score (a forced tier beats them all):
 *   - iPhone: at most medium. Phones render at a device ratio of 3 and Safari kills tabs that use
 *     much memory; WebKit reports neither memory nor the real core count, so the score alone
 *     cannot tell a phone from a desktop.
 *   - iPad (also when iPadOS presents itself as a Mac: 'MacIntel' with touch points): at most
 *     medium, for the same reasons, with large 2x screens.
 *   - Android: at most medium. Chrome on Android reports cores and memory, so weak phones still
 *     score low; strong ones get post-processing at 1.5x instead of 2x.
 *   - Safari on macOS: no deviceMemory there, so memory counts as 8 GB (the Macs that run a
 *     current Safari have at least that) instead of the 4 GB guess; the score decides.
 *   - Software rasterisers (SwiftShader, llvmpipe, softpipe, Microsoft Basic Render Driver): the GPU
 *     scores 0, because it is the CPU drawing, and the benchmark does not run (it would time the
 *     CPU, after compiling its shader on it): it scores 0. The table then decides; always low, as
 *     CPU 20 + memory 25 stays below 50.
 * - The benchmark (about 1 to 25 ms): a fragment shader loop drawn on a 128 x 128 canvas, repeated
 *   (x4 each round) until one round takes 2 ms or the time budget is spent; the score is the
 *   logarithm of the loop iterations per millisecond between 1e6 (0 points) and 1e9 (20 points):
 *   SwiftShader on 2 cores gets about 2e5 (0 points), an integrated laptop GPU roughly 1e7..1e8.
 */

export { BENCHMARK_SIZE, parseQualityTier, PROBE_ATTRIBUTES, QUALITY_TIERS, tierTextureLimit, type QualityTier } from './quality-tier';

/** The benchmark runs from this partial score on ... */
export const BENCHMARK_MIN_PARTIAL = 30;
/** ... and is not needed from this one on: it scores BENCHMARK_MAX_POINTS. */
export const BENCHMARK_FIXED_PARTIAL = 60;
export const BENCHMARK_MAX_POINTS = 20;
export const GPU_MAX_POINTS = 30;
/** Loop iterations per millisecond worth 0 and BENCHMARK_MAX_POINTS benchmark points. */
export const BENCHMARK_SLOW = 1e6;
export const BENCHMARK_FAST = 1e9;
/** Guesses for facts a browser does not tell. */
export const UNKNOWN_CORES = 4;
export const UNKNOWN_MEMORY_GB = 4;
export const SAFARI_MEMORY_GB = 8;

export type DeviceKind = 'iphone' | 'ipad' | 'android' | 'safari';

/** Everything the score is computed from. */
export interface DeviceFacts {
  /** navigator.hardwareConcurrency; undefined when not reported. */
  cores?: number;
  /** navigator.deviceMemory in GB; undefined when not reported. */
  memoryGb?: number;
  /** MAX_TEXTURE_SIZE of a WebGL2 context; 0 without WebGL2. */
  maxTextureSize: number;
  /** EXT_color_buffer_float is available. */
  floatRenderTarget: boolean;
  /** The GPU is a software rasteriser. */
  softwareRenderer: boolean;
  device: DeviceKind | null;
}

export interface QualityScore {
  cpu: number;
  memory: number;
  gpu: number;
  /** cpu + memory + gpu */
  partial: number;
  benchmark: number;
  /** Whether the benchmark ran (30 <= partial < 60, and not on a software rasteriser). */
  benchmarkRan: boolean;
  /** Loop iterations per millisecond, when it ran. */
  benchmarkThroughput: number | null;
  total: number;
  /** The tier of the total, before device overrides. */
  scoredTier: QualityTier;
  /** The tier after device overrides. */
  tier: QualityTier;
}

export interface QualitySettings {
  tier: QualityTier;
  pixelRatio: number;
  /** Antialiasing of the default framebuffer: only on low (medium and high use SMAA). */
  antialias: boolean;
  postProcessing: boolean;
  /**
   * Face size in pixels of the default environment's prefiltered cube. Prefiltering costs in
   * proportion to its area and runs before the first frame: the low tier (software rasterisers,
   * weak phones) halves it, which a neutral studio's soft reflections hide.
   */
  environmentSize: number;
  /**
   * Largest side in pixels of a model's textures: larger images are halved until they fit, as
   * they are decoded (src/scene/texture-limit.ts). Null: textures as the model has them. The low tier takes
   * 1024: its pixel ratio is 1, so a 1024 px texture still has more texels than the screen has
   * pixels for a model in view, and a software rasteriser uploads a 2048 px one in about half a
   * second (a quarter of the texels, a quarter of the upload and of the mipmaps).
   */
  textureLimit: number | null;
  /**
   * Side of the sun's shadow map. The specification's 4192 on high; a map of that size costs about
   * 1.5 s to allocate and clear on a software rasteriser before anything is drawn, so medium takes
   * 2048 and low 1024 (over the same shadow box: softer shadows, the same shapes).
   */
  shadowMapSize: number;
  /**
   * Whether point lights may cast shadows (six cube faces each, every face a pass over the whole
   * scene): off on low, where one point light's shadow cost more than everything else in the first
   * picture of the warehouse.
   */
  pointLightShadows: boolean;
}

export interface QualityDetection {
  settings: QualitySettings;
  /** null when the tier was forced (no detection ran). */
  score: QualityScore | null;
  facts: DeviceFacts | null;
  forced: boolean;
  /** How long the detection took, in milliseconds. */
  ms: number;
  /** The GPU's name, when the browser tells it. */
  gpuName: string | null;
  /**
   * How long index.html's early probe context took to open (off the way to the first picture), when
   * the detection used it (takeEarlyProbe); null when the detection opened its own (its time is in `ms`).
   */
  earlyProbeMs: number | null;
}

// ---- the score table (pure) ---------------------------------------------------------------

export function cpuScore(cores: number | undefined): number {
  const n = cores === undefined || !Number.isFinite(cores) || cores <= 0 ? UNKNOWN_CORES : cores;
  if (n >= 12) return 20;
  if (n >= 6) return 15;
  if (n >= 4) return 10;
  return 5;
}

export function memoryScore(gb: number | undefined): number {
  const m = gb === undefined || !Number.isFinite(gb) || gb <= 0 ? UNKNOWN_MEMORY_GB : gb;
  if (m >= 8) return 25;
  if (m >= 4) return 15;
  return 5;
}

export function gpuScore(gpu: { maxTextureSize: number; floatRenderTarget: boolean; softwareRenderer?: boolean }): number {
  if (gpu.softwareRenderer) return 0;
  let score = 0;
  if (gpu.maxTextureSize >= 8192) score = 20;
  else if (gpu.maxTextureSize >= 4096) score = 10;
  if (gpu.floatRenderTarget) score += 10;
  return Math.min(score, GPU_MAX_POINTS);
}

/** Whether the benchmark is worth running for this partial score. */
export function benchmarkNeeded(partial: number): boolean {
  return partial >= BENCHMARK_MIN_PARTIAL && partial < BENCHMARK_FIXED_PARTIAL;
}

/** 0..20 points for a throughput in loop iterations per millisecond (logarithmic). */
export function benchmarkPoints(throughput: number): number {
  if (!(throughput > BENCHMARK_SLOW)) return 0;
  const t = Math.log(throughput / BENCHMARK_SLOW) / Math.log(BENCHMARK_FAST / BENCHMARK_SLOW);
  return Math.round(Math.min(t, 1) * BENCHMARK_MAX_POINTS);
}

/** The benchmark's share of the score: 0 below 30, measured from 30, fixed 20 from 60. */
export function benchmarkScore(partial: number, throughput: number | null): number {
  if (partial >= BENCHMARK_FIXED_PARTIAL) return BENCHMARK_MAX_POINTS;
  if (partial < BENCHMARK_MIN_PARTIAL || throughput === null) return 0;
  return benchmarkPoints(throughput);
}

export function tierForScore(total: number): QualityTier {
  if (total >= HIGH_TIER_SCORE) return 'high';
  if (total >= MEDIUM_TIER_SCORE) return 'medium';
  return 'low';
}

/** Memory as the score sees it: Safari's missing deviceMemory counts as 8 GB. */
export function effectiveMemory(facts: Pick<DeviceFacts, 'memoryGb' | 'device'>): number | undefined {
  if (facts.memoryGb === undefined && facts.device === 'safari') return SAFARI_MEMORY_GB;
  return facts.memoryGb;
}

const TIER_RANK: Record<QualityTier, number> = { low: 0, medium: 1, high: 2 };

/** The device overrides: iPhone, iPad and Android are capped at medium. */
export function applyDeviceOverride(tier: QualityTier, device: DeviceKind | null): QualityTier {
  if (device === 'iphone' || device === 'ipad' || device === 'android') return TIER_RANK[tier] > TIER_RANK.medium ? 'medium' : tier;
  return tier;
}

/**
 * The whole score. `runBenchmark` is called only when the partial score asks for it and returns
 * loop iterations per millisecond (null when it could not run).
 */
export function scoreQuality(facts: DeviceFacts, runBenchmark: () => number | null): QualityScore {
  const cpu = cpuScore(facts.cores);
  const memory = memoryScore(effectiveMemory(facts));
  const gpu = gpuScore(facts);
  const partial = cpu + memory + gpu;
  // A software rasteriser's benchmark would time the CPU, and compiling its shader there is slow.
  const ran = benchmarkNeeded(partial) && !facts.softwareRenderer;
  const throughput = ran ? runBenchmark() : null;
  const benchmark = benchmarkScore(partial, throughput);
  const total = partial + benchmark;
  const scoredTier = tierForScore(total);
  return {
    cpu,
    memory,
    gpu,
    partial,
    benchmark,
    benchmarkRan: ran && throughput !== null,
    benchmarkThroughput: throughput,
    total,
    scoredTier,
    tier: applyDeviceOverride(scoredTier, facts.device),
  };
}

/** Face size of the default environment's prefiltered cube (three's PMREMGenerator default). */
export const ENVIRONMENT_SIZE = 256;
export const LOW_ENVIRONMENT_SIZE = 128;
/** The sun's shadow map on the medium and low tiers (high has the specification's SHADOW_MAP_SIZE, 4192). */
export const MEDIUM_SHADOW_MAP_SIZE = 2048;
export const LOW_SHADOW_MAP_SIZE = 1024;
export { LOW_TEXTURE_LIMIT } from '../protocol/constants';

/** Pixel ratio, antialiasing, post-processing and environment size of a tier. */
export function settingsForTier(tier: QualityTier, devicePixelRatio: number): QualitySettings {
  const dpr = Number.isFinite(devicePixelRatio) && devicePixelRatio > 0 ? devicePixelRatio : 1;
  switch (tier) {
    case 'low':
      return { tier, pixelRatio: LOW_PIXEL_RATIO, antialias: true, postProcessing: false, environmentSize: LOW_ENVIRONMENT_SIZE, textureLimit: tierTextureLimit(tier), shadowMapSize: LOW_SHADOW_MAP_SIZE, pointLightShadows: false };
    case 'medium':
      return { tier, pixelRatio: MEDIUM_PIXEL_RATIO, antialias: false, postProcessing: true, environmentSize: ENVIRONMENT_SIZE, textureLimit: tierTextureLimit(tier), shadowMapSize: MEDIUM_SHADOW_MAP_SIZE, pointLightShadows: true };
    case 'high':
      return { tier, pixelRatio: Math.min(dpr, MAX_PIXEL_RATIO), antialias: false, postProcessing: true, environmentSize: ENVIRONMENT_SIZE, textureLimit: tierTextureLimit(tier), shadowMapSize: SHADOW_MAP_SIZE, pointLightShadows: true };
  }
}

/** Which overridden device a browser is, from its user agent, platform and touch points. */
export function detectDeviceKind(userAgent: string, platform = '', maxTouchPoints = 0): DeviceKind | null {
  if (/iPhone|iPod/.test(userAgent)) return 'iphone';
  if (/iPad/.test(userAgent) || (platform === 'MacIntel' && maxTouchPoints > 1)) return 'ipad';
  if (/Android/i.test(userAgent)) return 'android';
  // Safari's user agent says Safari and Version/ but none of the Chromium or Firefox tokens.
  if (/Safari\//.test(userAgent) && /Version\//.test(userAgent) && !/Chrome|Chromium|CriOS|FxiOS|Edg|OPR|Firefox/.test(userAgent)) return 'safari';
  return null;
}

/** Software rasterisers, by the renderer name WebGL reports. */
export function isSoftwareRenderer(name: string | null): boolean {
  return !!name && /SwiftShader|llvmpipe|softpipe|Software Rasterizer|Basic Render Driver|Mesa OffScreen/i.test(name);
}

// ---- detection in the browser -------------------------------------------------------------

/** The benchmark's time budget: it stops after this many milliseconds whatever it measured. */
export const BENCHMARK_BUDGET_MS = 25;
/** A round this long is a measurement worth keeping. */
const BENCHMARK_ROUND_MS = 2;
const BENCHMARK_LOOP = 32;

const BENCH_VERTEX = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

const BENCH_FRAGMENT = `#version 300 es
precision highp float;
uniform int loops;
uniform float seed;
out vec4 color;
void main() {
  float x = gl_FragCoord.x * 0.01 + seed;
  float y = gl_FragCoord.y * 0.01;
  for (int i = 0; i < loops; i++) {
    x = fract(sin(x * 12.9898 + y * 78.233) * 43758.5453);
    y = y * 0.5 + x;
  }
  color = vec4(x, y, 0.0, 1.0);
}`;

/** Runs the micro-benchmark on a context; loop iterations per millisecond, or null if it could not run. */
export function runGpuBenchmark(gl: WebGL2RenderingContext, budgetMs = BENCHMARK_BUDGET_MS): number | null {
  const start = performance.now();
  const program = gl.createProgram();
  const vs = gl.createShader(gl.VERTEX_SHADER);
  const fs = gl.createShader(gl.FRAGMENT_SHADER);
  if (!program || !vs || !fs) return null;
  try {
    gl.shaderSource(vs, BENCH_VERTEX);
    gl.compileShader(vs);
    gl.shaderSource(fs, BENCH_FRAGMENT);
    gl.compileShader(fs);
    gl.attachShader(program, vs);
    gl.attachShader(program, fs);
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) return null;
    gl.useProgram(program);
    gl.viewport(0, 0, BENCHMARK_SIZE, BENCHMARK_SIZE);
    const loops = gl.getUniformLocation(program, 'loops');
    const seed = gl.getUniformLocation(program, 'seed');
    const pixel = new Uint8Array(4);
    // Warm-up: the first draw pays for the driver's shader compilation.
    gl.uniform1i(loops, 1);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    gl.uniform1i(loops, BENCHMARK_LOOP);
    let draws = 1;
    let throughput: number | null = null;
    for (;;) {
      const t0 = performance.now();
      for (let d = 0; d < draws; d++) {
        gl.uniform1f(seed, d * 0.37);
        gl.drawArrays(gl.TRIANGLES, 0, 3);
      }
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel); // waits for the GPU
      const t1 = performance.now();
      const ms = Math.max(t1 - t0, 0.001);
      throughput = (draws * BENCHMARK_SIZE * BENCHMARK_SIZE * BENCHMARK_LOOP) / ms;
      if (ms >= BENCHMARK_ROUND_MS || t1 - start >= budgetMs || draws >= 4096) break;
      // Aim the next round at a few milliseconds, growing at most 16x.
      draws *= Math.min(16, Math.max(2, Math.ceil((BENCHMARK_ROUND_MS * 1.5) / ms)));
    }
    return throughput;
  } finally {
    gl.deleteProgram(program);
    gl.deleteShader(vs);
    gl.deleteShader(fs);
  }
}

export interface DetectQualityOptions {
  /** A forced tier (?quality= or the host API): no detection runs. */
  forced?: QualityTier | null;
  devicePixelRatio?: number;
}

interface NavigatorFacts {
  userAgent: string;
  platform?: string;
  maxTouchPoints?: number;
  hardwareConcurrency?: number;
  deviceMemory?: number;
}

export interface EarlyProbe {
  gl: WebGL2RenderingContext;
  /** How long its getContext took. */
  ms: number;
}

/**
 * The probe context index.html opened while the app's code downloaded (the page's first WebGL
 * context, which also opens the channel to the GPU process), taken once; null if there is none
 * (another entry page, a cover, a page that forces its tier, a test) or it was lost meanwhile.
 * Leaves null behind, which tells index.html's script not to open one any more (the app's code may
 * run before it did).
 */
export function takeEarlyProbe(): EarlyProbe | null {
  const holder = globalThis as { __earlyProbe?: { gl?: WebGL2RenderingContext; ms?: number } | null };
  const early = holder.__earlyProbe;
  holder.__earlyProbe = null;
  if (!early?.gl || typeof early.gl.isContextLost !== 'function' || early.gl.isContextLost()) return null;
  return { gl: early.gl, ms: typeof early.ms === 'number' ? early.ms : 0 };
}

/**
 * Detects the tier in the browser (synchronously, before the renderer exists): the navigator's
 * facts, a probe WebGL2 context on a 128 px canvas of its own (index.html's early one when it is
 * there; lost again at the end) and, when the partial score asks for it, the benchmark. Takes a few
 * milliseconds plus the benchmark, and at most about 50 ms. The page's first WebGL context also
 * opens the channel to the browser's GPU process (and the browser's first starts that process),
 * which the renderer would otherwise pay for: index.html opens it early (`earlyProbeMs`).
 */
export function detectQuality(options: DetectQualityOptions = {}): QualityDetection {
  const start = performance.now();
  const dpr = options.devicePixelRatio ?? globalThis.devicePixelRatio ?? 1;
  const early = takeEarlyProbe();
  if (options.forced) {
    early?.gl.getExtension('WEBGL_lose_context')?.loseContext();
    return { settings: settingsForTier(options.forced, dpr), score: null, facts: null, forced: true, ms: performance.now() - start, gpuName: null, earlyProbeMs: null };
  }
  const nav = (globalThis.navigator ?? { userAgent: '' }) as NavigatorFacts;
  let gl = early?.gl ?? null;
  if (!gl && typeof document !== 'undefined') {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = BENCHMARK_SIZE;
    gl = canvas.getContext('webgl2', PROBE_ATTRIBUTES) as WebGL2RenderingContext | null;
  }
  let gpuName: string | null = null;
  try {
    if (gl) {
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      gpuName = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '') || null;
    }
    const facts: DeviceFacts = {
      cores: nav.hardwareConcurrency,
      memoryGb: nav.deviceMemory,
      maxTextureSize: gl ? Number(gl.getParameter(gl.MAX_TEXTURE_SIZE)) || 0 : 0,
      floatRenderTarget: gl ? gl.getExtension('EXT_color_buffer_float') !== null : false,
      softwareRenderer: isSoftwareRenderer(gpuName),
      device: detectDeviceKind(nav.userAgent ?? '', nav.platform ?? '', nav.maxTouchPoints ?? 0),
    };
    const score = scoreQuality(facts, () => (gl ? runGpuBenchmark(gl) : null));
    return { settings: settingsForTier(score.tier, dpr), score, facts, forced: false, ms: performance.now() - start, gpuName, earlyProbeMs: early?.ms ?? null };
  } finally {
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  }
}
