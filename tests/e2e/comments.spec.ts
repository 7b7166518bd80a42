import { expect, test, type Locator, type Page } from '@playwright/test';
import { join } from 'node:path';
import { BOX, writeToolsBox } from './fixtures-tools';
import { EDITOR_VIEWPORT, importIntoScene, ROOT, settled, toClient } from './helpers';

/**
 * Comments pinned to 3D points as a person uses them (issue 16), on the tools' 2 x 3 x 1 m box:
 * sign in, turn on the comment tool, click the box, write and post; reply; resolve; reload and
 * find the thread with its reply, resolved; the pin drawn on its point, dimmed once the box hides
 * it; a comment made with a section plane brings the plane back when its list entry is clicked.
 */

const SCENE = 'comments-box';
type Vec = [number, number, number];
const Z = BOX.depth / 2;
const EMBED = `/embed/${SCENE}?quality=low&uiWatermark=false`;

test.describe.configure({ mode: 'serial' });
test.setTimeout(300_000);

async function signInTo(page: Page, path: string, name: [string, string] = ['Ada', 'Lovelace']) {
  await page.goto(`/auth/sign-in?returnTo=${encodeURIComponent(path)}`);
  await page.getByLabel(/first name/i).fill(name[0]);
  await page.getByLabel(/last name/i).fill(name[1]);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.pathname === path.split('?')[0], { timeout: 60_000 });
}

async function ready(page: Page) {
  expect(await settled(page)).toBe('ready');
  await expect(page.getByTestId('comments-panel')).toBeVisible();
  // The list came from the service and the signed-in reader may comment.
  await expect(page.getByTestId('comment-tool')).toBeEnabled();
  await page.waitForFunction(() => {
    const viewer = (window as any).__viewer.viewer;
    const box = viewer.world.objects.find((o: any) => o?.isMesh);
    return !!box && !!viewer.picker.treeOf(box);
  });
}

/** The colour of one pixel as shown (decoded in the page). */
async function pixel(page: Page, at: { x: number; y: number }): Promise<[number, number, number]> {
  const png = await page.screenshot({ clip: { x: Math.round(at.x), y: Math.round(at.y), width: 1, height: 1 } });
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = c.height = 1;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2]] as [number, number, number];
  }, png.toString('base64'));
}

/** Blue minus the mean of red and green: an open pin's fill is strongly blue, the grey box is not. */
const blueness = (c: [number, number, number]) => c[2] - (c[0] + c[1]) / 2;

async function frame(page: Page) {
  await page.evaluate(async () => {
    const viewer = (window as any).__viewer.viewer;
    viewer.world.render.needsRender = true;
    await viewer.nextFrame();
    await viewer.nextFrame();
  });
}

async function cameraPose(page: Page): Promise<{ position: number[]; target: number[] }> {
  return page.evaluate(() => {
    const controls = (window as any).__viewer.viewer.navigation.controls;
    return { position: controls.getPosition().toArray(), target: controls.getTarget().toArray() };
  });
}

/** Turns the comment tool on, clicks the world point and posts `text`; returns the new thread's id. */
async function placeComment(page: Page, at: Vec, text: string): Promise<string> {
  const count = await page.evaluate(() => (window as any).__viewer.viewer.comments.pins.count);
  await page.getByTestId('comment-tool').click();
  await expect(page.getByTestId('comment-tool')).toHaveAttribute('aria-pressed', 'true');
  // The canvas shows the comment cursor while the tool is on.
  expect(await page.getByTestId('viewer-canvas').evaluate((c) => getComputedStyle(c).cursor)).toContain('comment-cursor-4.png');
  const c = await toClient(page, at);
  await page.mouse.click(c.x, c.y);
  await expect(page.getByTestId('comment-composer')).toBeVisible();
  await page.getByTestId('comment-text').fill(text);
  await page.getByTestId('comment-post').click();
  await expect(page.getByTestId('comment-composer')).toBeHidden();
  await expect(page.getByTestId('comment-tool')).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.comments.pins.count)).toBe(count + 1);
  const entry = page.getByTestId('comment-entry').filter({ hasText: text });
  await expect(entry).toHaveCount(1);
  return (await entry.getAttribute('data-comment-id'))!;
}

test.beforeAll(async () => {
  await importIntoScene(await writeToolsBox(join(ROOT, 'tests/.tmp/tools-box.glb')), SCENE);
});

