import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { encodeContainer } from '../src/protocol/container-codec.ts';
import { optimizeModel } from '../src/server/upload/optimize.ts';
import { validateModel } from '../src/server/upload/validate.ts';
import { postRaw, startUploadServer, type UploadServer } from '../tests/service/upload-helpers.ts';
import type { BenchResult } from './types.ts';
import { median } from './stats';

/**
 * The model service's upload path (src/server/routes/uploads.ts) over real HTTP on loopback:
 *
 * - upload-to-derivative time for the largest model of the corpus and for the geometry-heavy
 *   2CylinderEngine: POST /v1/models until the 201, which comes after the container is written to
 *   the derivative store. Baseline in the same run, interleaved: the plain container encode of the
 *   same bytes (what an upload without validation and optimisation would cost at least); ratio =
 *   baseline / upload time. The steps (validator, optimisation) are listed for the largest.
 * - size of our derivative (the container as stored) against the input GLB for every model:
 *   value = derivative bytes, baseline = input bytes, ratio = derivative / input (below 1 is
 *   smaller). For comparison, the plain container of the unoptimised GLB (DEFLATE alone).
 */

const MODELS = resolve(import.meta.dirname, '../../shared/models');
const RUNS = Number(process.env.BENCH_UPLOAD_RUNS ?? 7);

async function upload(server: UploadServer, bytes: Uint8Array, name: string): Promise<{ ms: number; versionKey: string }> {
  const started = performance.now();
  const res = await postRaw(server, '/v1/models', bytes, name, await server.auth('bench'));
  const body = (await res.json()) as { latestVersionKey?: string; error?: string };
  const ms = performance.now() - started;
  if (res.status !== 201 || !body.latestVersionKey) throw new Error(`upload of ${name} failed: ${res.status} ${body.error ?? ''}`);
  return { ms, versionKey: body.latestVersionKey };
}

async function derivativeBytes(server: UploadServer, versionKey: string): Promise<number> {
  const res = await fetch(`${server.url}/cdn/derivatives/${versionKey}/model_file.binz`);
  return (await res.arrayBuffer()).byteLength;
}

export default async function run(): Promise<BenchResult[]> {
  const files = readdirSync(MODELS)
    .filter((name) => name.endsWith('.glb'))
    .map((name) => ({ name, size: statSync(join(MODELS, name)).size }))
    .sort((a, b) => b.size - a.size);
  const largest = files[0].name;
  const results: BenchResult[] = [];
  const server = await startUploadServer();
  try {
    // ---- upload-to-derivative time ----
    for (const name of [largest, '2CylinderEngine.glb']) {
      const bytes = new Uint8Array(readFileSync(join(MODELS, name)));
      await upload(server, bytes, name); // warm-up: validator, codecs, JIT
      await encodeContainer(bytes, { sourceFileName: name, generator: 'bench' });
      const uploads: number[] = [];
      const encodes: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        uploads.push((await upload(server, bytes, name)).ms);
        const started = performance.now();
        await encodeContainer(bytes, { sourceFileName: name, generator: 'bench' });
        encodes.push(performance.now() - started);
      }
      const value = median(uploads);
      const baseline = median(encodes);
      results.push({
        name: `upload to derivative, ${name} (${(bytes.byteLength / 1e6).toFixed(2)} MB), median of ${RUNS}`,
        value: Math.round(value),
        unit: 'ms',
        baseline: Math.round(baseline * 10) / 10,
        ratio: Math.round((baseline / value) * 1000) / 1000,
      });
      if (name === largest) {
        const steps = { validate: [] as number[], optimize: [] as number[] };
        for (let i = 0; i < 3; i++) {
          let t = performance.now();
          const report = await validateModel(bytes, { fileName: name });
          steps.validate.push(performance.now() - t);
          t = performance.now();
          await optimizeModel(bytes, { inputReport: report, fileName: name });
          steps.optimize.push(performance.now() - t);
        }
        results.push({ name: `  of which glTF-Validator, ${name}`, value: Math.round(median(steps.validate)), unit: 'ms' });
        results.push({ name: `  of which optimisation (with its own validation), ${name}`, value: Math.round(median(steps.optimize)), unit: 'ms' });
      }
    }

    // ---- derivative size against the input GLB ----
    let inputTotal = 0;
    let derivativeTotal = 0;
    let plainTotal = 0;
    for (const { name } of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
      const bytes = new Uint8Array(readFileSync(join(MODELS, name)));
      const { versionKey } = await upload(server, bytes, name);
      const derivative = await derivativeBytes(server, versionKey);
      const plain = (await encodeContainer(bytes, { sourceFileName: name, generator: 'bench' })).byteLength;
      inputTotal += bytes.byteLength;
      derivativeTotal += derivative;
      plainTotal += plain;
      results.push({
        name: `derivative / input GLB, ${name} (plain container: ${(plain / bytes.byteLength).toFixed(3)})`,
        value: derivative,
        unit: 'bytes',
        baseline: bytes.byteLength,
        ratio: Math.round((derivative / bytes.byteLength) * 1000) / 1000,
      });
    }
    results.push({
      name: `derivative / input GLB, all ${files.length} models (plain containers: ${(plainTotal / inputTotal).toFixed(3)})`,
      value: derivativeTotal,
      unit: 'bytes',
      baseline: inputTotal,
      ratio: Math.round((derivativeTotal / inputTotal) * 1000) / 1000,
    });
  } finally {
    await server.close();
  }
  return results;
}
