import { test, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';

/**
 * The browser tests draw without multisampling (playwright.config.ts, NO_MULTISAMPLING_ARGS): it
 * changes edges by a pixel and costs SwiftShader a third less. The tests that compare the picture
 * with a reference picture draw as a visitor's browser does, multisampled where the quality tier
 * asks for it:
 *
 * - a whole file: `test.use(PICTURE_AS_DRAWN)` (Playwright gives it workers of their own);
 * - one test among others: `pictureTest(…, async ({ drawnPage }) => …)`, whose page is in a
 *   browser of its own, launched with CHROMIUM_ARGS alone (a describe group cannot change the
 *   worker's browser).
 */
export const PICTURE_AS_DRAWN = { launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS } };

export const pictureTest = test.extend<{ drawnPage: Page }>({
  drawnPage: async ({ playwright, baseURL, viewport }, use) => {
    const browser = await playwright.chromium.launch({ ...PICTURE_AS_DRAWN.launchOptions, headless: true });
    try {
      const context = await browser.newContext({ baseURL, viewport });
      await use(await context.newPage());
    } finally {
      await browser.close();
    }
  },
});