test('place a comment, reply, resolve, reload and find it; its pin sits on its point and dims behind the box', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await signInTo(page, EMBED);
  await ready(page);

  const point: Vec = [0.4, 1.2, Z];
  const id = await placeComment(page, point, 'The paint is scratched here');

  await test.step('the thread is open with its author and text; a reply; resolve', async () => {
    await page.getByTestId('comment-entry').filter({ hasText: 'The paint is scratched here' }).click();
    const thread = page.getByTestId('comment-thread');
    await expect(thread).toContainText('Ada Lovelace');
    await expect(page.getByTestId('comment-body')).toHaveText('The paint is scratched here');
    await page.getByTestId('reply-text').fill('Fixed on Monday');
    await page.getByTestId('reply-post').click();
    await expect(page.getByTestId('comment-reply')).toHaveCount(1);
    await expect(page.getByTestId('comment-reply')).toContainText('Fixed on Monday');
    await page.getByTestId('comment-resolve').click();
    await expect(page.getByTestId('comment-resolve')).toHaveText('Reopen');
    await expect(page.getByTestId('comments-filter-resolved')).toHaveText('Resolved (1)');
  });

  await test.step('reload: the thread is there, resolved, with its reply', async () => {
    await page.reload();
    await ready(page);
    await page.getByTestId('comments-toggle').click();
    await expect(page.getByTestId('comments-filter-open')).toHaveText('Open (0)');
    await page.getByTestId('comments-filter-resolved').click();
    const entry = page.locator(`[data-testid=comment-entry][data-comment-id="${id}"]`);
    await expect(entry).toContainText('The paint is scratched here');
    await expect(entry).toContainText('1 reply');
    await entry.click();
    await expect(page.getByTestId('comment-reply')).toContainText('Fixed on Monday');
    await expect(page.getByTestId('comment-resolve')).toHaveText('Reopen');
    // Reopen it: an open pin is blue, which the pixel checks below look for.
    await page.getByTestId('comment-resolve').click();
    await expect(page.getByTestId('comment-resolve')).toHaveText('Resolve');
  });

  await test.step('the pin is drawn on its point, and dimmed when the box hides it', async () => {
    // The opened view is the one the comment was made in: the point faces the camera.
    await page.getByTestId('comments-toggle').click(); // close the list: nothing over the pin
    await page.evaluate(() => (window as any).__viewer.viewer.comments.select(null));
    await frame(page);
    const at = await toClient(page, point);
    await page.screenshot({ path: test.info().outputPath('pin-front.png') });
    // Half-way out from the pin's centre (its white dot) into its fill: blue.
    const fill = await pixel(page, { x: at.x + 6, y: at.y });
    const beside = await pixel(page, { x: at.x + 30, y: at.y });
    expect(blueness(fill)).toBeGreaterThan(100);
    expect(blueness(beside)).toBeLessThan(40);
    // The centre dot is white.
    const centre = await pixel(page, { x: at.x, y: at.y });
    expect(Math.min(...centre)).toBeGreaterThan(200);

    // Look at the box from behind: the pin on the front face is hidden by the box, drawn dimmed.
    await page.evaluate(async () => {
      const controls = (window as any).__viewer.viewer.navigation.controls;
      await controls.rotate(Math.PI, 0, false);
    });
    await frame(page);
    const hiddenAt = await toClient(page, point);
    await page.screenshot({ path: test.info().outputPath('pin-behind.png') });
    const dim = await pixel(page, { x: hiddenAt.x + 6, y: hiddenAt.y });
    const box = await pixel(page, { x: hiddenAt.x + 30, y: hiddenAt.y });
    // Bluer than the box around it, much less than a pin in plain sight.
    expect(blueness(dim)).toBeGreaterThan(blueness(box) + 15);
    expect(blueness(dim)).toBeLessThan(blueness(fill) - 40);
  });

  await test.step("a click on the pin opens its thread and flies the camera to the comment's view", async () => {
    // Back to the front, then a little aside and closer: the pin is in sight, the view is not the comment's.
    await page.evaluate(async () => {
      const controls = (window as any).__viewer.viewer.navigation.controls;
      await controls.rotate(Math.PI + 0.35, 0.1, false);
      await controls.dolly(0.5, false);
    });
    await frame(page);
    const view = await page.evaluate(async (i) => (await (await fetch(`/v1/scenes/comments-box/comments/${i}`)).json()).view, id);
    const away = (pose: { position: number[]; target: number[] }) =>
      Math.hypot(...pose.position.map((v, k) => v - view.position[k])) + Math.hypot(...pose.target.map((v, k) => v - view.target[k]));
    expect(away(await cameraPose(page))).toBeGreaterThan(0.2);
    const at = await toClient(page, point);
    await page.mouse.click(at.x, at.y);
    await expect(page.getByTestId('comment-thread')).toBeVisible();
    await expect(page.getByTestId('comment-body')).toHaveText('The paint is scratched here');
    await expect.poll(async () => away(await cameraPose(page)), { timeout: 20_000 }).toBeLessThan(1e-3);
  });
  expect(errors).toEqual([]);
});

