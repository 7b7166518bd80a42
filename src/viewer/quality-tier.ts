import { LOW_TEXTURE_LIMIT } from '../protocol/constants';

/**
 * The parts of the quality tiers (src/viewer/quality.ts) that index.html's boot script
 * (src/viewer/early-boot.ts) shares with the app: a forced tier's name and texture limit, and the
 * probe context's size and attributes. Imports only constants: the compiled script stays small.
 */

export type QualityTier = 'low' | 'medium' | 'high';
export const QUALITY_TIERS: readonly QualityTier[] = ['low', 'medium', 'high'];

/** 'low' | 'medium' | 'high' (any case, trimmed) or null. */
export function parseQualityTier(value: string | null | undefined): QualityTier | null {
  const v = value?.trim().toLowerCase();
  return v === 'low' || v === 'medium' || v === 'high' ? v : null;
}

/** A tier's largest texture side (QualitySettings.textureLimit): the low tier's LOW_TEXTURE_LIMIT, none above it. */
export function tierTextureLimit(tier: QualityTier): number | null {
  return tier === 'low' ? LOW_TEXTURE_LIMIT : null;
}

/** The probe canvas (and the benchmark's viewport), in pixels a side. */
export const BENCHMARK_SIZE = 128;

/** The probe context's attributes: the smallest context (index.html's early probe asks for the same). */
export const PROBE_ATTRIBUTES: WebGLContextAttributes = {
  antialias: false,
  depth: false,
  stencil: false,
  alpha: false,
  preserveDrawingBuffer: false,
  powerPreference: 'high-performance',
};
