import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOX, writeToolsBox } from './fixtures-tools';
import { canvasScreenshot, importIntoScene, ROOT, settled, toClient } from './helpers';
import { pictureTest } from './picture';
import { decodePng, type Picture } from './png';

/**
 * The viewer in a professional's hands (issue 13), on the tools' 2 x 3 x 1 m box (x -1..1, y 0..3,
 * z -0.5..0.5) and the demo scene: a dimensioned screenshot, the section plane and caps as a
 * person sees them, square plan and top views, Enter after Flip, zoom that never passes the
 * surface, units, keyboard orbit, phone wording and layout, the animation timeline and the small
 * things (accessible name, focus ring, tab order, hover colour).
 *
 * The section reference picture lives in tests/e2e/references/; regenerate it after a deliberate
 * change with UPDATE_REFERENCES=1 and look at it before committing.
 */

const SCENE = 'tools-box';
const REFERENCES = join(import.meta.dirname, 'references');
const UPDATE = process.env.UPDATE_REFERENCES === '1';
type Vec = [number, number, number];

async function clickAt(page: Page, p: Vec) {
  const c = await toClient(page, p);
  await page.mouse.click(c.x, c.y);
}

async function snapshot(page: Page): Promise<any> {
  return page.evaluate(() => (window as any).__viewer.viewer.tools.getSnapshot());
}

/** Waits until camera-controls has reached where it is heading (current pose = end pose) and drawn it. */
async function atRest(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const viewer = (window as any).__viewer.viewer;
      const c = viewer.navigation.controls;
      const p = viewer.navigation.camera.position.clone();
      const gap =
        c.getPosition(p.clone(), false).distanceTo(c.getPosition(p.clone(), true)) +
        c.getTarget(p.clone(), false).distanceTo(c.getTarget(p.clone(), true)) +
        Math.abs(viewer.navigation.camera.zoom - c.zoomEnd);
      const w = window as any;
      const settledNow = gap < 1e-4 && !viewer.world.render.needsRender && !viewer.world.render.needsPicture;
      const twice = settledNow && w.__wasSettled === true;
      w.__wasSettled = settledNow;
      return twice;
    },
    undefined,
    { polling: 200, timeout: 30_000 },
  );
}

async function openBox(page: Page): Promise<void> {
  await importIntoScene(await writeToolsBox(join(ROOT, 'tests/.tmp/tools-box.glb')), SCENE);
  await page.goto(`/embed/${SCENE}?quality=low&uiWatermark=false`);
  expect(await settled(page)).toBe('ready');
  await page.waitForFunction(() => {
    const viewer = (window as any).__viewer.viewer;
    const box = viewer.world.objects.find((o: any) => o?.isMesh);
    return !!box && !!viewer.picker.treeOf(box);
  });
}

/** Pixels of a picture in a rectangle that pass a test. */
function countIn(p: Picture, x0: number, y0: number, x1: number, y1: number, test: (r: number, g: number, b: number) => boolean): number {
  let n = 0;
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(p.height, y1); y++) {
    for (let x = Math.max(0, Math.floor(x0)); x < Math.min(p.width, x1); x++) {
      const i = (y * p.width + x) * 4;
      if (test(p.data[i], p.data[i + 1], p.data[i + 2])) n++;
    }
  }
  return n;
}

const near = (c: [number, number, number], tolerance: number) => (r: number, g: number, b: number) => Math.abs(r - c[0]) + Math.abs(g - c[1]) + Math.abs(b - c[2]) < tolerance;