test('a comment made with a section plane brings the plane back when its entry is clicked', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signInTo(page, EMBED);
  await ready(page);

  // A section plane on the box's top face (double-click with the section tool), then the tool off.
  await page.getByTestId('tool-section').click();
  const top = await toClient(page, [0, BOX.height, 0]);
  await page.mouse.dblclick(top.x, top.y);
  await expect(page.getByTestId('section-item')).toHaveCount(1);
  const plane = await page.evaluate(() => {
    const s = (window as any).__viewer.viewer.tools.sections.list()[0];
    return { normal: [s.normal.x, s.normal.y, s.normal.z], constant: s.constant };
  });
  // A click beside the box keeps the new plane; the tool goes off and the plane stays.
  await page.mouse.click(page.viewportSize()!.width - 200, page.viewportSize()!.height * 0.4);
  await page.getByTestId('tool-section').click();
  await expect(page.getByTestId('tool-section')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('section-item')).toHaveCount(1);

  // A comment seen from a turned camera.
  await page.evaluate(async () => {
    const controls = (window as any).__viewer.viewer.navigation.controls;
    await controls.rotate(0.6, -0.2, false);
  });
  await frame(page);
  const view = await cameraPose(page);
  const id = await placeComment(page, [-0.5, 2, Z], 'Check the lid height');
  // The comment kept the plane with its view.
  const sections = await page.evaluate(async (i) => {
    const response = await fetch(`/v1/scenes/comments-box/comments/${i}`);
    return (await response.json()).view.sections;
  }, id);
  expect(sections).toHaveLength(1);

  // The plane goes; the camera goes elsewhere.
  await page.getByTestId('section-delete').click();
  await expect(page.getByTestId('section-item')).toHaveCount(0);
  await page.evaluate(async () => {
    const controls = (window as any).__viewer.viewer.navigation.controls;
    await controls.rotate(-1.5, 0.4, false);
    await controls.dolly(-2, false);
  });
  const away = await cameraPose(page);
  expect(Math.hypot(...away.position.map((v, i) => v - view.position[i]))).toBeGreaterThan(1);

  // Clicking the list entry flies back and puts the plane back.
  const entry = page.locator(`[data-testid=comment-entry][data-comment-id="${id}"]`);
  await entry.click();
  await expect(page.getByTestId('section-item')).toHaveCount(1);
  await expect
    .poll(async () => {
      const pose = await cameraPose(page);
      return Math.hypot(...pose.position.map((v, i) => v - view.position[i])) + Math.hypot(...pose.target.map((v, i) => v - view.target[i]));
    }, { timeout: 20_000 })
    .toBeLessThan(1e-3);
  const back = await page.evaluate(() => {
    const s = (window as any).__viewer.viewer.tools.sections.list()[0];
    return { normal: [s.normal.x, s.normal.y, s.normal.z], constant: s.constant };
  });
  for (let k = 0; k < 3; k++) expect(back.normal[k]).toBeCloseTo(plane.normal[k], 5);
  expect(back.constant).toBeCloseTo(plane.constant, 5);
  await frame(page);
  await page.screenshot({ path: test.info().outputPath('view-restored.png') });
  expect(errors).toEqual([]);
});

