import type { Browser, Page } from '@playwright/test';

export interface ViewerPageOptions {
  viewport: { width: number; height: number };
  /** Until the viewer is ready (or failed). */
  readyTimeoutMs: number;
  /** Then until the shadow maps are in (they come after the first picture: src/engine/shadow-reveal.ts). */
  shadowsTimeoutMs: number;
  /** What the page shows, for the error when it does not load. */
  what: string;
  /** Run on the new page before it navigates (an init script: a signed-in person's token). */
  prepare?: (page: Page) => Promise<void>;
}

/**
 * A page of our viewer at `url` (an /embed URL), ready and with its shadow maps drawn: what the
 * frame benchmarks measure on. Throws, naming the viewer's failure, when the scene does not load.
 */
export async function openViewerPage(browser: Browser, url: string, options: ViewerPageOptions): Promise<Page> {
  const page = await browser.newPage({ viewport: options.viewport });
  // tsx keeps function names with a __name helper, which the page does not have.
  await page.addInitScript('window.__name = (f) => f;');
  await options.prepare?.(page);
  await page.goto(url);
  await page.waitForFunction(
    () => {
      const phase = (window as any).__viewer?.phase;
      return phase === 'ready' || phase === 'failed';
    },
    undefined,
    { timeout: options.readyTimeoutMs, polling: 200 },
  );
  const phase = await page.evaluate(() => (window as any).__viewer.phase);
  if (phase !== 'ready') throw new Error(`${options.what} did not load (${url}): ${await page.evaluate(() => (window as any).__viewer.failure)}`);
  await page.waitForFunction(() => (window as any).__viewer.viewer.world.shadows.reveal.phase === 0, undefined, {
    timeout: options.shadowsTimeoutMs,
    polling: 100,
  });
  return page;
}
