import { expect, test } from '@playwright/test';

/**
 * Proves the harness: Debian's Chromium launches headless, WebGL2 works on SwiftShader and what it
 * draws reaches a screenshot, and the server started by global-setup answers.
 */

const PAGE = `<!doctype html>
<html><body style="margin:0;background:#fff">
<canvas id="c" width="64" height="64" style="display:block"></canvas>
<script>
  const gl = document.getElementById('c').getContext('webgl2', { preserveDrawingBuffer: true });
  const info = { webgl2: !!gl };
  if (gl) {
    const dbg = gl.getExtension('WEBGL_debug_renderer_info');
    info.renderer = dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    info.version = gl.getParameter(gl.VERSION);
    gl.clearColor(1.0, 0.5, 0.0, 1.0); // orange
    gl.clear(gl.COLOR_BUFFER_BIT);
    const px = new Uint8Array(4);
    gl.readPixels(32, 32, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    info.pixel = Array.from(px);
  }
  window.__smoke = info;
</script>
</body></html>`;

test('Chromium renders WebGL2 (SwiftShader) and a screenshot shows it', async ({ page, browser }) => {
  test.info().annotations.push({ type: 'chromium', description: browser.version() });
  await page.setContent(PAGE);
  const info = await page.waitForFunction(() => (window as any).__smoke).then((h) => h.jsonValue());
  test.info().annotations.push({ type: 'webgl', description: `${info.version} / ${info.renderer}` });

  expect(info.webgl2, 'getContext("webgl2") returned null').toBe(true);
  expect(info.version).toContain('WebGL 2.0');
  // readPixels of the cleared canvas: orange, within rounding
  expect(info.pixel[0]).toBe(255);
  expect(Math.abs(info.pixel[1] - 128)).toBeLessThanOrEqual(1);
  expect(info.pixel[2]).toBe(0);
  expect(info.pixel[3]).toBe(255);

  // The composited canvas, as a person would see it: decode the screenshot in the page and
  // check it is not blank (the page background is white; the canvas must show orange).
  const png = await page.locator('#c').screenshot();
  const stats = await page.evaluate(async (b64) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let orange = 0;
    const distinct = new Set<number>();
    for (let i = 0; i < d.length; i += 4) {
      distinct.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (d[i] > 240 && d[i + 1] > 110 && d[i + 1] < 145 && d[i + 2] < 15) orange++;
    }
    return { width: c.width, height: c.height, pixels: d.length / 4, orange, distinct: distinct.size };
  }, png.toString('base64'));

  expect(stats.width).toBe(64);
  expect(stats.height).toBe(64);
  expect(stats.orange / stats.pixels, `screenshot: ${JSON.stringify(stats)}`).toBeGreaterThan(0.95);
});

test('the server answers GET /v1/config with JSON, at baseURL', async ({ request, baseURL }) => {
  const base = process.env.E2E_BASE_URL;
  expect(base, 'E2E_BASE_URL is set by tests/e2e/global-setup.ts').toBeTruthy();
  expect(process.env.E2E_DATA_DIR, 'E2E_DATA_DIR is set by tests/e2e/global-setup.ts').toBeTruthy();
  // Relative URLs work in page.goto() and request: the config's baseURL is the server's.
  expect(baseURL).toBe(base);
  const res = await request.get('/v1/config');
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('application/json');
  const body = await res.json();
  expect(typeof body).toBe('object');
  expect(body).not.toBeNull();
});