test('BCF: export the comments, import them into another scene: same topics, statuses and views', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const OTHER = 'comments-box-bcf';
  await importIntoScene(await writeToolsBox(join(ROOT, 'tests/.tmp/tools-box.glb')), OTHER);
  await signInTo(page, EMBED);
  await ready(page);
  await page.getByTestId('comments-toggle').click();
  const downloading = page.waitForEvent('download');
  await page.getByTestId('bcf-export').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`${SCENE}.bcfzip`);
  const file = test.info().outputPath('export.bcfzip');
  await download.saveAs(file);
  await expect(page.getByTestId('bcf-report')).toContainText(/Exported \d+ topic\(s\) with a snapshot each\./);
  await page.screenshot({ path: test.info().outputPath('bcf-exported.png') });

  await page.goto(`/embed/${OTHER}?quality=low&uiWatermark=false`);
  await ready(page);
  await page.getByTestId('comments-toggle').click();
  await page.getByTestId('bcf-file').setInputFiles(file);
  const list = async (scene: string) =>
    page.evaluate(async (s) => {
      const response = await fetch(`/v1/scenes/${s}/comments`);
      return ((await response.json()).comments as any[]).map((t) => ({ title: t.title || t.text, status: t.status, replies: t.replies.length, view: t.view, pin: t.anchor.position }));
    }, scene);
  const source = await list(SCENE);
  expect(source.length).toBeGreaterThan(0);
  await expect(page.getByTestId('bcf-report')).toContainText(`Imported ${source.length} of ${source.length} topic(s) from export.bcfzip.`);
  await page.screenshot({ path: test.info().outputPath('bcf-imported.png') });
  const imported = await list(OTHER);
  const key = (t: { title: string }) => t.title;
  const sorted = (ts: typeof source) => [...ts].sort((a, b) => key(a).localeCompare(key(b)));
  expect(sorted(imported).map((t) => [t.title, t.status, t.replies])).toEqual(sorted(source).map((t) => [t.title.split('\n')[0], t.status, t.replies]));
  for (const [i, t] of sorted(imported).entries()) {
    const s = sorted(source)[i]!;
    for (let k = 0; k < 3; k++) {
      expect(t.view.position[k]).toBeCloseTo(s.view.position[k], 4);
      expect(t.pin[k]).toBeCloseTo(s.pin[k], 4);
    }
    expect(t.view.sections.length).toBe(s.view.sections.length);
  }
  // The pins are there too.
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.comments.pins.count)).toBe(source.length);
  // A second import of the same file makes nothing twice.
  await page.getByTestId('bcf-file').setInputFiles(file);
  await expect(page.getByTestId('bcf-report')).toContainText(`Imported 0 of ${source.length} topic(s)`);
  await expect(page.getByTestId('bcf-report')).toContainText('is already in this scene');
  expect((await list(OTHER)).length).toBe(source.length);
  expect(errors).toEqual([]);
});

test.describe('at a desktop editor size', () => {
  // A desktop editor's size (helpers.ts).
  test.use({ viewport: EDITOR_VIEWPORT });

  test('in the editor: the comments panel is there, and the comment tool takes the click that would select', async ({ page }) => {
    await signInTo(page, `/edit/${SCENE}`);
    expect(await settled(page)).toBe('ready');
    // The box is nobody's: a copy of one's own to edit.
    await page.getByTestId('duplicate').click();
    await page.waitForURL((url) => url.pathname.startsWith('/edit/') && url.pathname !== `/edit/${SCENE}`, { timeout: 60_000 });
    expect(await settled(page)).toBe('ready');
    await expect(page.getByTestId('outliner')).toBeVisible({ timeout: 60_000 });
    await ready(page);
    const selection = () => page.evaluate(() => (window as any).__editor.selection?.nodeId ?? null);
    await page.getByTestId('comment-tool').click();
    const c = await toClient(page, [0, 1, Z]);
    await page.mouse.click(c.x, c.y);
    await expect(page.getByTestId('comment-composer')).toBeVisible();
    expect(await selection()).toBeNull();
    await page.getByTestId('comment-text').fill('Seen in the editor');
    await page.getByTestId('comment-post').click();
    await expect(page.getByTestId('comment-composer')).toBeHidden();
    // The tool is off once posted: the same click selects the box.
    await page.mouse.click(c.x + 40, c.y + 40);
    await expect.poll(selection).not.toBeNull();
    await page.screenshot({ path: test.info().outputPath('editor-comments.png') });
  });
});

/** Runs a host-API function from the page itself (its own origin may call everything), as a host page would. */
async function hostCall(page: Page, func: string, args: unknown): Promise<any> {
  return page.evaluate(
    ([f, a]) =>
      new Promise((resolve, reject) => {
        const requestId = `t-${Math.random()}`;
        const on = (e: MessageEvent) => {
          if (e.data?.type !== 'api.response' || e.data.requestId !== requestId) return;
          removeEventListener('message', on);
          if (e.data.error) reject(new Error(e.data.error));
          else resolve(e.data.response);
        };
        addEventListener('message', on);
        postMessage({ type: 'api.request', requestId, func: f, arguments: a }, location.origin);
      }),
    [func, args] as const,
  );
}

