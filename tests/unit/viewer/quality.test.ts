import { describe, expect, it } from 'vitest';
import { STUDIO_PREFILTERED_SIZE } from '../../../src/protocol/environment';
import {
  applyDeviceOverride,
  benchmarkNeeded,
  benchmarkPoints,
  benchmarkScore,
  cpuScore,
  detectDeviceKind,
  detectQuality,
  effectiveMemory,
  gpuScore,
  isSoftwareRenderer,
  memoryScore,
  parseQualityTier,
  scoreQuality,
  settingsForTier,
  takeEarlyProbe,
  tierForScore,
  type DeviceFacts,
} from '../../../src/viewer/quality';

/** The quality tier score of the viewer specification, section 9, row by row. */

describe('CPU: 5, 10, 15, 20 for fewer than 4, 4, 6, 12 cores', () => {
  it.each([
    [1, 5],
    [2, 5],
    [3, 5],
    [4, 10],
    [5, 10],
    [6, 15],
    [8, 15],
    [11, 15],
    [12, 20],
    [16, 20],
    [64, 20],
  ])('%i cores -> %i', (cores, score) => {
    expect(cpuScore(cores)).toBe(score);
  });
  it('an unreported core count counts as 4', () => {
    expect(cpuScore(undefined)).toBe(10);
    expect(cpuScore(0)).toBe(10);
    expect(cpuScore(Number.NaN)).toBe(10);
  });
});

describe('memory: 5, 15, 25 for under 4, 4, 8 GB', () => {
  it.each([
    [0.25, 5],
    [0.5, 5],
    [1, 5],
    [2, 5],
    [3.9, 5],
    [4, 15],
    [6, 15],
    [7.9, 15],
    [8, 25],
    [16, 25],
    [32, 25],
  ])('%f GB -> %i', (gb, score) => {
    expect(memoryScore(gb)).toBe(score);
  });
  it('unreported memory counts as 4 GB, and as 8 GB on Safari', () => {
    expect(memoryScore(undefined)).toBe(15);
    expect(effectiveMemory({ memoryGb: undefined, device: null })).toBeUndefined();
    expect(memoryScore(effectiveMemory({ memoryGb: undefined, device: 'safari' }))).toBe(25);
    expect(effectiveMemory({ memoryGb: 2, device: 'safari' })).toBe(2);
  });
});

describe('GPU: texture size >= 4096 gives 10, >= 8192 gives 20, float target +10, at most 30', () => {
  it.each([
    [2048, false, 0],
    [2048, true, 10],
    [4095, false, 0],
    [4096, false, 10],
    [4096, true, 20],
    [8191, true, 20],
    [8192, false, 20],
    [8192, true, 30],
    [16384, true, 30],
    [32768, true, 30],
  ])('max texture %i, float target %s -> %i', (maxTextureSize, floatRenderTarget, score) => {
    expect(gpuScore({ maxTextureSize, floatRenderTarget })).toBe(score);
  });
  it('a software rasteriser scores 0', () => {
    expect(gpuScore({ maxTextureSize: 8192, floatRenderTarget: true, softwareRenderer: true })).toBe(0);
  });
});

describe('benchmark: up to 20 from a partial score of 30, fixed 20 from 60', () => {
  it('runs only between 30 and 60', () => {
    expect(benchmarkNeeded(29)).toBe(false);
    expect(benchmarkNeeded(30)).toBe(true);
    expect(benchmarkNeeded(59)).toBe(true);
    expect(benchmarkNeeded(60)).toBe(false);
  });
  it('scores 0 below 30 whatever the GPU did, and 20 from 60 without a measurement', () => {
    expect(benchmarkScore(29, 1e12)).toBe(0);
    expect(benchmarkScore(0, null)).toBe(0);
    expect(benchmarkScore(60, null)).toBe(20);
    expect(benchmarkScore(75, 1)).toBe(20);
  });
  it('measures between 30 and 60, logarithmically from 1e6 to 1e9 iterations per ms', () => {
    expect(benchmarkScore(30, null)).toBe(0);
    expect(benchmarkScore(45, 2e5)).toBe(0);
    expect(benchmarkPoints(1e6)).toBe(0);
    expect(benchmarkPoints(1e7)).toBe(7);
    expect(benchmarkPoints(Math.sqrt(1e6 * 1e9))).toBe(10);
    expect(benchmarkPoints(1e8)).toBe(13);
    expect(benchmarkPoints(1e9)).toBe(20);
    expect(benchmarkPoints(1e12)).toBe(20);
    expect(benchmarkPoints(Number.NaN)).toBe(0);
    expect(benchmarkScore(59, 1e9)).toBe(20);
  });
  it('never exceeds 20 and never goes down as the GPU gets faster', () => {
    let last = 0;
    for (let e = 4; e <= 11; e += 0.25) {
      const p = benchmarkPoints(10 ** e);
      expect(p).toBeGreaterThanOrEqual(last);
      expect(p).toBeLessThanOrEqual(20);
      last = p;
    }
  });
});

