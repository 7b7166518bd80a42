import { PerspectiveCamera, Scene } from 'three';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AO_QUALITY_PRESETS,
  defaultRenderConfig,
  EDGE_DETECTION_MODES,
  KERNEL_SIZES,
  mergeRenderConfig,
  PREDICATION_MODES,
  RENDER_CONFIG_DEFAULTS,
  RenderConfig,
  RenderConfigChange,
  TONE_MAPPING_MODES,
  type RenderConfigInput,
} from '../../../src/protocol/render-config';
import { applyRenderConfig, createEffectStack, disposeEffectStack, readRenderConfig, type EffectStack } from '../../../src/viewer/postprocessing/effects';

/**
 * The saved render config (viewer specification section 3): defaults, validation, and the round
 * trip parse -> apply to the real effects -> read back from them -> the same JSON, for every field.
 * The effects need no WebGL context to be configured, so this runs in Node.
 */

let stacks: EffectStack[] = [];
function stack(): EffectStack {
  const s = createEffectStack(new Scene(), new PerspectiveCamera());
  stacks.push(s);
  return s;
}
afterEach(() => {
  for (const s of stacks) disposeEffectStack(s);
  stacks = [];
});

/** Every field away from its default. */
const ALL_CHANGED: RenderConfigInput = {
  multisampling: 4,
  smaa: {
    enabled: false,
    edgeDetectionMode: 'depth',
    edgeDetectionThreshold: 0.05,
    predicationMode: 'depth',
    predicationScale: 3.5,
    predicationStrength: 0.25,
    predicationThreshold: 0.002,
    searchSteps: 32,
    diagonalDetection: false,
    cornerRounding: 0,
  },
  ssao: { enabled: false, quality: 3, aoSamples: 48, denoiseSamples: 12, denoiseRadius: 9, distanceFalloff: 0.4, intensity: 5 },
  toneMapping: { enabled: false, mode: 'uncharted2' },
  bloom: { enabled: false, intensity: 2.5, threshold: 0.7, smoothing: 0.1, kernelSize: 'huge' },
  chromaticAberration: { enabled: true, offset: [0.004, -0.003] },
  vignette: { enabled: true, offset: 0.1, darkness: 0.9 },
  ssr: { enabled: true, intensity: 0.3, thickness: 0.5, maxDistance: 30, steps: 60 },
};

/**
 * Applies `input` to effects that were first set to ALL_CHANGED (so that every value, defaults
 * included, has to be written to be read back) and reads it back.
 */
function roundTrip(input: RenderConfigInput): { parsed: RenderConfig; back: RenderConfig } {
  const parsed = RenderConfig.parse(input);
  const s = stack();
  applyRenderConfig(s, ALL_CHANGED);
  applyRenderConfig(s, parsed);
  return { parsed, back: readRenderConfig(s) };
}

describe('defaults', () => {
  it('an empty config gets the specification defaults', () => {
    const c = RenderConfig.parse({});
    expect(c.toneMapping).toEqual({ enabled: true, mode: 'acesFilmic' });
    expect(c.bloom).toMatchObject({ intensity: 1, threshold: 0.95, smoothing: 0.5 });
    expect(c.vignette).toMatchObject({ offset: 0.35, darkness: 0.5 });
    expect(c.ssr).toMatchObject({ intensity: 0.6, thickness: 2, maxDistance: 8, steps: 25 });
    expect(c.ssao).toMatchObject({ quality: 2, aoSamples: 16, denoiseSamples: 8, denoiseRadius: 12 });
    expect(c).toEqual(defaultRenderConfig());
  });

  it('the defaults are the named constants, and partial sections keep the other defaults', () => {
    const c = RenderConfig.parse({ bloom: { intensity: 3 }, smaa: {} });
    expect(c.bloom).toEqual({ ...RENDER_CONFIG_DEFAULTS.bloom, intensity: 3 });
    expect(c.smaa).toEqual(RENDER_CONFIG_DEFAULTS.smaa);
    expect(c.multisampling).toBe(RENDER_CONFIG_DEFAULTS.multisampling);
  });

  it('new effects read back exactly the defaults', () => {
    expect(readRenderConfig(stack())).toEqual(defaultRenderConfig());
  });
});