test.describe('on a desktop', () => {
  // A laptop's window less the browser's own bars (smaller than 1280 x 800: SwiftShader's cost follows the pixels).
  const DESKTOP = { width: 1024, height: 640 };
  test.use({ viewport: DESKTOP });

  test('a screenshot carries the measurement and its label; the option leaves them out', async ({ page }) => {
    test.setTimeout(180_000);
    const scripts: string[] = [];
    page.on('request', (r) => scripts.push(new URL(r.url()).pathname));
    await openBox(page);
    await page.getByTestId('tool-length').click();
    // Across the middle of the front face (no corner within snapping reach): the label lies on the box.
    await clickAt(page, [-0.9, 1.5, Z]);
    await clickAt(page, [0.9, 1.5, Z]);
    const label = page.getByTestId('measure-label').filter({ hasText: '1.80 m' });
    await expect(label).toBeVisible();
    // A mouse never needs the touch magnifier: its code is not downloaded (the phone test shows it).
    expect(scripts.filter((p) => /\/magnifier-[^/]*\.js$/.test(p))).toEqual([]);
    await expect(page.getByTestId('magnifier')).toHaveCount(0);
    // Turn the tool off: nothing in progress is drawn, only the finished measurement.
    await page.getByTestId('tool-length').click();
    // At rest nothing is drawn again and again (the labels, outlines and panels ask for no frames).
    await atRest(page);
    const frames = () => page.evaluate(() => (window as any).__viewer.viewer.world.stats.renderedFrames as number);
    const f0 = await frames();
    await page.waitForTimeout(1500);
    expect((await frames()) - f0, 'no frames drawn while idle').toBeLessThanOrEqual(2);
    const box = (await label.boundingBox())!;
    const canvas = (await page.getByTestId('viewer-canvas').boundingBox())!;

    const download = async () => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('screenshot-button').click()]);
      // It says when it is done.
      await expect(page.getByTestId('screenshot-status')).toHaveText('Screenshot saved: high-res-screenshot.png');
      return decodePng(readFileSync((await file.path())!));
    };
    const withLabel = await download();
    // The picture is twice the canvas: the label's place on screen, doubled.
    const k = withLabel.width / canvas.width;
    const rect = [(box.x - canvas.x) * k, (box.y - canvas.y) * k, (box.x - canvas.x + box.width) * k, (box.y - canvas.y + box.height) * k] as const;
    const area = (rect[2] - rect[0]) * (rect[3] - rect[1]);
    // The label: its dark background, its blue border and its white text.
    // Label background: rgb(13 27 46 / 88%) over the light box.
    const dark = countIn(withLabel, ...rect, near([34, 48, 66], 45));
    const blue = countIn(withLabel, ...rect, near([31, 142, 250], 90));
    const white = countIn(withLabel, ...rect, (r, g, b) => r > 235 && g > 235 && b > 235);
    expect(dark / area, 'label background in the picture').toBeGreaterThan(0.3);
    expect(blue, 'label border in the picture').toBeGreaterThan(20);
    expect(white, 'label text in the picture').toBeGreaterThan(20);

    // The option leaves them out.
    await page.getByTestId('tool-settings').click();
    await page.getByTestId('setting-screenshot-annotations').uncheck();
    const without = await download();
    expect(countIn(without, ...rect, near([34, 48, 66], 45)) / area, 'no label background').toBeLessThan(0.05);
    expect(countIn(without, ...rect, near([31, 142, 250], 90)), 'no blue line or border').toBeLessThan(5);
  });

  test('Enter after Flip keeps the plane; a new plane starts in move mode; the old error goes with the next action', async ({ page }) => {
    test.setTimeout(180_000);
    await openBox(page);
    await page.getByTestId('tool-section').click();
    // A miss says so, in red.
    await page.mouse.dblclick(40, DESKTOP.height - 160);
    await expect(page.getByTestId('tool-hint')).toHaveText(/^Missed the model/);
    await expect(page.getByTestId('tool-hint')).toHaveClass(/refused/);
    // A plane on the front face (double-click), which clears the error.
    const c = await toClient(page, [0.3, 1.2, Z]);
    await page.mouse.dblclick(c.x, c.y);
    await expect.poll(async () => (await snapshot(page)).sections.length).toBe(1);
    await expect(page.getByTestId('tool-hint')).not.toHaveClass(/refused/);
    expect((await snapshot(page)).gizmoMode).toBe('translate');
    await expect(page.getByTestId('tool-hint')).toHaveText(/^Drag the arrow to push the plane into the model/);
    const before = (await snapshot(page)).sections[0].normal;

    // Tilt mode says what it does; a new plane goes back to move mode.
    await page.getByTestId('section-rotate').click();
    await expect(page.getByTestId('tool-hint')).toHaveText(/^Drag a ring to tilt the plane in 15° steps \(hold Shift to turn freely\)/);

    await page.getByTestId('section-flip').click();
    await expect.poll(async () => (await snapshot(page)).sections[0].normal.z).toBeCloseTo(-before.z, 5);
    // The view has the keyboard: Enter keeps the plane, it does not press Flip again.
    await expect(page.getByTestId('viewer-canvas')).toBeFocused();
    expect(await page.evaluate(() => document.querySelector('.embed-canvas')!.matches(':focus-visible'))).toBe(false);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    const after = await snapshot(page);
    expect(after.sections).toHaveLength(1);
    expect(after.sections[0].normal.z).toBeCloseTo(-before.z, 5);
    expect(after.placing).toBe(false);

    // A second plane starts in move mode although the first was being tilted.
    await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      const v = viewer.navigation.camera.position.clone();
      viewer.tools.sections.create(v.clone().set(0, 2.5, 0), v.clone().set(0, -1, 0));
    });
    await expect.poll(async () => (await snapshot(page)).gizmoMode).toBe('translate');
  });

  // Against its reference picture: drawn as a visitor's browser draws it (tests/e2e/picture.ts).
  pictureTest('the section plane reads as a plane and its caps as cuts (reference picture)', async ({ drawnPage: page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 640, height: 480 });
    await openBox(page);
    await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      viewer.tools.activate('section-tool');
      const v = viewer.navigation.camera.position.clone();
      // Keeps the lower part: a cut at 1.8 m, seen from above at an angle.
      viewer.tools.sections.create(v.clone().set(0, 1.8, 0), v.clone().set(0, -1, 0));
      viewer.tools.sections.confirm();
      viewer.navigation.controls.setLookAt(3.2, 4.6, 4.2, 0, 1.4, 0, false);
    });
    await atRest(page);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    const shot = await canvasScreenshot(page);
    const picture = decodePng(shot);
    const file = join(REFERENCES, 'section-plane-and-caps.png');
    if (UPDATE) {
      mkdirSync(REFERENCES, { recursive: true });
      writeFileSync(file, shot);
    } else {
      expect(existsSync(file), 'reference section-plane-and-caps.png is missing: run with UPDATE_REFERENCES=1 and look at it').toBe(true);
      const ref = decodePng(readFileSync(file));
      expect([ref.width, ref.height]).toEqual([picture.width, picture.height]);
      let differ = 0;
      for (let i = 0; i < ref.data.length; i += 4) {
        if (Math.max(Math.abs(ref.data[i] - picture.data[i]), Math.abs(ref.data[i + 1] - picture.data[i + 1]), Math.abs(ref.data[i + 2] - picture.data[i + 2])) > 24) differ++;
      }
      expect(differ / (ref.data.length / 4)).toBeLessThan(0.01);
    }
    // The cap (the box's top cut at 1.8 m) is hatched: light box colour and dark hatch lines alternate.
    const cap = await toClient(page, [0, 1.8, 0]);
    const canvas = (await page.getByTestId('viewer-canvas').boundingBox())!;
    const cx = cap.x - canvas.x;
    const cy = cap.y - canvas.y;
    const darkLines = countIn(picture, cx - 20, cy - 8, cx + 20, cy + 8, (r, g, b) => r + g + b < 380);
    const light = countIn(picture, cx - 20, cy - 8, cx + 20, cy + 8, (r, g, b) => r + g + b > 420);
    expect(darkLines, 'hatch lines on the cap').toBeGreaterThan(40);
    expect(light, 'the part colour between them').toBeGreaterThan(150);
  });

  test('plan and top views are square to the axes and framed; the wheel never passes the surface; keyboard orbit and zoom', async ({ page }) => {
    test.setTimeout(180_000);
    await openBox(page);
    // Turn to an odd angle first.
    await page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.rotate(0.6, 0.2, false));
    await atRest(page);
    const squareOnScreen = async () => {
      const o = await toClient(page, [0, 0, 0]);
      const x = await toClient(page, [1, 0, 0]);
      const z = await toClient(page, [0, 0, -1]);
      return { xdx: x.x - o.x, xdy: x.y - o.y, zdx: z.x - o.x, zdy: z.y - o.y };
    };
    await page.getByTestId('nav-mode-plan').click();
    await atRest(page);
    let s = await squareOnScreen();
    expect(s.xdx, 'X points right').toBeGreaterThan(10);
    expect(Math.abs(s.xdy), 'X is horizontal').toBeLessThan(0.5);
    expect(s.zdy, '-Z points up').toBeLessThan(-10);
    expect(Math.abs(s.zdx), '-Z is vertical').toBeLessThan(0.5);
    // Framed after the move: every corner of the box on screen.
    for (const corner of [[-1, 0, -0.5], [1, 3, 0.5], [-1, 3, 0.5], [1, 0, -0.5]] as Vec[]) {
      const p = await toClient(page, corner);
      expect(p.x).toBeGreaterThan(0);
      expect(p.x).toBeLessThan(DESKTOP.width);
      expect(p.y).toBeGreaterThan(0);
      expect(p.y).toBeLessThan(DESKTOP.height);
    }
    // Top after a side view: X still to the right.
    await page.getByTestId('nav-mode-orbit').click();
    await page.evaluate(() => (window as any).__viewer.viewer.navigation.lookAlong('+x', false));
    await page.evaluate(() => (window as any).__viewer.viewer.navigation.lookAlong('+y', true));
    await atRest(page);
    s = await squareOnScreen();
    expect(s.xdx).toBeGreaterThan(10);
    expect(Math.abs(s.xdy)).toBeLessThan(0.5);

    // Home goes back to the opening view.
    await page.getByTestId('home-view').click();
    await atRest(page);
    expect(await page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.polarAngle)).toBeGreaterThan(0.5);

    // The wheel over the front face, the orbit point far behind the box: the camera stops in front.
    await page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.setLookAt(0, 1.5, 12, 0, 1.5, -10, false));
    await atRest(page);
    const face = await toClient(page, [0, 1.5, Z]);
    await page.mouse.move(face.x, face.y);
    for (let i = 0; i < 16; i++) {
      await page.mouse.wheel(0, -400);
      await page.waitForTimeout(60);
    }
    await atRest(page);
    const z = await page.evaluate(() => (window as any).__viewer.viewer.navigation.camera.position.z);
    // Before: the camera dollied to 1 m from the orbit point behind the box, through the face (z = -9).
    expect(z, 'still in front of the face, about the minimum distance of 1 m from it').toBeGreaterThan(Z + 0.9);
    // Zoom-out stops a few model sizes away, not at 300 m.
    for (let i = 0; i < 30; i++) {
      await page.mouse.wheel(0, 800);
      await page.waitForTimeout(30);
    }
    await atRest(page);
    const far = await page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.distance);
    const radius = Math.hypot(BOX.width, BOX.height, BOX.depth) / 2;
    expect(far).toBeLessThanOrEqual(radius * 8 + 1e-6);

    // Keyboard: arrows orbit, + and - zoom (the view has the keyboard after a click on it).
    await page.getByTestId('viewer-canvas').click({ position: { x: 30, y: DESKTOP.height - 20 } });
    const azimuth = () => page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.azimuthAngle);
    const a0 = await azimuth();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(azimuth).toBeGreaterThan(a0 + 0.1);
    const d0 = await page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.distance);
    await page.keyboard.press('+');
    await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.navigation.controls.distance)).toBeLessThan(d0 * 0.9);
    await page.keyboard.press('?');
    await expect(page.getByText('Orbit left (Orbit and Plan)')).toBeVisible();
    await expect(page.getByText('Zoom in')).toBeVisible();
  });

  test('units, precision, components and a Z-up coordinate; the default label stays 2.00 m', async ({ page }) => {
    test.setTimeout(180_000);
    await openBox(page);
    await page.getByTestId('tool-length').click();
    await clickAt(page, [-X + 0.08, 0.08, Z]);
    await clickAt(page, [X - 0.08, 0.08, Z]);
    await expect(page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toBeVisible();
    await expect(page.getByTestId('measurement-components')).toHaveText('ΔX 2.00 · ΔY 0.00 · ΔZ 0.00 m');
    await page.getByTestId('tool-settings').click();
    await page.getByTestId('setting-unit').selectOption('mm');
    await page.getByTestId('setting-precision').selectOption('0');
    await expect(page.getByTestId('measure-label').filter({ hasText: '2000 mm' })).toBeVisible();
    await page.getByTestId('setting-unit').selectOption('ft-in');
    await page.getByTestId('setting-precision').selectOption('2');
    await expect(page.getByTestId('measure-label').filter({ hasText: `6' 6 3/4"` })).toBeVisible();
    await page.getByTestId('setting-unit').selectOption('m');
    await page.getByTestId('setting-up-axis').selectOption('z');
    // The stored value is unchanged (metres); a sampled point reads Z up.
    const stored = await page.evaluate(() => (window as any).__viewer.viewer.tools.measurements.list()[0].value);
    expect(stored).toBeCloseTo(2, 5);
    await page.getByTestId('tool-length').click();
    const p = await toClient(page, [0.5, 1.5, Z]);
    await page.keyboard.down('Shift');
    await page.mouse.click(p.x, p.y);
    await page.keyboard.up('Shift');
    await expect(page.getByTestId('sample-label')).toHaveText(/^X 0\.5\d · Y -0\.5\d · Z 1\.[45]\d m$/);
  });

  test('the small things: accessible canvas, tab order, an active button keeps its colour on hover', async ({ page }) => {
    await openBox(page);
    await expect(page.getByRole('application', { name: /^3D view/ })).toBeVisible();
    // A click on the view draws no focus ring.
    await page.getByTestId('viewer-canvas').click({ position: { x: DESKTOP.width / 2, y: DESKTOP.height - 100 } });
    await expect(page.getByTestId('viewer-canvas')).toBeFocused();
    await expect(page.getByTestId('viewer-canvas')).toHaveCSS('outline-style', 'none');
    // Tab from the view: tools (top left), the gizmo (top right), then the view toolbar (right).
    const order: string[] = [];
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => {
        const a = document.activeElement as HTMLElement | null;
        return a?.dataset.testid ?? a?.getAttribute('aria-label') ?? a?.tagName ?? '';
      }));
    }
    const first = (name: string) => order.findIndex((o) => o === name);
    expect(first('tool-length')).toBe(0);
    expect(first('View from +X')).toBeGreaterThan(first('tool-settings'));
    expect(first('nav-mode-orbit')).toBeGreaterThan(first('View from +X'));
    // The pressed Orbit button keeps the accent colour under the pointer.
    const orbit = page.getByTestId('nav-mode-orbit');
    const pressed = await orbit.evaluate((b) => getComputedStyle(b).backgroundColor);
    await orbit.hover();
    await expect(orbit).toHaveCSS('background-color', pressed);
  });
});

