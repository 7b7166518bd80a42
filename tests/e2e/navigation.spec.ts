import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { settled } from './helpers';

/**
 * Navigation, orientation gizmo, projection, first person, screenshots and the animation panel on
 * the demo scene the server generates (a pump unit of about 3 x 1.7 x 1.6 m with two looping
 * animations), doing what a person does: one page load, mouse and keyboard only where a person
 * would use them; the checks read the camera through window.__viewer.viewer.
 */

interface View {
  dir: [number, number, number];
  pos: [number, number, number];
  target: [number, number, number];
  projection: string;
  mode: string;
  /** Screen-space (NDC) height of one metre along the camera's up at the orbit target. */
  metreAtTarget: number;
  canvas: [number, number];
}

async function view(page: Page): Promise<View> {
  return page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const nav = viewer.navigation;
    const cam = nav.camera;
    cam.updateMatrixWorld();
    const dir = cam.getWorldDirection(cam.position.clone());
    const pos = nav.controls.getPosition(cam.position.clone(), true);
    const target = nav.controls.getTarget(cam.position.clone(), true);
    // Project the target and a point 1 m above it (along the camera's up) to normalised device coordinates.
    const up = cam.up.clone().applyQuaternion(cam.quaternion).normalize();
    const a = target.clone().project(cam);
    const b = target.clone().add(up).project(cam);
    const canvas = viewer.context.renderer.domElement as HTMLCanvasElement;
    return {
      dir: [dir.x, dir.y, dir.z],
      pos: [pos.x, pos.y, pos.z],
      target: [target.x, target.y, target.z],
      projection: nav.projection,
      mode: nav.mode,
      metreAtTarget: Math.hypot(b.x - a.x, b.y - a.y),
      canvas: [canvas.width, canvas.height],
    } as View;
  });
}

/** Waits until the camera has stopped moving (transitions and damping done). */
async function atRest(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const nav = (window as any).__viewer.viewer.navigation;
      const c = nav.controls;
      const v = nav.camera.position;
      const near = (a: any, b: any) => a.distanceTo(b) < 1e-5;
      return (
        near(c.getPosition(v.clone(), false), c.getPosition(v.clone(), true)) &&
        near(c.getTarget(v.clone(), false), c.getTarget(v.clone(), true)) &&
        Math.abs(nav.camera.zoom - c.zoomEnd) < 1e-6
      );
    },
    undefined,
    { timeout: 30_000, polling: 100 },
  );
}

