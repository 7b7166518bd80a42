#!/usr/bin/env node
// `npm run bench [-- FILTER...]`: runs every bench/*.bench.ts (or those whose file name contains
// one of the FILTERs; a FILTER that is a whole name, `load` for load.bench.ts, picks that file
// alone), each in its own tsx child process so one crash does not stop the rest.
// Each file: `export default async function run(): Promise<BenchResult[]>` (bench/types.ts).
// Prints one table, writes bench/results.json (machine + results), and names the missed goals.
// Exit code: 0 even when goals are missed; 1 if a benchmark crashed, returned something that is
// not a BenchResult[], or no benchmark matched. BENCH_TIMEOUT_S (default 900) bounds each file.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SELF), '..');
const BENCH_DIR = join(ROOT, 'bench');
const RESULTS_FILE = process.env.BENCH_RESULTS_FILE ?? join(BENCH_DIR, 'results.json');
const BENCH_FILES_DIR = process.env.BENCH_FILES_DIR ?? BENCH_DIR; // for testing this runner
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 900);

// ---- child: tsx scripts/bench.mjs --child FILE OUT -----------------------------------------
if (process.argv[2] === '--child') {
  const [file, out] = process.argv.slice(3);
  let payload;
  try {
    const mod = await import(pathToFileURL(file).href);
    if (typeof mod.default !== 'function') throw new Error('no default export function run(): Promise<BenchResult[]>');
    payload = { results: await mod.default() };
  } catch (err) {
    payload = { error: err?.stack ?? String(err) };
  }
  writeFileSync(out, JSON.stringify(payload));
  // A benchmark may leave handles open (servers, browsers, timers): don't wait for them.
  process.exit(payload.error ? 1 : 0);
}

// ---- parent ------------------------------------------------------------------------------
/** @returns {string[]} problems with one result ([] if it is a valid BenchResult) */
function validate(r) {
  if (!r || typeof r !== 'object') return ['not an object'];
  const p = [];
  if (typeof r.name !== 'string' || !r.name) p.push('name must be a non-empty string');
  if (typeof r.value !== 'number' || !Number.isFinite(r.value)) p.push(`value must be a finite number (got ${JSON.stringify(r.value)})`);
  if (typeof r.unit !== 'string') p.push('unit must be a string');
  for (const k of ['baseline', 'ratio']) if (r[k] !== undefined && typeof r[k] !== 'number') p.push(`${k} must be a number`);
  if (r.goal !== undefined && typeof r.goal !== 'string') p.push('goal must be a string');
  if (r.pass !== undefined && typeof r.pass !== 'boolean') p.push('pass must be a boolean');
  return p;
}

function fmt(v) {
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'MISSED';
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(3);
}

