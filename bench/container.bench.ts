import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import zlib from 'node:zlib';
import { decodeContainer, encodeContainer } from '../src/protocol/container-codec.ts';
import { availableEngines, type CodecEngine } from '../src/protocol/container-engines.ts';
import { readContainerHeader } from '../src/protocol/container-header.ts';
import { obfuscatePayload } from '../src/protocol/container-obfuscation.ts';
import type { BenchResult } from './types.ts';
import { median } from './stats';

/**
 * Container decode throughput against Node's native inflate.
 *
 * For the largest model of the corpus and a mid-size one: the full decode (header, metadata,
 * deobfuscation, inflation, byteLength and sha256 checks, format detection) against
 * `zlib.inflateRawSync` of the very same DEFLATE bytes (the container's payload with the
 * obfuscation removed). Runs are interleaved (zlib, ours, zlib, ours, ...) so both see the same
 * machine load, repeated for a few seconds; medians are reported. Goal: ratio = zlib time / our time >= 0.5 for the default
 * engine. The other engines (the browser's DecompressionStream path and the fflate fallback) are
 * measured too, for information: in Node their numbers say little about a browser.
 */

const MODELS = resolve(import.meta.dirname, '../../shared/models');
const WARMUP = 5;
/** Interleaved pairs per measurement: at least MIN_RUNS, more until minMs, at most MAX_RUNS. */
const MIN_RUNS = Number(process.env.BENCH_CONTAINER_RUNS ?? 21);
const MAX_RUNS = 1001;
/** The goal measurement runs longer: this machine may be shared, and the median needs samples. */
const GOAL_MIN_MS = 3000;
const INFO_MIN_MS = 1000;
const GOAL = 0.5;
const TIMESTAMP = 1_700_000_000_000;


/**
 * The largest GLB of the corpus and a mid-size one: the median of those at least a tenth of the
 * largest (the corpus has many tiny test models that would measure call overhead, not decoding).
 */
function pickModels(): string[] {
  const bySize = readdirSync(MODELS)
    .filter((name) => name.endsWith('.glb'))
    .map((name) => ({ name, size: statSync(join(MODELS, name)).size }))
    .sort((a, b) => b.size - a.size);
  if (bySize.length === 0) throw new Error(`no .glb models in ${MODELS}`);
  const largest = bySize[0];
  const sizeable = bySize.filter((m) => m.size >= largest.size / 10);
  const mid = sizeable[sizeable.length >> 1];
  return mid === largest ? [largest.name] : [largest.name, mid.name];
}

async function measure(
  file: Uint8Array,
  deflated: Uint8Array,
  engine: Exclude<CodecEngine, 'auto'>,
  minMs: number,
): Promise<{ ours: number; zlib: number }> {
  for (let i = 0; i < WARMUP; i++) {
    zlib.inflateRawSync(deflated);
    await decodeContainer(file, { engine });
  }
  const ours: number[] = [];
  const native: number[] = [];
  const began = performance.now();
  while (ours.length < MAX_RUNS && (ours.length < MIN_RUNS || performance.now() - began < minMs)) {
    let start = performance.now();
    zlib.inflateRawSync(deflated);
    native.push(performance.now() - start);
    start = performance.now();
    await decodeContainer(file, { engine });
    ours.push(performance.now() - start);
  }
  return { ours: median(ours), zlib: median(native) };
}

export default async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const [defaultEngine, ...otherEngines] = availableEngines();
  for (const name of pickModels()) {
    const asset = new Uint8Array(readFileSync(join(MODELS, name)));
    const file = await encodeContainer(asset, { timestamp: TIMESTAMP, sourceFileName: name });
    const deflated = obfuscatePayload(file.subarray(readContainerHeader(file).payloadOffset), TIMESTAMP);
    const megabytes = asset.length / 1e6;
    const label = `${name} (${megabytes.toFixed(1)} MB)`;

    const main = await measure(file, deflated, defaultEngine, GOAL_MIN_MS);
    const ratio = main.zlib / main.ours;
    results.push({
      name: `container decode ${label}, ${defaultEngine} engine, vs zlib.inflateRawSync`,
      value: main.ours,
      unit: 'ms',
      baseline: main.zlib,
      ratio,
      goal: `>= ${GOAL}`,
      pass: ratio >= GOAL,
    });
    results.push({ name: `container decode throughput ${label}, ${defaultEngine} engine`, value: megabytes / (main.ours / 1000), unit: 'MB/s' });
    results.push({ name: `zlib.inflateRawSync throughput ${label}`, value: megabytes / (main.zlib / 1000), unit: 'MB/s' });

    for (const engine of otherEngines) {
      const other = await measure(file, deflated, engine, INFO_MIN_MS);
      results.push({
        name: `container decode ${label}, ${engine} engine (information: not the Node path)`,
        value: other.ours,
        unit: 'ms',
        baseline: other.zlib,
        ratio: other.zlib / other.ours,
      });
    }
  }
  return results;
}
