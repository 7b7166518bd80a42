import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** A benchmark file that reports one result whose value is `value`. */
const benchFile = (name: string, value: number, pass: boolean) =>
  `export default async function run() { return [{ name: '${name}', value: ${value}, unit: 'ms', goal: '< 5 ms', pass: ${pass} }]; }\n`;

describe('npm run bench (scripts/bench.mjs)', () => {
  let dir: string;
  let resultsFile: string;
  const bench = (...filters: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'scripts/bench.mjs'), ...filters], {
      cwd: ROOT,
      env: { ...process.env, BENCH_FILES_DIR: dir, BENCH_RESULTS_FILE: resultsFile },
      encoding: 'utf8',
    });
  const results = () => JSON.parse(readFileSync(resultsFile, 'utf8'));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-runner-'));
    resultsFile = join(dir, 'results.json');
    writeFileSync(join(dir, 'alpha.bench.ts'), benchFile('alpha', 1, true));
    writeFileSync(join(dir, 'beta.bench.ts'), benchFile('beta', 9, false));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every result and names the missed goals', () => {
    const out = bench();
    expect(out).toMatch(/missed goals \(1\): beta \(9 ms; goal < 5 ms\)/);
    const r = results();
    expect(r.results.map((x: { name: string }) => x.name)).toEqual(['alpha', 'beta']);
    expect(r.missed).toEqual(['beta']);
    expect(r.runs.every((run: { ok: boolean; date: string }) => run.ok && typeof run.date === 'string')).toBe(true);
  }, 60_000);

  it('a filtered run replaces its own results and keeps the others', () => {
    bench();
    const before = results();
    writeFileSync(join(dir, 'beta.bench.ts'), benchFile('beta', 2, true));
    const out = bench('beta');
    expect(out).toContain('all goals met');
    const after = results();
    expect(after.filter).toEqual(['beta']);
    expect(after.results.map((x: { name: string; value: number }) => [x.name, x.value])).toEqual([
      ['alpha', 1],
      ['beta', 2],
    ]);
    expect(after.missed).toEqual([]);
    // alpha's run keeps the date it was measured at.
    const alphaRun = after.runs.find((run: { file: string }) => run.file.endsWith('alpha.bench.ts'));
    expect(alphaRun.date).toBe(before.runs.find((run: { file: string }) => run.file.endsWith('alpha.bench.ts')).date);
  }, 60_000);
});
