// Sums the vitest and Playwright JSON reports into one `N passed, N failed[, N skipped]` line, and
// finds their slowest files and tests. Pure functions: scripts/test.mjs does the I/O;
// tests/unit/scripts/test-summary.test.ts tests them.

/**
 * @typedef {{ passed: number, failed: number, skipped: number, flaky: number, problems: string[] }} Counts
 * @typedef {{ report: any | null | undefined, exitCode: number | null, signal?: string | null, error?: string }} RunResult
 *   report: the parsed JSON report, or null/undefined if it is missing or unreadable;
 *   exitCode: the runner's exit code (null if it was killed: then signal says by what);
 *   error: set if the runner could not be started at all.
 */

/**
 * Counts a vitest JSON report (the jest-compatible shape: numPassedTests, numFailedTests,
 * numPendingTests, numTodoTests, testResults[].assertionResults[]).
 * A test file that failed without any failed test in it (an import or syntax error, a failing
 * beforeAll) counts as one failure.
 * @returns {Counts}
 */
export function countVitest(report) {
  if (typeof report?.numTotalTests !== 'number') throw new Error('no numTotalTests');
  const problems = [];
  const passed = num(report.numPassedTests);
  let failed = num(report.numFailedTests);
  const skipped = num(report.numPendingTests) + num(report.numTodoTests);
  for (const file of Array.isArray(report.testResults) ? report.testResults : []) {
    if (file?.status !== 'failed') continue;
    const results = Array.isArray(file.assertionResults) ? file.assertionResults : [];
    if (!results.some((a) => a?.status === 'failed')) {
      failed += 1;
      const why = firstLine(file.message) || 'an error outside its tests (a beforeAll/afterAll hook?): see the vitest output';
      problems.push(`unit: ${file.name ?? 'a test file'} failed: ${why}`);
    }
  }
  return { passed, failed, skipped, flaky: 0, problems };
}

/**
 * Counts a Playwright JSON report (stats.expected / unexpected / flaky / skipped; errors[] are
 * errors outside any test: global setup, a spec file that does not load, the global timeout,
 * "no tests found"). A flaky test (failed, then passed on retry) counts as passed, and is named.
 * Expected failures (test.fail()) are "expected", so they count as passed, as Playwright does.
 * @returns {Counts}
 */
export function countPlaywright(report) {
  if (typeof report?.stats !== 'object' || report.stats === null) throw new Error('no stats');
  const problems = [];
  const stats = report.stats;
  const flaky = num(stats.flaky);
  const passed = num(stats.expected) + flaky;
  let failed = num(stats.unexpected);
  const skipped = num(stats.skipped);
  const errors = Array.isArray(report.errors) ? report.errors : [];
  for (const err of errors) {
    failed += 1;
    problems.push(`e2e: error outside tests: ${firstLine(err?.message ?? err?.value ?? String(err))}`);
  }
  if (flaky) {
    const names = [];
    walkSpecs(report.suites, (spec, file) => {
      if ((spec.tests ?? []).some((t) => t?.status === 'flaky')) names.push(`${file} › ${spec.title}`);
    });
    problems.push(`e2e: ${flaky} flaky (passed on retry): ${names.join('; ') || '?'}`);
  }
  return { passed, failed, skipped, flaky, problems };
}

/**
 * Sums the runs that were selected. A run whose report is missing or unreadable, or that exited
 * non-zero although its report shows no failure, or that was killed, counts as (at least) one
 * failure, and a problem line says which.
 * @param {{ unit?: RunResult, e2e?: RunResult }} runs  absent key = not selected
 * @returns {Counts & { ok: boolean, line: string }}
 */
export function summarize(runs) {
  const total = { passed: 0, failed: 0, skipped: 0, flaky: 0, problems: [] };
  const runners = { unit: ['vitest', countVitest], e2e: ['playwright', countPlaywright] };
  for (const [kind, [tool, count]] of Object.entries(runners)) {
    const run = runs[kind];
    if (!run) continue;
    let counts = null;
    if (run.error) {
      total.problems.push(`${kind}: ${tool} could not be started: ${run.error}`);
    } else if (run.report == null || typeof run.report !== 'object') {
      total.problems.push(`${kind}: ${tool} wrote no readable JSON report (exit ${describeExit(run)}): counted as a failure`);
    } else {
      try {
        counts = count(run.report);
      } catch (err) {
        total.problems.push(`${kind}: ${tool}'s report has an unexpected shape (${err.message}): counted as a failure`);
      }
    }
    if (!counts) {
      total.failed += 1;
      continue;
    }
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
    total.flaky += counts.flaky;
    total.problems.push(...counts.problems);
    if (run.exitCode !== 0 && counts.failed === 0) {
      total.failed += 1;
      total.problems.push(`${kind}: ${tool} exited ${describeExit(run)} but its report shows no failure (a crash, or an unhandled error): counted as a failure`);
    }
  }
  const ok = total.failed === 0 && Object.values(runs).some(Boolean);
  return { ...total, ok, line: formatLine(total) };
}

