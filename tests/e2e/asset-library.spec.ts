import { expect, test, type Page } from '@playwright/test';
import { join } from 'node:path';
import { MODELS } from './helpers';

/**
 * The asset library on the home page: upload an asset (validated and optimised like a model), it
 * is listed with a thumbnail rendered in the browser and stored on the server; a malformed file
 * is refused with the validator's findings and the list keeps what it had.
 */

async function signIn(page: Page, last: string) {
  await page.goto('/auth/sign-in?returnTo=/');
  await page.getByLabel('First name').fill('Asset');
  await page.getByLabel('Last name').fill(last);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/');
}

test.describe('asset library', () => {
  test('an uploaded asset is listed with its thumbnail; a malformed one is refused and the list keeps the others', async ({ page }, info) => {
    // A person of their own, so the list starts empty on a DATA_DIR kept between runs.
    await signIn(page, `Tester${Date.now().toString(36)}`);
    const library = page.getByRole('region', { name: 'Assets' });
    await expect(library.getByText('No assets yet.')).toBeVisible();

    const thumbnailPut = page.waitForResponse((r) => r.request().method() === 'PUT' && /\/v1\/assets\/[^/]+\/thumbnail$/.test(r.url()), { timeout: 90_000 });
    await library.getByLabel('Choose asset files').setInputFiles(join(MODELS, 'Duck.glb'));
    await expect(library.getByRole('progressbar')).toBeVisible();
    await expect(library.getByText("Duck.glb is in your assets as 'Duck'.")).toBeVisible({ timeout: 60_000 });
    const tiles = library.getByRole('list', { name: 'Your assets' }).getByRole('listitem');
    await expect(tiles).toHaveCount(1);
    await expect(tiles.first()).toContainText('Duck');

    // The thumbnail: rendered once, stored (PUT 200), then shown from the server.
    expect((await thumbnailPut).status()).toBe(200);
    const picture = tiles.first().getByRole('img', { name: 'Thumbnail of Duck' });
    // Thumbnails load lazily: on a home page with many scenes the library is below the fold.
    await library.scrollIntoViewIfNeeded();
    await expect(picture).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 30_000 }).toBe(256);
    // Not an empty picture: the duck covers a good part of it, and it is mostly yellow.
    const stats = await picture.evaluate((img: HTMLImageElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let covered = 0;
      let yellow = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! > 128) {
          covered++;
          if (data[i]! > 120 && data[i + 1]! > 90 && data[i + 2]! < data[i]! * 0.75) yellow++;
        }
      }
      return { covered: covered / (data.length / 4), yellow: yellow / Math.max(1, covered) };
    });
    expect(stats.covered).toBeGreaterThan(0.15);
    expect(stats.yellow).toBeGreaterThan(0.4);
    await library.screenshot({ path: info.outputPath('asset-library.png') });

    // After a reload the list and its stored thumbnail come from the server.
    await page.reload();
    await page.getByRole('region', { name: 'Assets' }).scrollIntoViewIfNeeded();
    await expect(page.getByRole('region', { name: 'Assets' }).getByRole('img', { name: 'Thumbnail of Duck' })).toBeVisible();

    // A malformed GLB from the corpus: the clear error, the validator's findings, the list unchanged.
    await library.getByLabel('Choose asset files').setInputFiles(join(MODELS, 'malformed/glb/invalid_json_chunk.glb'));
    const alert = library.getByRole('alert');
    await expect(alert).toContainText('invalid_json_chunk.glb', { timeout: 60_000 });
    await expect(alert.getByRole('list', { name: 'Validator findings' })).toContainText('INVALID_JSON');
    await expect(tiles).toHaveCount(1);
    await expect(tiles.first()).toContainText('Duck');
    await expect(tiles.first().getByRole('img', { name: 'Thumbnail of Duck' })).toBeVisible();
    await library.screenshot({ path: info.outputPath('asset-library-refused.png') });
    expect(new URL(page.url()).pathname).toBe('/');
  });

  test('a thumbnail that cannot be loaded shows the neutral tile, never a broken image', async ({ page }) => {
    await signIn(page, `Broken${Date.now().toString(36)}`);
    const library = page.getByRole('region', { name: 'Assets' });
    await page.route(/\/v1\/assets\/[^/]+\/thumbnail\?v=/, (route) => route.fulfill({ status: 404, body: 'gone' }));
    await library.getByLabel('Choose asset files').setInputFiles(join(MODELS, 'Box-draco.glb'));
    const tile = library.getByRole('list', { name: 'Your assets' }).getByRole('listitem').first();
    await expect(tile).toContainText('Box-draco', { timeout: 60_000 });
    await tile.scrollIntoViewIfNeeded();
    await expect(tile).toContainText('no preview', { timeout: 60_000 });
    await expect(tile.getByRole('img')).toHaveCount(0);
    await expect(tile.locator('.asset-thumb-none')).toBeVisible();
  });
});
