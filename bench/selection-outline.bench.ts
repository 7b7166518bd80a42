import { chromium } from '@playwright/test';
import { resolve } from 'node:path';
import { build, type Rolldown } from 'vite';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import type { OutlineBenchResult } from './selection-outline-page';
import type { BenchResult } from './types';

/**
 * The editor's selection outline (src/editor/selection-outline.ts) against postprocessing's
 * OutlineEffect, per frame at 1280 x 720 in headless Chromium (SwiftShader: the CPU draws, so the
 * absolute figures are far above a GPU's). The page (bench/selection-outline-page.ts, bundled here
 * with Vite) draws a floor, BENCH_OUTLINE_PARTS parts and two selections (one part; an assembly of
 * 40): our outline timed alone right after the low tier's picture and after the post-processing
 * stack's (RenderPass + an EffectPass), the GPU finished before and after it; and what ours and
 * OutlineEffect (in the EffectPass, its defaults: half-resolution mask, x-ray) add to the stack's
 * frame, frames alternating with the stack alone (median of the differences over
 * BENCH_OUTLINE_FRAMES pairs), so the machine's drift cancels out. Ours is compared by its time
 * alone (its addition to a frame of hundreds of milliseconds is within that frame's noise here).
 */
const VIEW = { width: 1280, height: 720 };
const FRAMES = Number(process.env.BENCH_OUTLINE_FRAMES ?? 30);
const PARTS = Number(process.env.BENCH_OUTLINE_PARTS ?? 300);

export default async function run(): Promise<BenchResult[]> {
  const bundle = await build({
    configFile: false,
    logLevel: 'silent',
    root: resolve(import.meta.dirname, '..'),
    build: {
      write: false,
      minify: false,
      lib: { entry: resolve(import.meta.dirname, 'selection-outline-page.ts'), formats: ['iife'], name: 'OutlineBench', fileName: 'outline-bench' },
    },
  });
  const outputs = (Array.isArray(bundle) ? bundle : [bundle]) as Rolldown.RolldownOutput[];
  const code = outputs.flatMap((o) => o.output).find((chunk) => chunk.type === 'chunk')?.code;
  if (!code) throw new Error('the outline bench page did not bundle');

  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: VIEW });
    await page.setContent('<!doctype html><body style="margin:0"></body>');
    await page.addScriptTag({ content: code });
    const rows = await page.evaluate((options) => (window as unknown as { runOutlineBench(o: typeof options): OutlineBenchResult[] }).runOutlineBench(options), { ...VIEW, frames: FRAMES, parts: PARTS });
    const ms = (way: OutlineBenchResult['way'], selection: OutlineBenchResult['selection']) => rows.find((r) => r.way === way && r.selection === selection)!.ms;
    const results: BenchResult[] = [];
    for (const selection of ['small', 'large'] as const) {
      const what = selection === 'small' ? 'one part selected' : 'an assembly of 40 parts selected';
      results.push({ name: `selection outline: ours alone after the low tier's picture (${ms('plain', selection).toFixed(1)} ms), ${VIEW.width}x${VIEW.height}, ${what}`, value: ms('ours-low', selection), unit: 'ms' });
      const ours = ms('ours-stack', selection);
      const theirs = ms('pp-stack-added', selection);
      results.push({
        name: `selection outline: ours alone after the post-processing stack's picture (${ms('stack', selection).toFixed(1)} ms) against what postprocessing's OutlineEffect adds to it (ours added: ${ms('ours-stack-added', selection).toFixed(1)}), ${VIEW.width}x${VIEW.height}, ${what}`,
        value: ours,
        unit: 'ms',
        baseline: theirs,
        ratio: theirs / ours,
      });
    }
    return results;
  } finally {
    await browser.close();
  }
}