test("opening a comment restores its measurements, its orthographic projection and its field of view", async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signInTo(page, EMBED);
  await ready(page);
  const X = BOX.width / 2;
  const from: Vec = [-X + 0.08, 0.08, Z];
  const to: Vec = [X - 0.08, 0.08, Z];

  // The view to keep: a 2 m length along the front's bottom edge, field of view 30, orthographic and zoomed in.
  await page.getByTestId('tool-length').click();
  for (const p of [from, to]) {
    const c = await toClient(page, p);
    await page.mouse.click(c.x, c.y);
  }
  await expect(page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tool-length')).toHaveAttribute('aria-pressed', 'false');
  const measured = await page.evaluate(() => {
    const m = (window as any).__viewer.viewer.tools.measurements;
    return m.list().map((x: any) => ({ kind: x.kind, points: m.points(x.id).map((p: any) => [p.x, p.y, p.z]) }));
  });
  expect(measured).toHaveLength(1);
  expect((await hostCall(page, 'setCameraConfig', { fov: 30 })).fov).toBe(30);
  await page.getByTestId('projection-toggle').click();
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.navigation.projection)).toBe('Orthographic');
  await page.evaluate(async () => {
    const controls = (window as any).__viewer.viewer.navigation.controls;
    await controls.zoomTo(controls.camera.zoom * 1.4, false);
  });
  await frame(page);
  const orthoHeight = () =>
    page.evaluate(() => {
      const c = (window as any).__viewer.viewer.navigation.orthographicCamera;
      return (c.top - c.bottom) / c.zoom;
    });
  const heightThen = await orthoHeight();
  const view = await cameraPose(page);
  const id = await placeComment(page, [0.3, 1.5, Z], 'Seen square on');
  const stored = await page.evaluate(async (i) => (await (await fetch(`/v1/scenes/comments-box/comments/${i}`)).json()).view, id);
  expect(stored).toMatchObject({ projection: 'Orthographic', fov: 30 });
  expect(stored.orthoHeight).toBeCloseTo(heightThen, 4);
  expect(stored.measurements).toEqual(measured);

  // Everything changes: the measurement goes, perspective with fov 50, the camera turns.
  await page.evaluate(() => {
    const m = (window as any).__viewer.viewer.tools.measurements;
    for (const x of m.list()) m.remove(x.id);
  });
  await expect(page.getByTestId('measure-label')).toHaveCount(0);
  await page.getByTestId('projection-toggle').click();
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.navigation.projection)).toBe('Perspective');
  expect((await hostCall(page, 'setCameraConfig', { fov: 50 })).fov).toBe(50);
  await page.evaluate(async () => {
    const controls = (window as any).__viewer.viewer.navigation.controls;
    await controls.rotate(-1.2, 0.3, false);
  });

  // Its entry opens the view again: orthographic at the same height, fov 30, the measurement back.
  await page.locator(`[data-testid=comment-entry][data-comment-id="${id}"]`).click();
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.navigation.projection)).toBe('Orthographic');
  await expect.poll(async () => {
    const pose = await cameraPose(page);
    return Math.hypot(...pose.position.map((v, k) => v - view.position[k])) + Math.hypot(...pose.target.map((v, k) => v - view.target[k]));
  }, { timeout: 20_000 }).toBeLessThan(1e-3);
  await expect.poll(orthoHeight, { timeout: 20_000 }).toBeCloseTo(heightThen, 3);
  expect(await page.evaluate(() => (window as any).__viewer.viewer.navigation.perspectiveCamera.fov)).toBe(30);
  expect((await hostCall(page, 'getCamera', {})).fov).toBe(30);
  const back = await page.evaluate(() => {
    const m = (window as any).__viewer.viewer.tools.measurements;
    return m.list().map((x: any) => ({ kind: x.kind, points: m.points(x.id).map((p: any) => [p.x, p.y, p.z]) }));
  });
  expect(back).toEqual(measured);
  await expect(page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toHaveCount(1);
  await page.screenshot({ path: test.info().outputPath('ortho-view-restored.png') });
  // Leave the camera as the other tests expect it.
  await page.getByTestId('projection-toggle').click();
  await hostCall(page, 'setCameraConfig', { fov: 45 });
  expect(errors).toEqual([]);
});