const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** PNG signature and the IHDR width and height. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('navigation, gizmo, projection, first person, screenshot and animation panel on the demo scene', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/embed/demo');
  expect(await settled(page)).toBe('ready');

  // --- The view toolbar and the gizmo are there, with accessible names.
  const toolbar = page.getByRole('toolbar', { name: 'View' });
  await expect(toolbar).toBeVisible();
  await expect(page.getByTestId('nav-mode-orbit')).toHaveAttribute('aria-pressed', 'true');
  const gizmo = page.getByTestId('orientation-gizmo');
  await expect(gizmo).toBeVisible();
  const gbox = (await gizmo.boundingBox())!;
  expect(Math.round(gbox.width)).toBe(110);
  const viewport = page.viewportSize()!;
  expect(gbox.x + gbox.width).toBeGreaterThan(viewport.width - 30);
  expect(gbox.y).toBeLessThan(30);
  await expect(page.getByRole('button', { name: 'View from +X' })).toHaveCount(1);

  // --- Click the X bubble: the camera turns to look along -X (from the +X side), smoothly.
  const bubble = await page.evaluate(() => (window as any).__viewer.viewer.gizmo.bubbleAt('+x'));
  await page.mouse.move(gbox.x + bubble.x, gbox.y + bubble.y);
  await expect(gizmo.locator('canvas')).toHaveCSS('cursor', 'pointer');
  await page.mouse.down();
  await page.mouse.up();
  await expect.poll(async () => dot((await view(page)).dir, [-1, 0, 0]), { timeout: 30_000 }).toBeGreaterThan(0.999);
  // The top bubble: looking down.
  const top = await page.evaluate(() => (window as any).__viewer.viewer.gizmo.bubbleAt('+y'));
  await page.mouse.click(gbox.x + top.x, gbox.y + top.y);
  await expect.poll(async () => (await view(page)).dir[1], { timeout: 30_000 }).toBeLessThan(-0.999);
  // Home: back to the three-quarter view the scene opened with, for the rest.
  await page.getByTestId('home-view').click();
  await expect.poll(async () => (await view(page)).dir[1], { timeout: 30_000 }).toBeGreaterThan(-0.9);
  await atRest(page);

  // --- Orthographic keeps the framing: one metre at the target is as tall on screen as before.
  const persp = await view(page);
  await page.getByTestId('projection-toggle').click();
  await expect(page.getByTestId('projection-toggle')).toHaveAttribute('aria-pressed', 'true');
  const ortho = await view(page);
  expect(ortho.projection).toBe('Orthographic');
  expect(ortho.metreAtTarget).toBeCloseTo(persp.metreAtTarget, 3);
  expect(dot(ortho.dir, persp.dir)).toBeGreaterThan(0.9999);
  // First person is perspective only.
  await expect(page.getByTestId('nav-mode-first-person')).toBeDisabled();
  await page.getByTestId('projection-toggle').click();
  await expect(page.getByTestId('projection-toggle')).toHaveAttribute('aria-pressed', 'false');
  expect((await view(page)).metreAtTarget).toBeCloseTo(persp.metreAtTarget, 3);

  // --- First person: W walks forward (the horizontal view direction).
  await page.getByTestId('nav-mode-first-person').click();
  await expect(page.getByTestId('nav-mode-first-person')).toHaveAttribute('aria-pressed', 'true');
  // Chosen with the mouse, first person gives the view the keyboard at once.
  await expect(page.getByTestId('viewer-canvas')).toBeFocused();
  await atRest(page);
  const before = await view(page);
  expect(before.mode).toBe('FirstPerson');
  // A press on the view gives it the keyboard (a click in the sky, clear of the panels).
  await page.mouse.click(viewport.width * 0.45, viewport.height * 0.2);
  await expect(page.getByTestId('viewer-canvas')).toBeFocused();
  await page.keyboard.down('KeyW');
  await expect.poll(async () => Math.hypot(...(await view(page)).pos.map((v, i) => v - before.pos[i])), { timeout: 30_000 }).toBeGreaterThan(0.3);
  await page.keyboard.up('KeyW');
  const after = await view(page);
  const moved = after.pos.map((v, i) => v - before.pos[i]);
  const forward = [before.dir[0], 0, before.dir[2]];
  const len = Math.hypot(...forward);
  expect(dot(moved, forward) / len / Math.hypot(...moved)).toBeGreaterThan(0.99);
  expect(dot(after.dir, before.dir)).toBeGreaterThan(0.999);
  await page.getByTestId('nav-mode-orbit').click();
  expect((await view(page)).mode).toBe('Orbit');

  // --- Screenshot: the download is 'high-res-screenshot.png', a PNG of twice the canvas.
  const canvasSize = (await view(page)).canvas;
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('screenshot-button').click()]);
  expect(download.suggestedFilename()).toBe('high-res-screenshot.png');
  const png = readFileSync((await download.path())!);
  expect(pngSize(png)).toEqual({ width: canvasSize[0] * 2, height: canvasSize[1] * 2 });
  // Tiled above the tile limit: the same picture as drawn in one piece, assembled in the right places.
  const tiled = await page.evaluate(async () => {
    const viewer = (window as any).__viewer.viewer;
    const pixels = async (blob: Blob) => {
      const bitmap = await createImageBitmap(blob);
      const c = document.createElement('canvas');
      c.width = bitmap.width;
      c.height = bitmap.height;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(bitmap, 0, 0);
      return ctx.getImageData(0, 0, c.width, c.height);
    };
    const whole: Blob = await viewer.screenshot({ scale: 1 });
    const pieces: Blob = await viewer.screenshot({ scale: 1, maxTileSize: 256 });
    const a = await pixels(whole);
    const b = await pixels(pieces);
    const bg = [a.data[0], a.data[1], a.data[2]];
    let diff = 0;
    let model = 0;
    for (let i = 0; i < a.data.length; i += 4) {
      diff += Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]);
      if (Math.abs(b.data[i] - bg[0]) + Math.abs(b.data[i + 1] - bg[1]) + Math.abs(b.data[i + 2] - bg[2]) > 48) model++;
    }
    const n = a.data.length / 4;
    const canvas = viewer.context.renderer.domElement as HTMLCanvasElement;
    return { type: pieces.type, size: [b.width, b.height, a.width, a.height], canvas: [canvas.width, canvas.height], meanDiff: diff / n / 3, model: model / n, tier: viewer.quality.settings.tier };
  });
  expect(tiled.type).toBe('image/png');
  expect(tiled.size).toEqual([...tiled.canvas, ...tiled.canvas]);
  expect(tiled.model, 'the model is in the picture').toBeGreaterThan(0.05);
  expect(tiled.meanDiff, 'tiles in their places').toBeLessThan(8);

  // --- The animation panel lists the demo's two animations; play and pause one.
  const panel = page.getByTestId('animation-panel');
  await expect(panel).toBeVisible();
  const rows = panel.getByTestId('animation-row');
  await expect(rows).toHaveCount(2);
  const spin = rows.filter({ hasText: 'Spin' });
  await spin.getByRole('button', { name: 'Play Spin' }).click();
  await expect(spin).toHaveAttribute('data-status', 'playing');
  await page.screenshot({ path: 'tests/.tmp/navigation-ui.png' });
  const spinTime = () => page.evaluate(() => (window as any).__viewer.viewer.world.models.values().next().value.animations.find((a: any) => a.name === 'Spin').action.time as number);
  const t0 = await spinTime();
  await expect.poll(spinTime, { timeout: 30_000 }).not.toBe(t0);
  await spin.getByRole('button', { name: 'Pause Spin' }).click();
  await expect(spin).toHaveAttribute('data-status', 'paused');
  const paused = await spinTime();
  await page.waitForTimeout(300);
  expect(await spinTime()).toBe(paused);
  await spin.getByRole('button', { name: 'Stop Spin' }).click();
  await expect(spin).toHaveAttribute('data-status', 'stopped');
  // Dragging the speed slider changes the speed and leaves the camera alone.
  const camBefore = (await view(page)).pos;
  const slider = panel.getByTestId('animation-speed');
  const sbox = (await slider.boundingBox())!;
  await page.mouse.move(sbox.x + sbox.width * 0.2, sbox.y + sbox.height / 2);
  await page.mouse.down();
  await page.mouse.move(sbox.x + sbox.width * 0.8, sbox.y + sbox.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.world.animation.speed as number)).toBeGreaterThan(2);
  await expect(panel.locator('output')).toHaveText(/^[2-4]\.\d×$/);
  await atRest(page);
  expect((await view(page)).pos).toEqual(camBefore);

  expect(errors).toEqual([]);
});

