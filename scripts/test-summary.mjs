// Sums the vitest and Playwright JSON reports into one `N passed, N failed[, N skipped]` line.
// Pure functions: scripts/test.mjs does the I/O; tests/unit/scripts/test-summary.test.ts tests them.

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

function walkSpecs(suites, visit, file = '') {
  for (const suite of Array.isArray(suites) ? suites : []) {
    const f = suite.file ?? file;
    for (const spec of suite.specs ?? []) visit(spec, f);
    walkSpecs(suite.suites, visit, f);
  }
}