test("authors edit their own thread's and reply's text in place; another person sees no edit on them", async ({ page, browser, baseURL }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signInTo(page, EMBED);
  await ready(page);
  const id = await placeComment(page, [-0.6, 0.9, Z], 'The handel is loose');
  const entry = page.locator(`[data-testid=comment-entry][data-comment-id="${id}"]`);
  await entry.click();
  const body = page.getByTestId('comment-body');
  const edit = page.getByTestId('comment-edit-text');

  await test.step('Escape cancels, an empty text is refused with a reason, Ctrl+Enter saves', async () => {
    await page.getByTestId('comment-edit').click();
    await expect(edit).toHaveValue('The handel is loose');
    await edit.fill('Something else');
    await edit.press('Escape');
    await expect(edit).toBeHidden();
    await expect(body).toHaveText('The handel is loose');
    await page.getByTestId('comment-edit').click();
    await edit.fill('   ');
    await edit.press('Control+Enter');
    await expect(page.getByTestId('comment-edit-error')).toHaveText(/must not be empty/);
    // The service's refusal is shown in the form, and the text typed stays.
    const tooLong = 'x'.repeat(10_001);
    await edit.fill(tooLong);
    await page.getByTestId('comment-edit-save').click();
    await expect(page.getByTestId('comment-edit-error')).toContainText('text must be at most 10000 characters');
    await expect(edit).toHaveValue(tooLong);
    await edit.fill('The handle is loose');
    await edit.press('Control+Enter');
    await expect(edit).toBeHidden();
    await expect(body).toHaveText('The handle is loose');
  });

  await test.step("a reply of one's own: edited and saved", async () => {
    await page.getByTestId('reply-text').fill('Tightned it');
    await page.getByTestId('reply-post').click();
    const reply = page.getByTestId('comment-reply');
    await expect(reply).toHaveCount(1);
    await reply.getByTestId('reply-edit').click();
    await edit.fill('Tightened it');
    await page.getByTestId('comment-edit-save').click();
    await expect(reply.getByTestId('reply-body')).toHaveText('Tightened it');
  });

  await test.step('after a reload the edited texts are there', async () => {
    await page.reload();
    await ready(page);
    await page.getByTestId('comments-toggle').click();
    await entry.click();
    await expect(body).toHaveText('The handle is loose');
    await expect(page.getByTestId('reply-body')).toHaveText('Tightened it');
    const saved = await page.evaluate(async (i) => (await (await fetch(`/v1/scenes/comments-box/comments/${i}`)).json()), id);
    expect([saved.text, saved.replies[0].text]).toEqual(['The handle is loose', 'Tightened it']);
  });

  await test.step('another person: no edit or delete on what is not theirs; both on their own reply', async () => {
    const context = await browser.newContext({ baseURL });
    const other = await context.newPage();
    try {
      await signInTo(other, EMBED, ['Grace', 'Hopper']);
      await ready(other);
      await other.getByTestId('comments-toggle').click();
      await other.locator(`[data-testid=comment-entry][data-comment-id="${id}"]`).click();
      await expect(other.getByTestId('comment-body')).toHaveText('The handle is loose');
      const adas: Locator = other.getByTestId('comment-reply').filter({ hasText: 'Tightened it' });
      await expect(adas).toHaveCount(1);
      await expect(other.getByTestId('comment-edit')).toHaveCount(0);
      await expect(other.getByTestId('comment-delete')).toHaveCount(0);
      await expect(adas.getByTestId('reply-edit')).toHaveCount(0);
      await expect(adas.getByTestId('reply-delete')).toHaveCount(0);
      await other.getByTestId('reply-text').fill('Mine to change');
      await other.getByTestId('reply-post').click();
      const hers = other.getByTestId('comment-reply').filter({ hasText: 'Mine to change' });
      await expect(hers.getByTestId('reply-edit')).toHaveCount(1);
      // Her own reply she may delete (the service allows its author).
      await hers.getByTestId('reply-delete').click();
      await expect(other.getByTestId('comment-reply')).toHaveCount(1);
    } finally {
      await context.close();
    }
    // Ada deletes her own thread.
    await page.getByTestId('comment-delete').click();
    await expect(entry).toHaveCount(0);
  });
  expect(errors).toEqual([]);
});
