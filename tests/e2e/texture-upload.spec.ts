import { deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { decodePng } from './png';

/**
 * The editor's texture upload (issue 11, item 7): sign in, duplicate the demo, select a node,
 * upload a PNG made here as its base colour map (one undo step), save, and see the texture in the
 * viewer (/embed/): the node's pixels turn the image's colour.
 */
test.setTimeout(240_000);

/** A valid RGB PNG of one colour, written here (no binary fixtures). */
function solidPng(size: number, rgb: [number, number, number]): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8;
  header[9] = 2;
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) rows.set(rgb, y * (1 + size * 3) + 1 + x * 3);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

async function signIn(page: Page, returnTo: string) {
  await page.goto(`/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByLabel(/first name/i).fill('Tex');
  await page.getByLabel(/last name/i).fill('Turer');
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.pathname === returnTo, { timeout: 60_000 });
}

const ready = (page: Page) => page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });

/** Pixels of the canvas' screenshot that are clearly the uploaded green (high G, low R and B). */
async function greenPixels(page: Page, name: string): Promise<number> {
  const shot = await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath(name) });
  const picture = decodePng(shot);
  let count = 0;
  for (let i = 0; i < picture.data.length; i += 4) {
    const [r, g, b] = [picture.data[i], picture.data[i + 1], picture.data[i + 2]];
    if (g > 120 && r < g * 0.5 && b < g * 0.5) count++;
  }
  return count;
}

test('upload a PNG as the base colour map of a node, undo and redo it, save, and the viewer shows it', async ({ page }) => {
  await signIn(page, '/edit/demo');
  await ready(page);
  await page.getByTestId('duplicate').click();
  await page.waitForURL((url) => url.pathname.startsWith('/edit/') && url.pathname !== '/edit/demo', { timeout: 60_000 });
  const copyId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  await ready(page);
  await expect(page.getByTestId('outliner')).toBeVisible({ timeout: 60_000 });

  // The original demo in the viewer first: how green it is without the texture.
  const canvas = page.getByTestId('viewer-canvas');
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.materialId ?? null), { timeout: 30_000 }).not.toBeNull();
  const maps = page.getByTestId('texture-maps');
  await expect(maps).toBeVisible();
  const hadMap = await maps.locator('[data-map=map]').count();
  const readMap = () =>
    page.evaluate(() => {
      const e = (window as any).__editor;
      return e.readMaterial(e.selection.modelId, e.selection.materialId, ['map']).map ?? null;
    });
  const before = await readMap();
  if (hadMap === 0) await maps.getByLabel('Map to add').selectOption('map');

  // A refused file: a clear message, nothing changes.
  await maps.getByLabel('Upload map image').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await expect(maps.getByRole('alert')).toContainText('notes.txt: A texture must be a PNG, JPEG or WebP image');
  expect(await readMap()).toEqual(before);

  const doneSteps = () => page.evaluate(() => (window as any).__editor.history.steps().filter((s: { done: boolean }) => s.done).map((s: { name: string }) => s.name));
  const steps = await doneSteps();
  await maps.getByLabel('Upload map image').setInputFiles({ name: 'green.png', mimeType: 'image/png', buffer: solidPng(16, [0, 220, 0]) });
  await expect.poll(async () => (await readMap())?.textureId ?? null, { timeout: 30_000 }).toMatch(/^u-[0-9a-f]{24}$/);
  const uploaded = (await readMap()).textureId as string;
  await expect(maps.getByRole('alert')).toHaveCount(0);
  // The new texture is in the map's texture list (when the model has others to choose from).
  expect(await page.evaluate(() => (window as any).__editor.listTextures((window as any).__editor.selection.modelId))).toContain(uploaded);
  expect(await doneSteps()).toEqual([...steps, 'Upload map texture']);

  // One undo step: undo puts back the previous map, redo the upload.
  await canvas.focus();
  await page.keyboard.press('Control+z');
  await expect.poll(readMap).toEqual(before);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(async () => (await readMap())?.textureId).toBe(uploaded);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.screenshot({ path: test.info().outputPath('editor-uploaded.png') });

  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });

  // The viewer: the original demo, then the copy with the uploaded texture.
  await page.goto('/embed/demo');
  await ready(page);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const greenBefore = await greenPixels(page, 'embed-original.png');
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await ready(page);
  const applied = await page.evaluate((id) => {
    let found: any = null;
    (window as any).__viewer.viewer.context.scene.traverse((o: any) => {
      if (!found && o.isMesh && o.material?.map?.userData?.uploadedTextureId === id) found = { colorSpace: o.material.map.colorSpace, flipY: o.material.map.flipY, width: o.material.map.image?.width };
    });
    return found;
  }, uploaded);
  expect(applied).toEqual({ colorSpace: 'srgb', flipY: false, width: 16 });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const greenAfter = await greenPixels(page, 'embed-textured.png');
  // The node is drawn with the green image: many more green pixels than the original shows.
  expect(greenAfter).toBeGreaterThan(greenBefore + 2000);
});