/** `N passed, N failed`, with `, N skipped` only when some were skipped. */
export function formatLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/**
 * @typedef {{ kind: 'unit' | 'e2e', file: string, ms: number }} FileTime
 * @typedef {{ kind: 'unit' | 'e2e', file: string, title: string, ms: number }} TestTime
 */

/**
 * The files and tests of both reports that took longest, slowest first (`n` of each). A vitest
 * file's time is its wall time (start to end, hooks included); a Playwright file's is the sum of
 * its tests' times (each test's results, retries included: the worker time it cost, its hooks
 * included), so files that ran side by side in several workers add up. File names are relative to
 * `root` (a spec file's is its report's rootDir joined with its name). Reports that are missing or
 * of another shape add nothing.
 * @param {{ unit?: RunResult, e2e?: RunResult }} runs
 * @returns {{ files: FileTime[], tests: TestTime[] }}
 */
export function slowest(runs, root = '', n = 15) {
  const files = [];
  const tests = [];
  const rel = (name) => {
    const f = String(name ?? '?');
    return root && f.startsWith(`${root}/`) ? f.slice(root.length + 1) : f;
  };
  for (const file of Array.isArray(runs.unit?.report?.testResults) ? runs.unit.report.testResults : []) {
    const name = rel(file?.name);
    if (Number.isFinite(file?.startTime) && Number.isFinite(file?.endTime)) files.push({ kind: 'unit', file: name, ms: file.endTime - file.startTime });
    for (const a of Array.isArray(file?.assertionResults) ? file.assertionResults : []) {
      if (Number.isFinite(a?.duration)) tests.push({ kind: 'unit', file: name, title: a.fullName ?? a.title ?? '?', ms: a.duration });
    }
  }
  const e2eFiles = new Map();
  // Playwright names a spec file relative to its rootDir (the test folder).
  const specRoot = typeof runs.e2e?.report?.config?.rootDir === 'string' ? runs.e2e.report.config.rootDir : '';
  walkSuites(runs.e2e?.report?.suites, (spec, specFile, titles) => {
    const file = rel(specRoot ? `${specRoot}/${specFile}` : specFile);
    for (const t of spec.tests ?? []) {
      const ms = (Array.isArray(t?.results) ? t.results : []).reduce((sum, r) => sum + num(r?.duration), 0);
      tests.push({ kind: 'e2e', file, title: [...titles, spec.title].join(' › '), ms });
      e2eFiles.set(file, (e2eFiles.get(file) ?? 0) + ms);
    }
  });
  for (const [file, ms] of e2eFiles) files.push({ kind: 'e2e', file, ms });
  const top = (list) => list.sort((a, b) => b.ms - a.ms).slice(0, n);
  return { files: top(files), tests: top(tests) };
}

/** The lines `npm test` prints for slowest(): a heading, then `  12.3 s  e2e  file[ › title]` each. */
export function formatSlowest({ files, tests }) {
  const row = (t) => `${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.kind.padEnd(4)} ${t.file}${t.title ? ` › ${t.title}` : ''}`;
  const lines = [];
  if (files.length) lines.push(`slowest ${files.length} files:`, ...files.map(row));
  if (tests.length) lines.push(`slowest ${tests.length} tests:`, ...tests.map(row));
  return lines;
}

function describeExit(run) {
  if (run.exitCode === null || run.exitCode === undefined) return run.signal ? `killed by ${run.signal}` : 'unknown';
  return String(run.exitCode);
}

function num(v) {
  return Number.isFinite(v) && v > 0 ? v : 0;
}

function firstLine(s) {
  // eslint-disable-next-line no-control-regex
  return String(s ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}

/** Like walkSpecs, with the titles of the describe blocks around each spec (the file's own suite left out). */
function walkSuites(suites, visit, file = '', titles = []) {
  for (const suite of Array.isArray(suites) ? suites : []) {
    const top = !file;
    const f = suite.file ?? file;
    const inner = top ? titles : [...titles, suite.title];
    for (const spec of suite.specs ?? []) visit(spec, f, inner);
    walkSuites(suite.suites, visit, f, inner);
  }
}

function walkSpecs(suites, visit, file = '') {
  for (const suite of Array.isArray(suites) ? suites : []) {
    const f = suite.file ?? file;
    for (const spec of suite.specs ?? []) visit(spec, f);
    walkSpecs(suite.suites, visit, f);
  }
}
