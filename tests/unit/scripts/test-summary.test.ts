import { describe, expect, test } from 'vitest';
import { countPlaywright, countVitest, formatLine, formatSlowest, slowest, summarize } from '../../../scripts/test-summary.mjs';

// Fixtures trimmed from real reports: vitest 5.1.1 `--reporter=json` and Playwright 1.65.1's json
// reporter, run once on probe suites with a pass, a failure, a skip, a todo, a file that fails to
// import (vitest) and a retried flaky test, a fixme and a test.fail() (Playwright).

function vitestFile(name: string, statuses: string[], status?: string, message = '') {
  return {
    assertionResults: statuses.map((s, i) => ({
      ancestorTitles: ['grp'],
      fullName: `grp t${i}`,
      status: s,
      title: `t${i}`,
      duration: 1.2,
      failureMessages: s === 'failed' ? ['AssertionError: expected 1 to be 2 // Object.is equality\n    at a.test.ts:4:32'] : [],
      meta: {},
      tags: [],
      benchmarks: [],
    })),
    startTime: 1795304610194,
    endTime: 1795304610199.579,
    status: status ?? (statuses.includes('failed') ? 'failed' : 'passed'),
    message,
    name: `/work/main/tests/unit/${name}`,
  };
}

const vitestMixed = {
  numTotalTestSuites: 4,
  numPassedTestSuites: 1,
  numFailedTestSuites: 3,
  numPendingTestSuites: 0,
  numTotalTests: 6,
  numPassedTests: 3,
  numFailedTests: 1,
  numPendingTests: 1,
  numTodoTests: 1,
  snapshot: { added: 0, failure: false, total: 0 },
  startTime: 1795304609764,
  success: false,
  testResults: [
    vitestFile('a.test.ts', ['passed', 'failed', 'skipped', 'todo']),
    vitestFile('b.test.ts', [], 'failed', "Cannot find module './does-not-exist.mjs' imported from /work/main/tests/unit/b.test.ts"),
    vitestFile('c.test.ts', ['passed', 'passed']),
  ],
};

const vitestAllPass = {
  numTotalTestSuites: 1,
  numPassedTestSuites: 1,
  numFailedTestSuites: 0,
  numPendingTestSuites: 0,
  numTotalTests: 2,
  numPassedTests: 2,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  startTime: 1795304609764,
  success: true,
  testResults: [vitestFile('c.test.ts', ['passed', 'passed'])],
};

function pwTest(status: string, expectedStatus: string, results: string[]) {
  return {
    timeout: 120000,
    annotations: [],
    expectedStatus,
    projectId: '',
    projectName: '',
    results: results.map((s, retry) => ({ workerIndex: 0, parallelIndex: 0, status: s, duration: 7, errors: [], retry, attachments: [] })),
    status,
  };
}

function pwReport(specs: Array<[string, ReturnType<typeof pwTest>]>, stats: object, errors: object[] = []) {
  return {
    config: { projects: [{ id: '', name: '', testDir: '/work/main/tests/e2e', outputDir: '/work/main/test-results/e2e' }] },
    suites: [
      {
        title: 'smoke.spec.ts',
        file: 'smoke.spec.ts',
        line: 0,
        column: 0,
        specs: [],
        suites: [
          {
            title: 'grp',
            file: 'smoke.spec.ts',
            line: 3,
            column: 6,
            specs: specs.map(([title, t], i) => ({ title, ok: t.status !== 'unexpected', tags: [], tests: [t], id: `id${i}`, file: 'smoke.spec.ts', line: 4 + i, column: 3 })),
          },
        ],
      },
    ],
    errors,
    stats: { startTime: '2026-11-21T23:43:37.727Z', duration: 1966.478, ...stats },
  };
}

const pwMixed = pwReport(
  [
    ['pass', pwTest('expected', 'passed', ['passed'])],
    ['fail', pwTest('unexpected', 'passed', ['failed', 'failed'])],
    ['skipped', pwTest('skipped', 'skipped', ['skipped'])],
    ['flaky', pwTest('flaky', 'passed', ['failed', 'passed'])],
    ['fixme', pwTest('skipped', 'skipped', ['skipped'])],
    ['expected fail', pwTest('expected', 'failed', ['failed'])],
  ],
  { expected: 2, skipped: 2, unexpected: 1, flaky: 1 },
);

const pwAllPass = pwReport([['pass', pwTest('expected', 'passed', ['passed'])]], { expected: 1, skipped: 0, unexpected: 0, flaky: 0 });