const X = BOX.width / 2;
const Z = BOX.depth / 2;

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('touch wording, "Missed the model", a folded toolbar and a magnifier while placing a point', async ({ page }) => {
    test.setTimeout(180_000);
    await openBox(page);
    await expect(page.getByTestId('tool-hint')).toHaveText('Tap Sample point, then the model, to read a point’s coordinates');
    // The comment buttons stand above the meeting panel, which spans the bottom edge of a phone.
    const stack = await page.locator('.panel-stack').boundingBox();
    const meeting = await page.locator('.meeting-panel').boundingBox();
    expect(stack && meeting).toBeTruthy();
    expect(stack!.y + stack!.height).toBeLessThanOrEqual(meeting!.y);
    // Opened (the guest form is three times as tall), the panel still leaves them above it.
    await page.getByTestId('meeting-join').tap();
    await expect(page.getByTestId('meeting-guest-form')).toBeVisible();
    await expect
      .poll(async () => {
        const [s, m] = [await page.locator('.panel-stack').boundingBox(), await page.locator('.meeting-panel').boundingBox()];
        return { tall: m!.height > meeting!.height * 2, clear: s!.y + s!.height <= m!.y };
      })
      .toEqual({ tall: true, clear: true });
    await page.screenshot({ path: test.info().outputPath('phone-guest-form.png') });
    await page.getByRole('button', { name: 'Cancel' }).tap();
    await expect(page.getByTestId('meeting-join')).toBeVisible();
    // The view toolbar is one menu button until opened.
    await expect(page.getByTestId('nav-mode-plan')).toHaveCount(0);
    await page.getByTestId('view-menu').tap();
    await expect(page.getByTestId('nav-mode-plan')).toBeVisible();
    await page.getByTestId('view-menu').tap();
    await expect(page.getByTestId('nav-mode-plan')).toHaveCount(0);
    // Sample point on, a tap beside the model: a miss, not a desktop instruction.
    await page.getByTestId('tool-sample').tap();
    await expect(page.getByTestId('tool-hint')).toHaveText('Tap a point to read its coordinates');
    await page.touchscreen.tap(30, 700);
    await expect(page.getByTestId('tool-hint')).toHaveText(/^Missed the model/);
    await page.getByTestId('tool-sample').tap();
    // Measuring speaks of taps; the old miss is gone.
    await page.getByTestId('tool-length').tap();
    await expect(page.getByTestId('tool-hint')).toHaveText('Tap the first point');
    // A finger held on the model shows the magnifier above it, gone when the finger lifts.
    const cdp = await page.context().newCDPSession(page);
    const f = await toClient(page, [0, 1.5, Z]);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: f.x, y: f.y }] });
    const loupe = page.getByTestId('magnifier');
    await expect(loupe).toBeVisible();
    const lb = (await loupe.boundingBox())!;
    // Its own size from the first frame it shows (110 px and a 2 px border), never a bare canvas's.
    expect(lb.height).toBeCloseTo(114, 0);
    expect(lb.y + lb.height).toBeLessThan(f.y - 20);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await expect(loupe).toBeHidden();
    await page.getByTestId('tool-length').tap();
    await page.getByTestId('tool-length').tap();
    // A plane placed by double tap asks for Done, not Enter.
    await page.getByTestId('tool-section').tap();
    await expect(page.getByTestId('tool-hint')).toHaveText('Double-tap a surface to place a section plane');
    await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      const v = viewer.navigation.camera.position.clone();
      viewer.tools.sections.create(v.clone().set(0, 1.5, 0.4), v.clone().set(0, 0, -1));
    });
    await expect(page.getByTestId('tool-hint')).toHaveText('Drag the arrow to push the plane into the model, then tap Done');
    await page.getByTestId('section-done').tap();
    await expect.poll(async () => (await snapshot(page)).placing).toBe(false);
  });
});

