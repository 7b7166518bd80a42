import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order vitest starts test files in. Its own order (the last run's durations, else the
 * largest files first) has no durations on a fresh clone such as CI's. The service tests then
 * started as late as 100 s into a 200 s run, and the run waited for them at its end. These tests
 * start servers, child processes and databases, and mostly wait on them.
 *
 * The order here:
 * 1. tests/service/ first, the ones known to be slowest first of all;
 * 2. then the rest in vitest's order.
 */
// From the per-file times of `npm test`'s vitest report (test-results/unit.json, printed at the end
// of the run), 2026-12-02 on 2 busy cores: 37, 29, 28, 25, 17, 17, 16, 12 and 11 s.
const SLOWEST = [
  'saver-durability.test.ts',
  'durability.test.ts',
  'uploads.test.ts',
  'hostile-inputs.test.ts',
  'upload-quotas.test.ts',
  'cli.test.ts',
  'early-answers.test.ts',
  'pool.test.ts',
  'assets.test.ts',
];

function rank(spec: TestSpecification): number {
  const path = spec.moduleId.replace(/\\/g, '/');
  if (!path.includes('/tests/service/')) return SLOWEST.length + 1;
  const slow = SLOWEST.findIndex((name) => path.endsWith(`/${name}`));
  return slow === -1 ? SLOWEST.length : slow;
}

export class ServiceFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return sorted.map((spec, i) => ({ spec, i, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map(({ spec }) => spec);
  }
}