// What Playwright writes when global setup throws: no suites run, one error.
const pwSetupFailed = {
  config: {},
  suites: [],
  errors: [{ message: 'Error: [e2e] the server exited (1) before answering GET /v1/config.\nIts output: ...', stack: '...' }],
  stats: { startTime: '2026-11-21T23:42:52.832Z', duration: 545.29, expected: 0, skipped: 0, unexpected: 0, flaky: 0 },
};

describe('countVitest', () => {
  test('counts passed, failed, skipped + todo, and a file that failed to load as one failure', () => {
    const c = countVitest(vitestMixed);
    expect(c).toMatchObject({ passed: 3, failed: 2, skipped: 2, flaky: 0 });
    expect(c.problems).toHaveLength(1);
    expect(c.problems[0]).toContain('b.test.ts');
    expect(c.problems[0]).toContain('Cannot find module');
  });

  test('a file whose beforeAll failed (tests skipped, empty message) counts as one failure', () => {
    // vitest 5.1 reports it so: status failed, message '', its tests 'skipped'
    const report = { ...vitestAllPass, numPendingTests: 2, success: false, testResults: [vitestFile('app.test.ts', ['skipped', 'skipped'], 'failed', '')] };
    const c = countVitest(report);
    expect(c).toMatchObject({ passed: 2, failed: 1, skipped: 2 });
    expect(c.problems[0]).toContain('app.test.ts failed: an error outside its tests');
  });

  test('a failed file with failed tests in it is not counted twice', () => {
    const c = countVitest({ ...vitestMixed, testResults: [vitestMixed.testResults[0]] });
    expect(c.failed).toBe(1);
    expect(c.problems).toEqual([]);
  });
});

describe('countPlaywright', () => {
  test('expected + flaky pass, unexpected fail, skipped (skip and fixme) skip', () => {
    const c = countPlaywright(pwMixed);
    expect(c).toMatchObject({ passed: 3, failed: 1, skipped: 2, flaky: 1 });
    expect(c.problems.join('\n')).toContain('smoke.spec.ts › flaky');
  });

  test('errors outside tests (global setup, load errors) count as failures', () => {
    const c = countPlaywright(pwSetupFailed);
    expect(c).toMatchObject({ passed: 0, failed: 1, skipped: 0 });
    expect(c.problems[0]).toContain('the server exited (1)');
  });
});

describe('summarize', () => {
  test('sums both reports', () => {
    const s = summarize({ unit: { report: vitestMixed, exitCode: 1 }, e2e: { report: pwMixed, exitCode: 1 } });
    expect(s).toMatchObject({ passed: 6, failed: 3, skipped: 4, ok: false });
    expect(s.line).toBe('6 passed, 3 failed, 4 skipped');
  });

  test('all green', () => {
    const s = summarize({ unit: { report: vitestAllPass, exitCode: 0 }, e2e: { report: pwAllPass, exitCode: 0 } });
    expect(s).toMatchObject({ passed: 3, failed: 0, skipped: 0, ok: true, problems: [] });
    expect(s.line).toBe('3 passed, 0 failed');
  });

  test('only the selected runner counts', () => {
    const s = summarize({ e2e: { report: pwAllPass, exitCode: 0 } });
    expect(s.line).toBe('1 passed, 0 failed');
    expect(s.ok).toBe(true);
  });

  test('a missing report counts as one failure and says which runner', () => {
    const s = summarize({ unit: { report: null, exitCode: 1 }, e2e: { report: pwAllPass, exitCode: 0 } });
    expect(s).toMatchObject({ passed: 1, failed: 1, ok: false });
    expect(s.problems[0]).toMatch(/^unit: vitest wrote no readable JSON report \(exit 1\)/);
  });

  test('a killed runner without a report says by what', () => {
    const s = summarize({ e2e: { report: undefined, exitCode: null, signal: 'SIGKILL' } });
    expect(s.failed).toBe(1);
    expect(s.problems[0]).toContain('killed by SIGKILL');
  });

  test('a runner that could not start counts as a failure', () => {
    const s = summarize({ unit: { report: null, exitCode: null, error: 'spawn npx ENOENT' } });
    expect(s.failed).toBe(1);
    expect(s.problems[0]).toContain('could not be started: spawn npx ENOENT');
  });

  test('a non-zero exit with a clean report (unhandled error) counts as one failure', () => {
    const s = summarize({ unit: { report: vitestAllPass, exitCode: 1 } });
    expect(s).toMatchObject({ passed: 2, failed: 1, ok: false });
    expect(s.problems[0]).toContain('exited 1 but its report shows no failure');
  });

  test('a non-zero exit with failures in the report adds nothing', () => {
    const s = summarize({ e2e: { report: pwSetupFailed, exitCode: 1 } });
    expect(s.failed).toBe(1);
  });

  test('a report of the wrong shape counts as a failure', () => {
    const s = summarize({ unit: { report: { results: [] }, exitCode: 0 }, e2e: { report: { stats: null, errors: [] }, exitCode: 0 } });
    expect(s).toMatchObject({ passed: 0, failed: 2, ok: false });
    expect(s.problems[0]).toContain("unit: vitest's report has an unexpected shape (no numTotalTests)");
    expect(s.problems[1]).toContain("e2e: playwright's report has an unexpected shape (no stats)");
  });

  test('nothing selected is not ok', () => {
    expect(summarize({}).ok).toBe(false);
  });
});