describe('tiers: >= 80 high, >= 50 medium, else low', () => {
  it.each([
    [0, 'low'],
    [49, 'low'],
    [50, 'medium'],
    [79, 'medium'],
    [80, 'high'],
    [95, 'high'],
  ] as const)('%i -> %s', (total, tier) => {
    expect(tierForScore(total)).toBe(tier);
  });
});

describe('the whole table', () => {
  const facts = (f: Partial<DeviceFacts>): DeviceFacts => ({ maxTextureSize: 8192, floatRenderTarget: true, softwareRenderer: false, device: null, ...f });

  it('every combination of the rows adds up and picks the tier of its total', () => {
    const coreRows = [2, 4, 6, 12];
    const memoryRows = [2, 4, 8];
    const gpuRows: [number, boolean][] = [
      [2048, false],
      [4096, false],
      [4096, true],
      [8192, false],
      [8192, true],
    ];
    const throughputs = [null, 1e5, 1e7, 1e9];
    let cases = 0;
    for (const cores of coreRows)
      for (const memoryGb of memoryRows)
        for (const [maxTextureSize, floatRenderTarget] of gpuRows)
          for (const throughput of throughputs) {
            let ran = false;
            const s = scoreQuality(facts({ cores, memoryGb, maxTextureSize, floatRenderTarget }), () => {
              ran = true;
              return throughput;
            });
            const partial = cpuScore(cores) + memoryScore(memoryGb) + gpuScore({ maxTextureSize, floatRenderTarget });
            expect(s.partial).toBe(partial);
            expect(ran).toBe(partial >= 30 && partial < 60);
            expect(s.benchmark).toBe(partial >= 60 ? 20 : partial >= 30 && throughput !== null ? benchmarkPoints(throughput) : 0);
            expect(s.total).toBe(partial + s.benchmark);
            expect(s.tier).toBe(s.total >= 80 ? 'high' : s.total >= 50 ? 'medium' : 'low');
            cases++;
          }
    expect(cases).toBe(4 * 3 * 5 * 4);
  });

  it('examples: a desktop is high, a mid phone medium, an old laptop low, SwiftShader low', () => {
    const desktop = scoreQuality(facts({ cores: 12, memoryGb: 8 }), () => null);
    expect(desktop).toMatchObject({ cpu: 20, memory: 25, gpu: 30, partial: 75, benchmark: 20, benchmarkRan: false, total: 95, tier: 'high' });
    const laptop = scoreQuality(facts({ cores: 4, memoryGb: 8 }), () => null);
    expect(laptop).toMatchObject({ partial: 65, total: 85, tier: 'high' });
    const phone = scoreQuality(facts({ cores: 8, memoryGb: 4, maxTextureSize: 4096, device: 'android' }), () => 1e8);
    expect(phone).toMatchObject({ partial: 50, benchmark: 13, total: 63, scoredTier: 'medium', tier: 'medium' });
    const old = scoreQuality(facts({ cores: 2, memoryGb: 2, maxTextureSize: 4096, floatRenderTarget: false }), () => 1e9);
    expect(old).toMatchObject({ partial: 20, benchmark: 0, benchmarkRan: false, tier: 'low' });
    let ran = false;
    const swiftshader = scoreQuality(facts({ cores: 2, memoryGb: 16, softwareRenderer: true }), () => {
      ran = true;
      return 1e9;
    });
    expect(swiftshader).toMatchObject({ gpu: 0, partial: 30, benchmarkRan: false, benchmark: 0, total: 30, tier: 'low' });
    expect(ran, 'no benchmark on a software rasteriser').toBe(false);
    // Even with the most cores and memory, a software rasteriser stays low.
    expect(scoreQuality(facts({ cores: 64, memoryGb: 64, softwareRenderer: true }), () => 1e9).tier).toBe('low');
  });
});

