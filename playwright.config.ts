import { availableParallelism, totalmem } from 'node:os';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium, NO_MULTISAMPLING_ARGS } from './scripts/chromium.mjs';

/**
 * Browser tests in real Chromium (Debian's package, never a Playwright download), rendering WebGL2
 * with SwiftShader: no GPU here or in CI, so timeouts are generous.
 *
 * tests/e2e/global-setup.ts builds dist/ if stale (once: every worker shares it and the one server),
 * starts the server on a free port with a fresh DATA_DIR and a copy of dist/ of the run's own, and
 * hands E2E_BASE_URL / E2E_DATA_DIR to the tests (also in tests/.tmp/e2e-env.json). Run through `npm test` (scripts/test.mjs), or alone
 * with `npx playwright test`.
 *
 * No suite-wide time limit: a loaded machine is slower, not stuck. Each test has its own limit
 * (`timeout`, and actions and navigations theirs), and `.ci/run` caps `npm test` as a whole, so a
 * hang still ends the run.
 */
const isCI = !!process.env.CI;

// scripts/test.mjs resolves Chromium first and passes CHROMIUM_PATH on, so workers never install.
const executablePath = findChromium();

/**
 * One worker per core: SwiftShader rendering is CPU-bound, so more would only thrash; and no more
 * than memory allows (a worker's Chromium takes up to about 1 GiB). E2E_WORKERS overrides.
 */
export function e2eWorkers(cores = availableParallelism(), memoryBytes = totalmem(), override?: string): number {
  if (override && Number(override) >= 1) return Math.floor(Number(override));
  return Math.max(1, Math.min(cores, Math.floor(memoryBytes / 2 ** 30)));
}

/**
 * Spec files whose tests are independent of each other (distinct scenes, or scenes no test
 * changes; shared ones prepared under a lock, helpers.ts `underLock`): their tests are spread over
 * all workers, so the longest files no longer run end to end in one worker while the others idle.
 * Others run file by file, in parallel with the rest (their tests share a page or a beforeAll's
 * work, or change a scene another test reads).
 */
const TEST_BY_TEST = ['viewer.spec.ts', 'upload.spec.ts', 'host-api.spec.ts', 'editor.spec.ts', 'rendering.spec.ts', 'viewer-ux.spec.ts'];

export default defineConfig({
  testDir: 'tests/e2e',
  // Playwright empties its outputDir at the start of a run: keep it apart from
  // test-results/unit.json and test-results/e2e.json.
  outputDir: 'test-results/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  workers: e2eWorkers(availableParallelism(), totalmem(), process.env.E2E_WORKERS),
  forbidOnly: isCI,
  retries: 0,
  // Generous: on 2 cores shared with other work a test takes several times its quiet time, and the
  // limits are there to end a hang, not to time the viewer.
  timeout: 180_000,
  expect: { timeout: 30_000 },
  globalTimeout: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  projects: [
    { name: 'test by test', testMatch: TEST_BY_TEST.map((file) => `**/${file}`), fullyParallel: true },
    { name: 'file by file', testMatch: '**/*.spec.ts', testIgnore: TEST_BY_TEST.map((file) => `**/${file}`), fullyParallel: false },
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    // Set by global-setup before the workers start (workers read this config after it ran).
    baseURL: process.env.E2E_BASE_URL,
    // Without multisampling (scripts/chromium.mjs): the tests that judge the picture against a
    // reference ask for it as drawn (tests/e2e/picture.ts, PICTURE_AS_DRAWN).
    launchOptions: { executablePath, args: [...CHROMIUM_ARGS, ...NO_MULTISAMPLING_ARGS] },
    viewport: { width: 960, height: 540 },
    actionTimeout: 30_000,
    navigationTimeout: 60_000,
    screenshot: 'only-on-failure',
    // Tracing screencasts every frame and costs ~15% of SwiftShader's frame rate on 2 cores:
    // off unless E2E_TRACE=1 (or `npx playwright test --trace on`).
    trace: process.env.E2E_TRACE === '1' ? 'retain-on-failure' : 'off',
  },
});