describe('ambient occlusion quality 0..4', () => {
  it('each quality sets its samples and denoise radius (Performance, Low, Medium, High, Ultra)', () => {
    AO_QUALITY_PRESETS.forEach((preset, quality) => {
      expect(RenderConfig.parse({ ssao: { quality } }).ssao).toMatchObject({ quality, ...preset });
    });
    expect(RenderConfig.parse({ ssao: { quality: 4 } }).ssao).toMatchObject({ aoSamples: 64, denoiseSamples: 16, denoiseRadius: 6 });
  });

  it('values given next to a quality win over its preset', () => {
    expect(RenderConfig.parse({ ssao: { quality: 0, aoSamples: 32 } }).ssao).toMatchObject({ quality: 0, aoSamples: 32, denoiseSamples: 4, denoiseRadius: 12 });
  });

  it('changing the quality alone takes the new preset; other changes keep the samples', () => {
    const ultra = mergeRenderConfig(defaultRenderConfig(), { ssao: { quality: 4 } });
    expect(ultra.ssao).toMatchObject({ aoSamples: 64, denoiseSamples: 16, denoiseRadius: 6 });
    const custom = mergeRenderConfig(ultra, { ssao: { aoSamples: 24 } });
    expect(custom.ssao).toMatchObject({ quality: 4, aoSamples: 24, denoiseSamples: 16 });
    const both = mergeRenderConfig(custom, { ssao: { quality: 1, denoiseRadius: 3 } });
    expect(both.ssao).toMatchObject({ quality: 1, aoSamples: 16, denoiseSamples: 4, denoiseRadius: 3 });
  });
});