function table(rows, header) {
  const cells = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 || i === 2 || i === 5 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function runFile(file, out) {
  return new Promise((res) => {
    const t0 = Date.now();
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [SELF, '--child', file, out], { cwd: ROOT, stdio: 'inherit', detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, TIMEOUT_S * 1000);
    const done = (exitCode, signal, error) => {
      clearTimeout(timer);
      // Whatever the benchmark started (browsers, servers) goes with its process group.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      res({ exitCode, signal, error, timedOut, seconds: (Date.now() - t0) / 1000 });
    };
    child.on('error', (err) => done(null, null, err.message));
    child.on('exit', (code, signal) => done(code, signal));
    // Ctrl-C: the child is in its own group, so stop it here, then stop the whole run.
    const stop = () => {
      done(null, 'SIGINT');
      process.exit(130);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.on('exit', () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });
  });
}

/** The runs and results of other files in the results file, if it exists and can be read. */
function previousResults(replaced) {
  let old;
  try {
    old = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
  } catch {
    return { runs: [], results: [] };
  }
  const keep = (entry) => entry && typeof entry.file === 'string' && !replaced.has(entry.file);
  return {
    runs: Array.isArray(old.runs) ? old.runs.filter(keep).map((r) => ({ date: old.machine?.date, ...r })) : [],
    results: Array.isArray(old.results) ? old.results.filter(keep) : [],
  };
}

async function main() {
  const filters = process.argv.slice(2).filter((a) => a !== '--');
  const all = existsSync(BENCH_FILES_DIR) ? readdirSync(BENCH_FILES_DIR).filter((f) => f.endsWith('.bench.ts')).sort() : [];
  // A filter that is a file's whole name (`load` for load.bench.ts) selects that file alone, so that
  // `npm run bench -- load` does not also run upload.bench.ts; any other filter selects the files
  // whose name contains it.
  const exact = (q) => all.includes(`${q}.bench.ts`);
  const files = filters.length ? all.filter((f) => filters.some((q) => (exact(q) ? f === `${q}.bench.ts` : f.includes(q)))) : all;
  if (!files.length) {
    console.error(all.length ? `no benchmark matches ${filters.join(' ')} (have: ${all.join(', ')})` : 'no bench/*.bench.ts files');
    return 1;
  }

  const tmp = mkdtempSync(join(tmpdir(), 'bench-'));
  const results = [];
  const runs = [];
  try {
    for (const f of files) {
      const file = join(BENCH_FILES_DIR, f);
      const out = join(tmp, `${basename(f)}.json`);
      console.log(`\n=== ${f} ===`);
      const r = await runFile(file, out);
      let payload = null;
      try {
        payload = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        /* no result file */
      }
      const run = { file: relative(ROOT, file), seconds: Number(r.seconds.toFixed(1)), ok: false };
      if (r.timedOut) run.error = `timed out after ${TIMEOUT_S} s`;
      else if (payload?.error) run.error = payload.error;
      else if (!payload) run.error = r.error ?? `crashed (${r.signal ? `signal ${r.signal}` : `exit ${r.exitCode}`}) before reporting`;
      else if (!Array.isArray(payload.results)) run.error = 'run() did not return an array of BenchResult';
      else {
        const invalid = [];
        payload.results.forEach((res, i) => {
          const p = validate(res);
          if (p.length) invalid.push(`#${i} ${res?.name ?? ''}: ${p.join('; ')}`);
          else {
            // ratio is the benchmark's own (its direction depends on the goal): never derived here.
            results.push({ ...res, file: run.file });
          }
        });
        run.results = payload.results.length;
        if (invalid.length) run.error = `invalid results: ${invalid.join(' | ')}`;
        else run.ok = true;
      }
      runs.push(run);
      console.log(run.ok ? `[bench] ${f}: ${run.results} results in ${run.seconds} s` : `[bench] ${f}: FAILED after ${run.seconds} s: ${run.error.split('\n')[0]}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const cpu = cpus();
  const machine = {
    cpu: cpu[0]?.model?.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    freeMemoryGiB: Number((freemem() / 2 ** 30).toFixed(1)),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    date: new Date().toISOString(),
  };
  for (const run of runs) run.date = machine.date;
  const failed = runs.filter((r) => !r.ok);
  // A filtered run replaces the results of the files it ran and keeps the others' (each run says
  // when it was measured), so that `npm run bench -- picking` does not wipe the rest.
  const kept = filters.length ? previousResults(new Set(runs.map((r) => r.file))) : { runs: [], results: [] };
  const allRuns = [...kept.runs, ...runs];
  const allResults = [...kept.results, ...results];
  const missed = allResults.filter((r) => r.pass === false);
  writeFileSync(RESULTS_FILE, JSON.stringify({ machine, filter: filters.length ? filters : undefined, runs: allRuns, results: allResults, missed: missed.map((r) => r.name) }, null, 2) + '\n');

  console.log(`\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date}\n`);
  const rows = results.map((r) => [r.name, fmt(r.value), r.unit, fmt(r.baseline), r.ratio === undefined ? '' : fmt(r.ratio), r.goal ?? '', fmt(r.pass)]);
  console.log(rows.length ? table(rows, ['name', 'value', 'unit', 'baseline', 'ratio', 'goal', 'pass']) : '(no results)');
  console.log(`\nwrote ${relative(ROOT, RESULTS_FILE)}`);
  const missedNow = results.filter((r) => r.pass === false);
  if (missedNow.length) console.log(`missed goals (${missedNow.length}): ${missedNow.map((r) => `${r.name} (${fmt(r.value)} ${r.unit}; goal ${r.goal ?? '?'})`).join('; ')}`);
  else if (results.some((r) => r.pass === true)) console.log('all goals met');
  if (failed.length) console.log(`benchmarks that failed (${failed.length}): ${failed.map((r) => r.file).join(', ')}`);
  return failed.length ? 1 : 0;
}

process.exitCode = await main();
