import { describe, expect, it } from 'vitest';
import config, { e2eWorkers } from '../../../playwright.config.ts';

/**
 * The browser suite's limits (issue 10, item 10): a loaded machine makes it slower, never cut short;
 * hangs are caught by each test's own limit and by .ci/run's cap on `npm test`.
 */
describe('playwright.config.ts', () => {
  it('has no suite-wide time limit, and a time limit per test, action and navigation', () => {
    expect(config.globalTimeout ?? 0).toBe(0);
    expect(config.timeout).toBeGreaterThan(0);
    expect(config.use?.actionTimeout).toBeGreaterThan(0);
    expect(config.use?.navigationTimeout).toBeGreaterThan(0);
  });

  it('runs one worker per core, as memory allows, or as E2E_WORKERS says', () => {
    const GiB = 2 ** 30;
    expect(e2eWorkers(2, 24 * GiB, undefined)).toBe(2);
    expect(e2eWorkers(16, 24 * GiB, undefined)).toBe(16);
    expect(e2eWorkers(16, 4 * GiB, undefined)).toBe(4);
    expect(e2eWorkers(1, 0.5 * GiB, undefined)).toBe(1);
    expect(e2eWorkers(8, 24 * GiB, '3')).toBe(3);
    expect(e2eWorkers(8, 24 * GiB, 'x')).toBe(8);
  });

  it('spreads the long spec files test by test over the workers, and runs every spec file', () => {
    const projects = config.projects ?? [];
    const parallel = projects.find((p) => p.fullyParallel);
    expect(parallel?.testMatch).toEqual(expect.arrayContaining(['**/viewer.spec.ts', '**/host-api.spec.ts', '**/editor.spec.ts', '**/rendering.spec.ts']));
    const rest = projects.find((p) => !p.fullyParallel);
    expect(rest?.testMatch).toBe('**/*.spec.ts');
    expect(rest?.testIgnore).toEqual(parallel?.testMatch);
  });
});
