import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './scripts/chromium.mjs';

/**
 * Browser tests in real Chromium (Debian's package, never a Playwright download), rendering WebGL2
 * with SwiftShader: no GPU here or in CI, so timeouts are generous.
 *
 * tests/e2e/global-setup.ts builds dist/ if stale, starts the server on a free port with a fresh
 * DATA_DIR and hands E2E_BASE_URL / E2E_DATA_DIR to the tests (also in tests/.tmp/e2e-env.json).
 * Run through `npm test` (scripts/test.mjs), or alone with `npx playwright test`.
 */
const isCI = !!process.env.CI;

// scripts/test.mjs resolves Chromium first and passes CHROMIUM_PATH on, so workers never install.
const executablePath = findChromium();

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  // Playwright empties its outputDir at the start of a run: keep it apart from
  // test-results/unit.json and test-results/e2e.json.
  outputDir: 'test-results/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  // CI has 2 cores; one worker each. SwiftShader rendering is CPU-bound, so more would only thrash.
  workers: 2,
  fullyParallel: false,
  forbidOnly: isCI,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // CI must finish in 20 minutes, install and unit tests included.
  globalTimeout: isCI ? 14 * 60_000 : 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    // Set by global-setup before the workers start (workers read this config after it ran).
    baseURL: process.env.E2E_BASE_URL,
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
    viewport: { width: 1280, height: 720 },
    actionTimeout: 30_000,
    navigationTimeout: 60_000,
    screenshot: 'only-on-failure',
    // Tracing screencasts every frame and costs ~15% of SwiftShader's frame rate on 2 cores:
    // off unless E2E_TRACE=1 (or `npx playwright test --trace on`).
    trace: process.env.E2E_TRACE === '1' ? 'retain-on-failure' : 'off',
  },
});