describe('validation', () => {
  it.each([
    [{ multisampling: -1 }, 'multisampling'],
    [{ multisampling: 2.5 }, 'multisampling'],
    [{ smaa: { edgeDetectionMode: 'edges' } }, 'smaa.edgeDetectionMode'],
    [{ smaa: { searchSteps: 113 } }, 'smaa.searchSteps'],
    [{ smaa: { cornerRounding: 101 } }, 'smaa.cornerRounding'],
    [{ smaa: { predicationMode: 'always' } }, 'smaa.predicationMode'],
    [{ ssao: { quality: 5 } }, 'ssao.quality'],
    [{ ssao: { enabled: 'yes' } }, 'ssao.enabled'],
    [{ toneMapping: { mode: 'filmic' } }, 'toneMapping.mode'],
    [{ bloom: { kernelSize: 'giant' } }, 'bloom.kernelSize'],
    [{ bloom: { smoothing: 2 } }, 'bloom.smoothing'],
    [{ chromaticAberration: { offset: [0.1] } }, 'chromaticAberration.offset'],
    [{ vignette: { darkness: -0.1 } }, 'vignette.darkness'],
    [{ ssr: { steps: 0 } }, 'ssr.steps'],
    [{ ssr: 'on' }, 'ssr'],
  ])('%j is refused at %s', (input, path) => {
    const r = RenderConfig.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it('unknown fields are dropped, not kept', () => {
    expect(RenderConfig.parse({ smaa: { preset: 3 }, extra: 1 })).toEqual(defaultRenderConfig());
  });
});

describe('a change (RenderConfigChange: the host API\'s setPostProcessing)', () => {
  it('keeps only the fields given, with no defaults filled in', () => {
    expect(RenderConfigChange.parse({})).toEqual({});
    expect(RenderConfigChange.parse({ bloom: { enabled: false } })).toEqual({ bloom: { enabled: false } });
    expect(RenderConfigChange.parse({ ssao: { quality: 4 }, multisampling: 4 })).toEqual({ ssao: { quality: 4 }, multisampling: 4 });
    // Rounded as the full config rounds, so what is applied reads back the same.
    expect(RenderConfigChange.parse({ smaa: { edgeDetectionThreshold: 0.1234567 } })).toEqual({ smaa: { edgeDetectionThreshold: 0.123457 } });
    const merged = mergeRenderConfig(defaultRenderConfig(), RenderConfigChange.parse({ bloom: { intensity: 2 } }));
    expect(merged.bloom).toEqual({ ...RENDER_CONFIG_DEFAULTS.bloom, intensity: 2 });
  });

  it.each([
    [{ bloom: { intensity: 200 } }, 'bloom.intensity', /Too big/],
    [{ bloom: { glow: 1 } }, 'bloom', /Unrecognized key: "glow"/],
    [{ sharpen: {} }, '', /Unrecognized key: "sharpen"/],
    [{ ssao: { quality: 5 } }, 'ssao.quality', /Too big/],
    [{ chromaticAberration: { offset: [0.1, 'a'] } }, 'chromaticAberration.offset.1', /expected number/],
    [{ multisampling: 2.5 }, 'multisampling', /expected int/],
    [{ ssr: 'on' }, 'ssr', /expected object/],
  ])('%j is refused at %s, naming it', (input, path, message) => {
    const r = RenderConfigChange.safeParse(input);
    expect(r.success).toBe(false);
    const issue = r.error!.issues.find((i) => i.path.join('.') === path);
    expect(issue, JSON.stringify(r.error!.issues)).toBeDefined();
    expect(issue!.message).toMatch(message);
  });
});

describe('round trip: parse -> apply -> read back -> same JSON', () => {
  it('the defaults', () => {
    const { parsed, back } = roundTrip({});
    expect(JSON.stringify(back)).toBe(JSON.stringify(parsed));
  });

  it('every field changed at once', () => {
    const parsed = RenderConfig.parse(ALL_CHANGED);
    expect(parsed).toEqual(ALL_CHANGED);
    const s = stack();
    applyRenderConfig(s, parsed);
    const back = readRenderConfig(s);
    expect(JSON.stringify(back)).toBe(JSON.stringify(parsed));
    for (const key of Object.keys(parsed) as (keyof RenderConfig)[]) {
      if (key !== 'multisampling') expect(back[key], key).not.toEqual(defaultRenderConfig()[key]);
    }
  });

  // One field at a time, each value of every enumeration: a field the effects dropped or mapped
  // wrongly would show up here even if another field's change hid it above.
  const single: [string, RenderConfigInput][] = [
    ['multisampling', { multisampling: 8 }],
    ...EDGE_DETECTION_MODES.map((m): [string, RenderConfigInput] => [`smaa.edgeDetectionMode ${m}`, { smaa: { edgeDetectionMode: m } }]),
    ...PREDICATION_MODES.map((m): [string, RenderConfigInput] => [`smaa.predicationMode ${m}`, { smaa: { predicationMode: m } }]),
    ['smaa.enabled', { smaa: { enabled: false } }],
    ['smaa.edgeDetectionThreshold (rounded to 6 decimals)', { smaa: { edgeDetectionThreshold: 0.123456789 } }],
    ['smaa.predicationScale', { smaa: { predicationScale: 1.25 } }],
    ['smaa.predicationStrength', { smaa: { predicationStrength: 0.75 } }],
    ['smaa.predicationThreshold', { smaa: { predicationThreshold: 0.3 } }],
    ['smaa.searchSteps', { smaa: { searchSteps: 112 } }],
    ['smaa.diagonalDetection', { smaa: { diagonalDetection: false } }],
    ['smaa.cornerRounding (rounded to 4 decimals)', { smaa: { cornerRounding: 33.333333 } }],
    ...[0, 1, 2, 3, 4].map((q): [string, RenderConfigInput] => [`ssao.quality ${q}`, { ssao: { quality: q } }]),
    ['ssao.enabled', { ssao: { enabled: false } }],
    ['ssao.aoSamples', { ssao: { aoSamples: 7 } }],
    ['ssao.denoiseSamples', { ssao: { denoiseSamples: 3 } }],
    ['ssao.denoiseRadius', { ssao: { denoiseRadius: 4.5 } }],
    ['ssao.distanceFalloff', { ssao: { distanceFalloff: 2.5 } }],
    ['ssao.intensity', { ssao: { intensity: 0.5 } }],
    ...TONE_MAPPING_MODES.map((m): [string, RenderConfigInput] => [`toneMapping.mode ${m}`, { toneMapping: { mode: m } }]),
    ['toneMapping.enabled', { toneMapping: { enabled: false } }],
    ['bloom.enabled', { bloom: { enabled: false } }],
    ['bloom.intensity', { bloom: { intensity: 0 } }],
    ['bloom.threshold', { bloom: { threshold: 1.5 } }],
    ['bloom.smoothing', { bloom: { smoothing: 1 } }],
    ...KERNEL_SIZES.map((k): [string, RenderConfigInput] => [`bloom.kernelSize ${k}`, { bloom: { kernelSize: k } }]),
    ['chromaticAberration.enabled', { chromaticAberration: { enabled: true } }],
    ['chromaticAberration.offset', { chromaticAberration: { offset: [-0.01, 0.02] } }],
    ['vignette.enabled', { vignette: { enabled: true } }],
    ['vignette.offset', { vignette: { offset: 0.9 } }],
    ['vignette.darkness', { vignette: { darkness: 0 } }],
    ['ssr.enabled', { ssr: { enabled: true } }],
    ['ssr.intensity', { ssr: { intensity: 1 } }],
    ['ssr.thickness', { ssr: { thickness: 0.05 } }],
    ['ssr.maxDistance', { ssr: { maxDistance: 100 } }],
    ['ssr.steps', { ssr: { steps: 7 } }],
  ];
  it.each(single)('%s', (_name, input) => {
    const { parsed, back } = roundTrip(input);
    expect(JSON.stringify(back)).toBe(JSON.stringify(parsed));
  });

  it('a read-back config parses to itself (it can be saved as is)', () => {
    const s = stack();
    applyRenderConfig(s, { ssao: { quality: 0 }, bloom: { kernelSize: 'small' }, smaa: { cornerRounding: 12.5 } });
    const back = readRenderConfig(s);
    expect(RenderConfig.parse(JSON.parse(JSON.stringify(back)))).toEqual(back);
  });

  it('applying reports whether the set of enabled effects changed', () => {
    const s = stack();
    expect(applyRenderConfig(s, {})).toBe(false);
    expect(applyRenderConfig(s, { bloom: { intensity: 2 } })).toBe(false);
    expect(applyRenderConfig(s, { vignette: { enabled: true } })).toBe(true);
    expect(applyRenderConfig(s, { vignette: { enabled: true }, ssao: { quality: 4 } })).toBe(false);
  });
});