describe('device overrides', () => {
  it('cap iPhone, iPad and Android at medium; leave Safari and others alone', () => {
    for (const device of ['iphone', 'ipad', 'android'] as const) {
      expect(applyDeviceOverride('high', device)).toBe('medium');
      expect(applyDeviceOverride('medium', device)).toBe('medium');
      expect(applyDeviceOverride('low', device)).toBe('low');
    }
    expect(applyDeviceOverride('high', 'safari')).toBe('high');
    expect(applyDeviceOverride('high', null)).toBe('high');
  });

  it('a strong iPad scores high and is shown at medium', () => {
    const s = scoreQuality({ cores: 8, maxTextureSize: 16384, floatRenderTarget: true, softwareRenderer: false, device: 'ipad' }, () => null);
    expect(s.scoredTier).toBe('high');
    expect(s.tier).toBe('medium');
  });

  it('Safari without deviceMemory can reach high', () => {
    const s = scoreQuality({ cores: 8, maxTextureSize: 16384, floatRenderTarget: true, softwareRenderer: false, device: 'safari' }, () => null);
    expect(s).toMatchObject({ memory: 25, partial: 70, tier: 'high' });
  });

  it('detects the devices from the user agent', () => {
    const ua = {
      iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
      ipadAsMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
      android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
      macChrome: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
      iosChrome: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0 Mobile/15E148 Safari/604.1',
      firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
    };
    expect(detectDeviceKind(ua.iphone)).toBe('iphone');
    expect(detectDeviceKind(ua.iosChrome)).toBe('iphone');
    expect(detectDeviceKind(ua.ipad)).toBe('ipad');
    expect(detectDeviceKind(ua.ipadAsMac, 'MacIntel', 5)).toBe('ipad');
    expect(detectDeviceKind(ua.ipadAsMac, 'MacIntel', 0)).toBe('safari');
    expect(detectDeviceKind(ua.android)).toBe('android');
    expect(detectDeviceKind(ua.macChrome, 'MacIntel', 0)).toBeNull();
    expect(detectDeviceKind(ua.firefox)).toBeNull();
    expect(detectDeviceKind(ua.edge)).toBeNull();
  });

  it('recognises software rasterisers by name', () => {
    expect(isSoftwareRenderer('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)')).toBe(true);
    expect(isSoftwareRenderer('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftwareRenderer('ANGLE (Microsoft, Microsoft Basic Render Driver Direct3D11 vs_5_0 ps_5_0)')).toBe(true);
    expect(isSoftwareRenderer('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0, D3D11)')).toBe(false);
    expect(isSoftwareRenderer('Apple GPU')).toBe(false);
    expect(isSoftwareRenderer(null)).toBe(false);
  });
});

describe('settings per tier', () => {
  it('pixel ratio 1 / 1.5 / min(device, 2); antialiasing only on low; post-processing off on low', () => {
    expect(settingsForTier('low', 3)).toEqual({ tier: 'low', pixelRatio: 1, antialias: true, postProcessing: false, environmentSize: 128, textureLimit: 1024, shadowMapSize: 1024, pointLightShadows: false });
    expect(settingsForTier('medium', 3)).toEqual({ tier: 'medium', pixelRatio: 1.5, antialias: false, postProcessing: true, environmentSize: 256, textureLimit: null, shadowMapSize: 2048, pointLightShadows: true });
    expect(settingsForTier('high', 3)).toEqual({ tier: 'high', pixelRatio: 2, antialias: false, postProcessing: true, environmentSize: 256, textureLimit: null, shadowMapSize: 4192, pointLightShadows: true });
    expect(settingsForTier('high', 1.25).pixelRatio).toBe(1.25);
    expect(settingsForTier('high', 1).pixelRatio).toBe(1);
    expect(settingsForTier('high', Number.NaN).pixelRatio).toBe(1);
  });
});

describe('forcing a tier', () => {
  it('parses ?quality= values', () => {
    expect(parseQualityTier('low')).toBe('low');
    expect(parseQualityTier(' Medium ')).toBe('medium');
    expect(parseQualityTier('HIGH')).toBe('high');
    expect(parseQualityTier('ultra')).toBeNull();
    expect(parseQualityTier('')).toBeNull();
    expect(parseQualityTier(null)).toBeNull();
  });
  it('a forced tier skips the detection', () => {
    const d = detectQuality({ forced: 'medium', devicePixelRatio: 2 });
    expect(d.forced).toBe(true);
    expect(d.score).toBeNull();
    expect(d.settings).toEqual(settingsForTier('medium', 2));
  });
  it('without a browser (no document) the detection still answers: no WebGL2 is low', () => {
    const d = detectQuality({ devicePixelRatio: 1 });
    expect(d.forced).toBe(false);
    expect(d.score?.gpu).toBe(0);
    expect(d.settings.tier).toBe('low');
  });
});

/** A stand-in for index.html's early probe context: answers what the detection asks. */
function fakeProbe(options: { lost?: boolean; maxTextureSize?: number } = {}) {
  const calls = { lose: 0, parameters: 0 };
  const gl = {
    MAX_TEXTURE_SIZE: 0x0d33,
    RENDERER: 0x1f01,
    isContextLost: () => options.lost === true,
    getParameter(name: number) {
      calls.parameters++;
      // A software rasteriser: the table needs no benchmark (which this stand-in cannot draw).
      return name === 0x0d33 ? (options.maxTextureSize ?? 8192) : 'Google SwiftShader';
    },
    getExtension(name: string) {
      if (name === 'WEBGL_lose_context') return { loseContext: () => void calls.lose++ };
      if (name === 'EXT_color_buffer_float') return {};
      return null;
    },
  };
  (globalThis as { __earlyProbe?: unknown }).__earlyProbe = { canvas: {}, gl, ms: 12.5 };
  return calls;
}

describe("index.html's early probe context", () => {
  it('the detection takes it once, asks it for the facts and loses it at the end', () => {
    const calls = fakeProbe({ maxTextureSize: 8192 });
    const d = detectQuality({ devicePixelRatio: 1 });
    expect(d.earlyProbeMs).toBe(12.5);
    expect(d.gpuName).toBe('Google SwiftShader');
    expect(d.facts).toMatchObject({ maxTextureSize: 8192, floatRenderTarget: true, softwareRenderer: true });
    expect(calls.lose).toBe(1);
    expect(takeEarlyProbe()).toBeNull();
    // Taken: null stays behind, so index.html's script opens no probe after the app detected.
    expect((globalThis as { __earlyProbe?: unknown }).__earlyProbe).toBeNull();
    // No second take: without a document there is no context at all.
    expect(detectQuality({ devicePixelRatio: 1 }).facts).toMatchObject({ maxTextureSize: 0, floatRenderTarget: false });
  });
  it('a lost probe is not used', () => {
    const calls = fakeProbe({ lost: true });
    expect(takeEarlyProbe()).toBeNull();
    expect(calls.parameters).toBe(0);
  });
  it('a forced tier loses the probe it does not need', () => {
    const calls = fakeProbe();
    expect(detectQuality({ forced: 'high', devicePixelRatio: 1 }).forced).toBe(true);
    expect(calls.lose).toBe(1);
    expect(calls.parameters).toBe(0);
  });
});

describe("the low tier's studio", () => {
  it('is the size prefiltered at build time (otherwise the low tier would prefilter it on its GPU again)', () => {
    expect(settingsForTier('low', 1).environmentSize).toBe(STUDIO_PREFILTERED_SIZE);
  });
});