test.describe('on a phone-sized screen', () => {
  test.use({ viewport: { width: 390, height: 760 } });

  test('with post-processing: orthographic draws through the rebuilt passes; screenshots leave helpers out', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('/embed/demo?quality=medium');
    expect(await settled(page)).toBe('ready');
    // Small screens: the animation panel starts collapsed; the toolbar and the gizmo fit.
    await expect(page.getByTestId('animation-panel-toggle')).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByTestId('animation-row')).toHaveCount(0);
    const bar = (await page.getByTestId('view-controls').boundingBox())!;
    expect(bar.x + bar.width).toBeLessThanOrEqual(390);
    expect(bar.y + bar.height).toBeLessThan(760);
    // The watermark and the meeting panel share the bottom edge without overlapping: the watermark
    // shows its logo alone there, and keeps its name for screen readers.
    const watermark = page.getByTestId('watermark');
    await expect(watermark).toHaveAccessibleName('Parametricos');
    const mark = (await watermark.boundingBox())!;
    const meeting = (await page.getByTestId('meeting-panel').boundingBox())!;
    expect(mark.y + mark.height).toBeGreaterThan(meeting.y);
    expect(mark.x + mark.width).toBeLessThanOrEqual(meeting.x);
    await page.screenshot({ path: 'tests/.tmp/navigation-phone.png' });
    // Narrow screens fold the view toolbar into a menu.
    await expect(page.getByTestId('projection-toggle')).toHaveCount(0);
    await page.getByTestId('view-menu').click();
    await page.getByTestId('projection-toggle').click();
    await expect(page.getByTestId('projection-toggle')).toHaveAttribute('aria-pressed', 'true');
    await atRest(page);

    // The composer draws with the camera in use.
    const cameras = await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      return { ortho: viewer.navigation.camera.isOrthographicCamera === true, samePassCamera: viewer.postprocessing.composer.passes[0].camera === viewer.navigation.camera };
    });
    expect(cameras).toEqual({ ortho: true, samePassCamera: true });

    const canvas = page.getByTestId('viewer-canvas');
    const screenshotPixels = () =>
      page.evaluate(async () => {
        const blob: Blob = await (window as any).__viewer.viewer.screenshot();
        const bitmap = await createImageBitmap(blob);
        const c = document.createElement('canvas');
        c.width = bitmap.width;
        c.height = bitmap.height;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(bitmap, 0, 0);
        return Array.from(ctx.getImageData(0, 0, c.width, c.height).data.filter((_, i) => i % 397 === 0));
      });
    const viewBefore = await canvas.screenshot();
    const shotBefore = await screenshotPixels();
    // A helper on layer 15 at the orbit target, covering part of the view.
    await page.evaluate(async () => {
      const viewer = (window as any).__viewer.viewer;
      const scene = viewer.context.scene;
      let mesh: any = null;
      viewer.world.models.values().next().value.root.traverseVisible((o: any) => {
        if (!mesh && o.isMesh && o.name) mesh = o;
      });
      const helper = mesh.clone();
      helper.name = 'test helper';
      helper.layers.set(15);
      helper.matrixAutoUpdate = true;
      helper.matrixWorldAutoUpdate = true;
      viewer.navigation.controls.getTarget(helper.position, true);
      helper.scale.setScalar(3);
      scene.add(helper);
      helper.updateMatrixWorld(true);
      await viewer.nextFrame();
    });
    const viewWith = await canvas.screenshot();
    const shotWith = await screenshotPixels();
    expect(viewWith.equals(viewBefore), 'the helper is drawn in the viewport').toBe(false);
    let diff = 0;
    for (let i = 0; i < shotBefore.length; i++) diff += Math.abs(shotBefore[i] - shotWith[i]);
    expect(diff / shotBefore.length, 'and left out of the screenshot').toBeLessThan(0.5);
    expect(errors).toEqual([]);
  });
});
