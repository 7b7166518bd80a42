#!/usr/bin/env node
// `npm test`: every test. Unit and service tests (vitest), then browser tests (Playwright in
// Debian's Chromium), the second even if the first failed. Ends with exactly one line
// `N passed, N failed` (`, N skipped` only if any were), the totals over both JSON reports, and
// exits non-zero if anything failed, a runner crashed or a report is missing. Before it: the
// slowest 15 files and the slowest 15 tests of both reports.
//
//   npm test                 both
//   npm test -- unit         vitest only       (test-results/unit.json)
//   npm test -- e2e          Playwright only   (test-results/e2e.json)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findChromium } from './chromium.mjs';
import { formatSlowest, slowest, summarize } from './test-summary.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'test-results');
const UNIT_REPORT = join(RESULTS, 'unit.json');
const E2E_REPORT = join(RESULTS, 'e2e.json');
const KINDS = ['unit', 'e2e'];

const args = process.argv.slice(2).filter((a) => a !== '--');
const unknown = args.filter((a) => !KINDS.includes(a));
if (unknown.length) {
  console.error(`usage: npm test [-- unit|e2e]  (unknown: ${unknown.join(' ')})`);
  process.exit(2);
}
const selected = args.length ? KINDS.filter((k) => args.includes(k)) : KINDS;

/** Runs a command with inherited stdio; resolves with how it ended (never rejects). */
function run(cmd, cmdArgs, env) {
  return new Promise((res) => {
    const t0 = Date.now();
    let child;
    try {
      child = spawn(cmd, cmdArgs, { cwd: ROOT, stdio: 'inherit', env });
    } catch (err) {
      res({ exitCode: null, signal: null, error: err.message, seconds: 0 });
      return;
    }
    child.on('error', (err) => res({ exitCode: null, signal: null, error: err.message, seconds: (Date.now() - t0) / 1000 }));
    child.on('exit', (exitCode, signal) => res({ exitCode, signal, seconds: (Date.now() - t0) / 1000 }));
  });
}

/** The project's own copy of a CLI (not npx: no registry fallback, no npm start-up). */
function bin(name) {
  return join(ROOT, 'node_modules', '.bin', name);
}

function readReport(file) {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function banner(text) {
  console.log(`\n=== ${text} ===`);
}

mkdirSync(RESULTS, { recursive: true });
const runs = {};
const timings = [];

if (selected.includes('unit')) {
  rmSync(UNIT_REPORT, { force: true });
  banner('unit tests (vitest)');
  const env = { ...process.env };
  // Vitest 5 needs Node >= 22; on 20 its reporter crashes on the first failed test. See the file.
  if (Number(process.versions.node.split('.')[0]) < 22) {
    const compat = `--import=${pathToFileURL(join(ROOT, 'scripts/node20-compat.mjs')).href}`;
    env.NODE_OPTIONS = [env.NODE_OPTIONS, compat].filter(Boolean).join(' ');
  }
  const r = await run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile=${UNIT_REPORT}`], env);
  runs.unit = { ...r, report: readReport(UNIT_REPORT) };
  timings.push(`unit ${r.seconds.toFixed(1)} s`);
}

if (selected.includes('e2e')) {
  rmSync(E2E_REPORT, { force: true });
  banner('browser tests (Playwright, Chromium)');
  let chromium = null;
  try {
    chromium = findChromium();
    console.log(`[test] Chromium: ${chromium}`);
  } catch (err) {
    console.error(`[test] ${err.message}`);
    runs.e2e = { report: null, exitCode: null, error: `no Chromium: ${err.message}` };
  }
  if (chromium) {
    const r = await run(bin('playwright'), ['test'], { ...process.env, CHROMIUM_PATH: chromium });
    runs.e2e = { ...r, report: readReport(E2E_REPORT) };
    timings.push(`e2e ${r.seconds.toFixed(1)} s`);
  }
}

const summary = summarize(runs);
banner('summary');
for (const line of formatSlowest(slowest(runs, ROOT, 15))) console.log(line);
if (timings.length) console.log(`time: ${timings.join(', ')}`);
for (const p of summary.problems) console.log(`- ${p}`);
console.log(summary.line);
process.exitCode = summary.ok ? 0 : 1;