describe('formatLine', () => {
  test('skipped only when some were', () => {
    expect(formatLine({ passed: 5, failed: 0, skipped: 0 })).toBe('5 passed, 0 failed');
    expect(formatLine({ passed: 5, failed: 2, skipped: 1 })).toBe('5 passed, 2 failed, 1 skipped');
  });
});

describe('slowest', () => {
  const timed = (name: string, ms: number, tests: number[]) => ({
    ...vitestFile(name, tests.map(() => 'passed')),
    startTime: 1000,
    endTime: 1000 + ms,
    assertionResults: vitestFile(name, tests.map(() => 'passed')).assertionResults.map((a, i) => ({ ...a, duration: tests[i] })),
  });
  const unit = { ...vitestAllPass, testResults: [timed('a.test.ts', 500, [100, 300]), timed('b.test.ts', 4000, [3900]), timed('c.test.ts', 50, [10])] };
  const e2eTest = (durations: number[]) => ({ ...pwTest('expected', 'passed', durations.map(() => 'passed')), results: durations.map((duration, retry) => ({ status: 'passed', duration, retry })) });
  const e2e = {
    ...pwAllPass,
    suites: [
      { title: 'x.spec.ts', file: 'x.spec.ts', specs: [{ title: 'top', tests: [e2eTest([2000])] }], suites: [{ title: 'grp', file: 'x.spec.ts', specs: [{ title: 'inner', tests: [e2eTest([1000, 1500])] }] }] },
      { title: 'y.spec.ts', file: 'y.spec.ts', specs: [{ title: 'one', tests: [e2eTest([3000])] }] },
    ],
  };

  test('files and tests of both reports, slowest first, the top n of each', () => {
    const s = slowest({ unit: { report: unit, exitCode: 0 }, e2e: { report: e2e, exitCode: 0 } }, '/work/main', 3);
    // A Playwright file's time is its tests' (retries included); a vitest file's its wall time.
    expect(s.files).toEqual([
      { kind: 'e2e', file: 'x.spec.ts', ms: 4500 },
      { kind: 'unit', file: 'tests/unit/b.test.ts', ms: 4000 },
      { kind: 'e2e', file: 'y.spec.ts', ms: 3000 },
    ]);
    expect(s.tests).toEqual([
      { kind: 'unit', file: 'tests/unit/b.test.ts', title: 'grp t0', ms: 3900 },
      { kind: 'e2e', file: 'y.spec.ts', title: 'one', ms: 3000 },
      { kind: 'e2e', file: 'x.spec.ts', title: 'grp › inner', ms: 2500 },
    ]);
  });

  test("spec files are named from the project root when the report gives its rootDir", () => {
    const s = slowest({ e2e: { report: { ...e2e, config: { rootDir: '/work/main/tests/e2e' } }, exitCode: 0 } }, '/work/main', 1);
    expect(s.files).toEqual([{ kind: 'e2e', file: 'tests/e2e/x.spec.ts', ms: 4500 }]);
    expect(s.tests[0]).toMatchObject({ file: 'tests/e2e/y.spec.ts', title: 'one' });
  });

  test('a missing or odd report adds nothing', () => {
    expect(slowest({ unit: { report: null, exitCode: 1 }, e2e: { report: { stats: {} }, exitCode: 1 } })).toEqual({ files: [], tests: [] });
    expect(slowest({ e2e: { report: e2e, exitCode: 0 } }, '', 1).files).toEqual([{ kind: 'e2e', file: 'x.spec.ts', ms: 4500 }]);
  });

  test('formatSlowest: seconds, kind, file and title, a heading per list', () => {
    expect(formatSlowest({ files: [{ kind: 'e2e', file: 'x.spec.ts', ms: 4500 }], tests: [{ kind: 'unit', file: 'a.test.ts', title: 'grp t0', ms: 123456 }] })).toEqual([
      'slowest 1 files:',
      '    4.5 s  e2e  x.spec.ts',
      'slowest 1 tests:',
      '  123.5 s  unit a.test.ts › grp t0',
    ]);
    expect(formatSlowest({ files: [], tests: [] })).toEqual([]);
  });
});