test('the animation timeline scrubs the pose and shows the time', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/embed/demo?quality=low');
  expect(await settled(page)).toBe('ready');
  const panel = page.getByTestId('animation-panel');
  await expect(panel).toBeVisible();
  // The header folds with a plain chevron (no play triangle).
  await expect(page.getByTestId('animation-panel-toggle').locator('path')).toHaveCount(1);
  const row = page.getByTestId('animation-row').first();
  const timeline = row.getByTestId('animation-timeline');
  await expect(timeline).toBeVisible();
  const pose = () =>
    page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      const record = viewer.world.models.values().next().value;
      const entry = record.animations[0];
      const out: number[] = [];
      for (const track of entry.clip.tracks) {
        const node = record.root.getObjectByName(track.name.split('.')[0]);
        if (node) out.push(...node.position.toArray(), ...node.quaternion.toArray());
      }
      return out;
    });
  // Stop everything first, so only the scrub moves the pose.
  const stops = row.getByTestId('animation-stop');
  if (await stops.isEnabled()) await stops.click();
  const start = await pose();
  const duration = await page.evaluate(() => (window as any).__viewer.viewer.animations.list()[0].duration);
  await timeline.fill(String(duration / 2));
  await expect(row.getByTestId('animation-time')).toHaveText(`${(Math.round((duration / 2) / Math.max(0.01, duration / 500)) * Math.max(0.01, duration / 500)).toFixed(1)} / ${duration.toFixed(1)} s`);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const middle = await pose();
  const moved = middle.reduce((sum, v, i) => sum + Math.abs(v - start[i]), 0);
  expect(moved, 'the scrub moved the animated nodes').toBeGreaterThan(1e-3);
  expect(await row.getAttribute('data-status')).toBe('paused');
});
