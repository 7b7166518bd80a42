import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signTestToken } from '../../src/server/auth/tokens';
import { defaultSceneObject } from '../../src/protocol/scene-objects';
import { buildPartsModel } from '../../src/server/demo-parts';
import { canvasScreenshot, EDITOR_VIEWPORT, importIntoScene, MODELS, storeRawModel, underLock } from './helpers';
import { pictureTest } from './picture';
import { decodePng, type Picture } from './png';

// A desktop editor's size (helpers.ts).
test.use({ viewport: EDITOR_VIEWPORT });

/**
 * The editor as a person uses it: sign in with the development provider, open the demo in the
 * editor, duplicate it to edit, click a node, drag the gizmo, Ctrl+S, and see the node moved in
 * the viewer; undo/redo across a merge; the selection's outline on every tier; unsaved edits kept
 * in the browser and offered back; the leave-page prompt; enabled and disabled; Delete; the
 * history panel; the snapping key; a second person gets 403.
 *
 * Every test makes what it needs (its own copy of the demo, through the service's duplicate
 * endpoint, except the first, which goes through the page's Duplicate button): a failure fails
 * that test only and never skips the others.
 *
 * The outline's reference picture is tests/e2e/references/editor-outline-low.png; after a
 * deliberate change regenerate it with UPDATE_REFERENCES=1 and look at it before committing.
 */
test.setTimeout(360_000);

const REFERENCES = join(import.meta.dirname, 'references');
const UPDATE = process.env.UPDATE_REFERENCES === '1';

async function signIn(page: Page, firstName: string, lastName: string, returnTo: string) {
  await page.goto(`/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByLabel(/first name/i).fill(firstName);
  await page.getByLabel(/last name/i).fill(lastName);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.pathname + url.search === returnTo, { timeout: 60_000 });
}

async function editorReady(page: Page) {
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  await expect(page.getByTestId('outliner')).toBeVisible({ timeout: 60_000 });
  await page.waitForFunction(() => !!(window as any).__editor?.enabled, undefined, { timeout: 60_000 });
}

/** A copy of the demo owned by Ada Lovelace (the duplicate endpoint, as the page's button calls it). */
async function ownCopy(request: APIRequestContext, source = 'demo'): Promise<string> {
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Ada', lastName: 'Lovelace' });
  const response = await request.post(`/v1/scenes/${encodeURIComponent(source)}/duplicate`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json())._id as string;
}

/** Ada signs in and opens her copy in the editor. */
async function openCopy(page: Page, request: APIRequestContext, query = ''): Promise<string> {
  const id = await ownCopy(request);
  await signIn(page, 'Ada', 'Lovelace', `/edit/${encodeURIComponent(id)}${query}`);
  await editorReady(page);
  return id;
}

/**
 * Presses the selected node's gizmo at its centre (which moves in the view plane) and moves the
 * pointer `steps` times by `dx` pixels to the right, a frame after each; the button stays down.
 */
async function pressGizmoAndMove(page: Page, steps: number, dx: number): Promise<void> {
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await frames(page, 1);
  await page.mouse.down();
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(c.x + i * dx, c.y);
    await frames(page, 1);
  }
}

/** Screen position of the selected node's origin (where the gizmo's centre is drawn). */
async function gizmoCentre(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const editor = (window as any).__editor;
    const object = viewer.world.objects[editor.gizmo.eid];
    const p = object.position.clone().setFromMatrixPosition(object.matrixWorld).project(viewer.navigation.camera);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  });
}

async function worldPositionOf(page: Page, name: string): Promise<number[]> {
  return page.evaluate((n) => {
    const viewer = (window as any).__viewer.viewer;
    for (const record of viewer.world.models.values()) {
      const object = record.root.getObjectByName(n);
      if (object) return object.matrixWorld.elements.slice(12, 15);
    }
    throw new Error(`no node named ${n}`);
  }, name);
}

/** Whether the node named `name` is shown (its entity's Visibility). */
function shown(page: Page, name: string): Promise<boolean> {
  return page.evaluate((n) => {
    const viewer = (window as any).__viewer.viewer;
    for (const record of viewer.world.models.values()) {
      const object = record.root.getObjectByName(n);
      if (object) return object.visible;
    }
    throw new Error(`no node named ${n}`);
  }, name);
}

/** The outliner's row of a node, by its exact name. */
function row(page: Page, name: string) {
  return page.getByTestId('outliner').getByRole('treeitem').filter({ has: page.getByRole('button', { name, exact: true }) });
}

async function frames(page: Page, n = 2) {
  // The promise is kept on the page until it settles: twice in CI (2 of 5 full runs, never alone)
  // Playwright reported "Resulting promise was garbage collected" here mid-drag. The frame loop
  // keeps its waiters and rejects them when it stops (a disposed viewer), so that was not the
  // loop; V8's inspector holds an awaited promise weakly. Held, a frame that never comes would
  // time out instead, saying so.
  for (let i = 0; i < n; i++)
    await page.evaluate(async () => {
      const w = window as any;
      w.__frameWait = w.__viewer.viewer.nextFrame();
      try {
        await w.__frameWait;
      } finally {
        w.__frameWait = null;
      }
    });
}

/** The 3D view alone (panels, notices and buttons over it hidden for the moment). */
async function view(page: Page): Promise<Picture> {
  await frames(page);
  return decodePng(await canvasScreenshot(page));
}

/** The outline's colour (the editor's blue, #1f8efa) within a small tolerance. */
function outlineColoured(d: Uint8Array, i: number): boolean {
  return Math.abs(d[i] - 0x1f) <= 12 && Math.abs(d[i + 1] - 0x8e) <= 12 && Math.abs(d[i + 2] - 0xfa) <= 12;
}

/** Pixels of the outline's colour (that `before` did not have there, if given), and their bounds. */
function outlinePixels(p: Picture, before?: Picture): { count: number; box: [number, number, number, number] } {
  let count = 0;
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const i = (y * p.width + x) * 4;
      if (!outlineColoured(p.data, i) || (before && outlineColoured(before.data, i))) continue;
      count++;
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    }
  }
  return { count, box };
}

/** Share of pixels differing by more than 24 in a channel. */
function differing(a: Picture, b: Picture): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.max(Math.abs(a.data[i] - b.data[i]), Math.abs(a.data[i + 1] - b.data[i + 1]), Math.abs(a.data[i + 2] - b.data[i + 2])) > 24) n++;
  }
  return n / (a.data.length / 4);
}

/**
 * The screen rectangle (canvas pixels: x0, y0, x1, y1) of a node's subtree, or of a scene object's
 * helper: the corners of its geometry's boxes, projected, within the canvas.
 */
function screenRect(page: Page, target: { node: string } | { helperOf: string }): Promise<[number, number, number, number]> {
  return page.evaluate((t) => {
    const viewer = (window as any).__viewer.viewer;
    const camera = viewer.navigation.camera;
    let root: any = null;
    if ('node' in t) for (const record of viewer.world.models.values()) root ??= record.root.getObjectByName(t.node);
    else viewer.context.scene.traverse((o: any) => (o.userData.helperOf === t.helperOf ? (root = o) : null));
    if (!root) throw new Error(`nothing to measure: ${JSON.stringify(t)}`);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    const out = [Infinity, Infinity, -Infinity, -Infinity];
    const v = camera.position.clone();
    root.traverse((o: any) => {
      const g = o.geometry;
      if (!g?.attributes?.position || !o.visible) return;
      if (!g.boundingBox) g.computeBoundingBox();
      const { min, max } = g.boundingBox;
      for (let i = 0; i < 8; i++) {
        v.set(i & 1 ? max.x : min.x, i & 2 ? max.y : min.y, i & 4 ? max.z : min.z).applyMatrix4(o.matrixWorld).project(camera);
        const x = ((v.x + 1) / 2) * rect.width;
        const y = ((1 - v.y) / 2) * rect.height;
        out[0] = Math.min(out[0], x);
        out[1] = Math.min(out[1], y);
        out[2] = Math.max(out[2], x);
        out[3] = Math.max(out[3], y);
      }
    });
    // What lies beyond the canvas is not drawn (a spot light's cone reaches 1000 m).
    return [Math.max(0, out[0]), Math.max(0, out[1]), Math.min(rect.width, out[2]), Math.min(rect.height, out[3])] as [number, number, number, number];
  }, target);
}

/** The outline lies around the rectangle: inside it grown by `margin` pixels, and reaching near each of its sides. */
function expectAround(box: [number, number, number, number], rect: [number, number, number, number], margin = 6) {
  expect(box[0], 'left').toBeGreaterThanOrEqual(rect[0] - margin);
  expect(box[1], 'top').toBeGreaterThanOrEqual(rect[1] - margin);
  expect(box[2], 'right').toBeLessThanOrEqual(rect[2] + margin);
  expect(box[3], 'bottom').toBeLessThanOrEqual(rect[3] + margin);
  // The silhouette fills its box on a side or two at least: the outline spans most of it.
  expect(box[2] - box[0], 'width').toBeGreaterThan((rect[2] - rect[0]) * 0.6);
  expect(box[3] - box[1], 'height').toBeGreaterThan((rect[3] - rect[1]) * 0.6);
}

function expectReference(picture: Picture, name: string) {
  const file = join(REFERENCES, `${name}.png`);
  if (UPDATE) {
    mkdirSync(REFERENCES, { recursive: true });
    writeFileSync(file, picture.png);
    return;
  }
  expect(existsSync(file), `reference ${name}.png is missing: run with UPDATE_REFERENCES=1 and look at it`).toBe(true);
  const reference = decodePng(readFileSync(file));
  expect([picture.width, picture.height]).toEqual([reference.width, reference.height]);
  const share = differing(reference, picture);
  if (share > 0.01) writeFileSync(test.info().outputPath(`${name}.actual.png`), picture.png);
  expect(share, `${name}: share of pixels differing from the reference`).toBeLessThanOrEqual(0.01);
}

/** The number of unsaved edits this browser keeps for a scene (IndexedDB). */
function keptInBrowser(page: Page, sceneId: string): Promise<number> {
  return page.evaluate(
    (id) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('parametricos-editor', 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('unsaved', 'readonly').objectStore('unsaved').get(id);
          get.onsuccess = () => resolve(Object.values((get.result?.queues ?? {}) as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0));
          get.onerror = () => reject(get.error);
        };
      }),
    sceneId,
  );
}

test('sign in, duplicate the demo, click a node, drag the gizmo, Ctrl+S, and the viewer shows it moved', async ({ page }) => {
  await signIn(page, 'Ada', 'Lovelace', '/edit/demo');
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  // The seeded demo is nobody's: the person is offered a copy of their own.
  await page.getByTestId('duplicate').click();
  await page.waitForURL((url) => url.pathname.startsWith('/edit/') && url.pathname !== '/edit/demo', { timeout: 60_000 });
  const copyId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  await editorReady(page);
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/);

  // A click on the model in the view selects the node under the cursor.
  const canvas = page.getByTestId('viewer-canvas');
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.nodeId ?? null), { timeout: 30_000 }).not.toBeNull();
  const name: string = await page.evaluate(() => {
    const e = (window as any).__editor;
    return (window as any).__viewer.viewer.world.objects[e.gizmo.eid].name;
  });
  await expect(page.getByRole('treeitem', { selected: true })).toContainText(name);
  const before = await worldPositionOf(page, name);

  // Drag the gizmo's centre handle (moves in the view plane) in small steps: one drag, one step.
  await frames(page, 1);
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await frames(page, 1);
  await page.mouse.down();
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  for (let i = 1; i <= 8; i++) {
    await page.mouse.move(c.x + i * 10, c.y - i * 4);
    await frames(page, 1);
  }
  await page.mouse.up();
  await expect(page.getByTestId('history').locator('li.done')).toHaveCount(1);
  await expect(page.getByTestId('history')).toContainText(`Move ${name}`);
  await expect(page.getByTestId('save-status')).toHaveText(/Unsaved changes \(1 edit\)/);
  await frames(page, 1);
  const moved = await worldPositionOf(page, name);
  expect(Math.hypot(moved[0] - before[0], moved[1] - before[1], moved[2] - before[2])).toBeGreaterThan(0.01);
  await page.screenshot({ path: test.info().outputPath('editor-after-drag.png') });

  // Ctrl+S with the view focused saves.
  await canvas.focus();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });

  // The viewer page shows the node where it was dropped.
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const seen = await worldPositionOf(page, name);
  for (let k = 0; k < 3; k++) expect(seen[k]).toBeCloseTo(moved[k], 3);
  // The original demo is untouched.
  await page.goto('/embed/demo');
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const original = await worldPositionOf(page, name);
  for (let k = 0; k < 3; k++) expect(original[k]).toBeCloseTo(before[k], 3);
});

/**
 * The selection outline on a tier: none before a selection, around the selected group node (the
 * base: the plate, mounts and bolts under it), gone after a click on empty space. The page stays
 * open at that tier, nothing selected.
 */
async function outlineOnTier(page: Page, request: APIRequestContext, tier: 'low' | 'high'): Promise<void> {
  await openCopy(page, request, `?quality=${tier}`);
  if (tier === 'high') {
    // The high tier draws through the post-processing stack (the getter throws while it is off).
    await expect
      .poll(() =>
        page.evaluate(() => {
          try {
            return !!(window as any).__viewer.viewer.postprocessing;
          } catch {
            return false;
          }
        }),
      )
      .toBe(true);
  }
  const empty = await view(page);
  expect(outlinePixels(empty).count, `${tier}: the outline's blue before any selection`).toBeLessThan(20);

  // The base (a group node: the plate, mounts and bolts under it).
  await row(page, 'Base').getByRole('button', { name: 'Base', exact: true }).click();
  const selected = await view(page);
  const outline = outlinePixels(selected, empty);
  expect(outline.count, `${tier}: outline pixels`).toBeGreaterThan(800);
  expectAround(outline.box, await screenRect(page, { node: 'Base' }));
  if (tier === 'low') expectReference(selected, 'editor-outline-low');

  // A click on empty space clears the selection: the picture is as before it.
  const canvas = (await page.getByTestId('viewer-canvas').boundingBox())!;
  await page.mouse.click(canvas.x + 30, canvas.y + 30);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection)).toBeNull();
  const cleared = await view(page);
  expect(outlinePixels(cleared, empty).count, `${tier}: outline pixels after clearing`).toBeLessThan(10);
  expect(differing(cleared, empty)).toBeLessThan(0.002);
}

// The two tiers are two tests (they ran one after the other in one test, 90 s on a busy machine):
// each opens its own copy at its tier, as the one test reloaded the page for the high tier.
// Against its reference picture: drawn as a visitor's browser draws it (tests/e2e/picture.ts), the low tier multisampled.
pictureTest('the selection outline on the low tier: around the selected node (with its children), gone after clearing (reference picture)', async ({ drawnPage: page, request }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await outlineOnTier(page, request, 'low');
  expect(errors).toEqual([]);
});

test('the selection outline on the high tier: around the selected node (with its children), following a drag, gone after clearing', async ({ page, request }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await outlineOnTier(page, request, 'high');

  // The pump (a group node) while its gizmo is dragged: the outline goes with it, during the drag.
  await row(page, 'Pump').getByRole('button', { name: 'Pump', exact: true }).click();
  const start = outlinePixels(await view(page));
  expectAround(start.box, await screenRect(page, { node: 'Pump' }));
  // Three moves (each a picture through the whole effect stack, the costliest frames of the suite).
  await pressGizmoAndMove(page, 3, 40);
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  const during = outlinePixels(await view(page));
  const rect = await screenRect(page, { node: 'Pump' });
  expectAround(during.box, rect);
  expect(during.box[0] - start.box[0], 'the outline moved right with the pump').toBeGreaterThan(50);
  await page.mouse.up();
  expect(errors).toEqual([]);
});

test('material edits within 500 ms merge into one step; undo and redo go across it; Ctrl+C on a node says Not implemented without an error', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await openCopy(page, request);
  // Select a node from the outliner (its first mesh).
  await page.locator('[data-testid=outliner] li.mesh button.name').first().click();
  const slider = page.getByLabel('Material roughness');
  await expect(slider).toBeVisible();
  const original = Number(await slider.inputValue());
  const steps = await page.getByTestId('history').locator('li.done').count();
  // Two edits in one task, well inside the 500 ms merge window however loaded the machine is.
  await slider.evaluate((el: HTMLInputElement) => {
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    for (const value of ['0.2', '0.9']) {
      setValue.call(el, value);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  await expect(page.getByTestId('history').locator('li.done')).toHaveCount(steps + 1);
  await expect(slider).toHaveValue('0.9');
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+z');
  await expect(slider).toHaveValue(String(original));
  await page.keyboard.press('Control+Shift+z');
  await expect(slider).toHaveValue('0.9');
  await page.keyboard.press('Control+c');
  await expect(page.getByTestId('editor-notices')).toContainText('Not implemented');
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  expect(errors).toEqual([]);
});

test('an edit the model service cannot take is kept in this browser; leaving asks first; after a reload it is offered back, restored and saved', async ({ page, request }) => {
  const id = await openCopy(page, request);
  const scene = await (await request.get(`/v1/scenes/${id}`)).json();
  const modelId = scene.models[0]._id as string;
  // The model service cannot be reached for saves (for now).
  await page.route('**/apply-mutations', (route) => route.abort('connectionrefused'));
  await row(page, 'Base_plate').getByRole('button', { name: 'Hide Base_plate' }).click();
  await expect.poll(() => shown(page, 'Base_plate')).toBe(false);
  await expect(page.getByTestId('save-status')).toHaveText(/Unsaved changes \(1 edit\)/);
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/Not saved/, { timeout: 30_000 });
  await expect(page.getByTestId('save-reason')).not.toBeEmpty();
  // Kept in this browser at once.
  await expect.poll(() => keptInBrowser(page, id)).toBe(1);

  // Leaving with unsaved edits asks first (the prompt stays on the page when refused).
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void (dialogs.length === 1 ? dialog.dismiss() : dialog.accept());
  });
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => dialogs).toEqual(['beforeunload']);
  expect(page.isClosed()).toBe(false);

  // A reload (the tab could as well have crashed): the edit is offered back, not applied unasked.
  await page.reload();
  await editorReady(page);
  const offer = page.getByTestId('restore-offer');
  await expect(offer).toContainText('1 unsaved edit from');
  expect(await shown(page, 'Base_plate')).toBe(true);
  await page.unroute('**/apply-mutations');
  await offer.getByRole('button', { name: 'Restore' }).click();
  await expect(offer).toHaveCount(0);
  await expect.poll(() => shown(page, 'Base_plate')).toBe(false);
  await expect(page.getByTestId('save-status')).toHaveText(/Unsaved changes \(1 edit\)/);
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  await expect.poll(() => keptInBrowser(page, id)).toBe(0);
  const log = await (await request.get(`/v1/models/${modelId}/mutations`)).json();
  expect(log.mutations.filter((m: any) => m.type === 'updateNode' && m.properties.visible === false)).toHaveLength(1);

  // Nothing unsaved: leaving asks nothing.
  dialogs.length = 0;
  await page.goto('/');
  expect(dialogs).toEqual([]);
});

test('disabling the editor clears the selection, gives the view the simple camera and makes editing do nothing; enabling brings editing back', async ({ page, request }) => {
  await openCopy(page, request);
  const config = () => page.evaluate(() => (window as any).__viewer.viewer.navigation.cameraConfig);
  expect(await config()).toBe('editor');
  const empty = await view(page);
  await row(page, 'Base').getByRole('button', { name: 'Base', exact: true }).click();
  await expect(page.getByRole('treeitem', { selected: true })).toContainText('Base');
  expect(outlinePixels(await view(page), empty).count).toBeGreaterThan(500);

  await page.getByLabel('Editing').uncheck();
  await expect(page.getByRole('treeitem', { selected: true })).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).__editor.selection)).toBeNull();
  expect(await config()).toBe('simple');
  expect(outlinePixels(await view(page), empty).count, 'no outline').toBeLessThan(10);
  // Nothing edits: the toolbar and the outliner's toggles are off, keys and clicks do nothing.
  await expect(page.getByTestId('save')).toBeDisabled();
  await expect(row(page, 'Base_plate').getByRole('button', { name: 'Hide Base_plate' })).toBeDisabled();
  await page.getByTestId('viewer-canvas').focus();
  for (const key of ['Delete', 'Control+z', 'Control+Shift+z', 't']) await page.keyboard.press(key);
  const canvas = (await page.getByTestId('viewer-canvas').boundingBox())!;
  await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  await frames(page);
  expect(await page.evaluate(() => (window as any).__editor.selection)).toBeNull();
  expect(await page.evaluate(() => (window as any).__editor.history.steps().length)).toBe(0);
  await page.evaluate(() => {
    const e = (window as any).__editor;
    const record = [...(window as any).__viewer.viewer.world.models.values()][0] as any;
    e.setNode(record.modelId, [...record.nodes.keys()][0], { visible: false });
  });
  expect(await page.evaluate(() => (window as any).__editor.queues.size)).toBe(0);

  await page.getByLabel('Editing').check();
  expect(await config()).toBe('editor');
  await row(page, 'Base_plate').getByRole('button', { name: 'Hide Base_plate' }).click();
  await expect.poll(() => shown(page, 'Base_plate')).toBe(false);
});

test('Delete and Backspace hide the selected node (undoable updateNode visible=false); the history panel jumps to a step; the snapping key snaps a drag; T sets the move mode', async ({ page, request }) => {
  await openCopy(page, request);
  const canvas = page.getByTestId('viewer-canvas');
  await row(page, 'Base_plate').getByRole('button', { name: 'Base_plate', exact: true }).click();
  await canvas.focus();
  await page.keyboard.press('Delete');
  await expect.poll(() => shown(page, 'Base_plate')).toBe(false);
  await expect(page.getByTestId('history')).toContainText('Hide Base_plate');
  await row(page, 'Anchor_bolt_1').getByRole('button', { name: 'Anchor_bolt_1', exact: true }).click();
  await canvas.focus();
  await page.keyboard.press('Backspace');
  await expect.poll(() => shown(page, 'Anchor_bolt_1')).toBe(false);
  const queued = await page.evaluate(() => Object.values((window as any).__editor.queues.snapshot()).flat() as any[]);
  expect(queued.map((m) => [m.type, m.properties])).toEqual([
    ['updateNode', { visible: false }],
    ['updateNode', { visible: false }],
  ]);
  await page.keyboard.press('Control+z');
  await expect.poll(() => shown(page, 'Anchor_bolt_1')).toBe(true);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(() => shown(page, 'Anchor_bolt_1')).toBe(false);

  // A third step, then the history panel: back to the first step, to the start, to the last.
  await row(page, 'Motor_foot').getByRole('button', { name: 'Hide Motor_foot' }).click();
  const history = page.getByTestId('history');
  await expect(history.locator('li.done')).toHaveCount(3);
  await history.getByRole('button', { name: 'Hide Base_plate' }).click();
  await expect(history.locator('li.done')).toHaveCount(1);
  // The panel answers at once; the scene follows at the next frame's message slot.
  const visibility = async () => [await shown(page, 'Base_plate'), await shown(page, 'Anchor_bolt_1'), await shown(page, 'Motor_foot')];
  await expect.poll(visibility).toEqual([false, true, true]);
  await history.getByRole('button', { name: 'Opened' }).click();
  await expect(history.locator('li.done')).toHaveCount(0);
  await expect.poll(() => shown(page, 'Base_plate')).toBe(true);
  await history.getByRole('button', { name: 'Hide Motor_foot' }).click();
  await expect(history.locator('li.done')).toHaveCount(3);
  await expect.poll(visibility).toEqual([false, false, false]);

  // Ctrl+R then T (Chrome keeps Ctrl+T for a new tab): the gizmo's modes.
  await canvas.focus();
  await page.keyboard.press('Control+r');
  await expect.poll(() => page.evaluate(() => (window as any).__editor.gizmo.mode)).toBe('rotate');
  await page.keyboard.press('t');
  await expect.poll(() => page.evaluate(() => (window as any).__editor.gizmo.mode)).toBe('translate');
  // The '?' list names the snapping key and the T beside Ctrl+T.
  await page.keyboard.press('?');
  const overlay = page.getByTestId('shortcuts-overlay');
  await expect(overlay.locator('[data-action=gizmo-snap]')).toContainText('Shift');
  await expect(overlay.locator('[data-action=gizmo-snap]')).toContainText('Hold while dragging the gizmo');
  await expect(overlay.locator('[data-action=translate-mode]')).toContainText('Ctrl+T');
  await expect(overlay.locator('[data-action=translate-mode] [data-testid=reserved-note]')).toContainText('use T');
  await page.keyboard.press('Escape');
  await expect(overlay).toHaveCount(0);

  // Snapping: the pump dragged with Shift held lands on the 0.1 m grid.
  await row(page, 'Pump').getByRole('button', { name: 'Pump', exact: true }).click();
  await frames(page, 1);
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await frames(page, 1);
  await page.mouse.down();
  await page.mouse.move(c.x + 13, c.y + 3);
  await frames(page, 1);
  await page.keyboard.down('Shift');
  for (let i = 1; i <= 5; i++) {
    await page.mouse.move(c.x + 13 + i * 17, c.y + 3 + i * 2);
    await frames(page, 1);
  }
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await expect(page.getByTestId('history')).toContainText('Move Pump');
  await frames(page, 1);
  // In world space the snapping puts the node's world position on the grid.
  const world = await worldPositionOf(page, 'Pump');
  expect(world.some((v) => Math.abs(v) > 0.05)).toBe(true);
  for (const v of world) expect(Math.abs(v * 10 - Math.round(v * 10)), `${v} on the 0.1 m grid`).toBeLessThan(1e-3);
});

test('lights, cameras and groups: added from the toolbar (outlined), edited, parented, removed, undone, saved, and seen in the viewer', async ({ page, request }) => {
  const copyId = await openCopy(page, request);
  const steps = () => page.getByTestId('history').locator('li.done').count();
  const start = await steps();
  const empty = await view(page);

  // Add a spot light: it is selected, its panel shows the specification's defaults.
  await page.getByTestId('add-object').click();
  await page.getByTestId('add-SpotLight').click();
  const panel = page.getByTestId('object-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel('Intensity')).toHaveValue('25');
  await expect(panel.getByLabel('Angle (rad)')).toHaveValue('0.5');
  await expect(panel.getByLabel('Penumbra')).toHaveValue('0.1');
  await expect(panel.getByLabel('Decay')).toHaveValue('2');
  await expect(page.getByRole('treeitem', { selected: true })).toContainText('Spot light');
  // Its helper is drawn in the editor, outlined while selected.
  expect(await page.evaluate(() => { let n = 0; (window as any).__viewer.viewer.context.scene.traverse((o: any) => { if (o.userData.helperOf) n++; }); return n; })).toBe(1);
  const spot = await page.evaluate(() => (window as any).__editor.selection.objectId as string);
  const lit = outlinePixels(await view(page), empty);
  expect(lit.count).toBeGreaterThan(100);
  expectAround(lit.box, await screenRect(page, { helperOf: spot }), 8);

  // Edit: intensity 40 and a new name; then a group, and the light put under it.
  await panel.getByLabel('Intensity').fill('40');
  await panel.getByLabel('Intensity').press('Enter');
  await panel.getByLabel('Name').fill('Key light');
  await panel.getByLabel('Name').press('Enter');
  await page.getByTestId('add-object').click();
  await page.getByTestId('add-Group').click();
  await page.locator('[data-testid=outliner] li button.name', { hasText: 'Key light' }).click();
  await page.getByTestId('object-panel').getByLabel('Parent').selectOption({ label: 'Group' });
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Key light' })).toHaveAttribute('style', /padding-left: 30px/);
  expect(await steps()).toBe(start + 5);

  // Undo the parenting and redo it.
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+z');
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Key light' })).toHaveAttribute('style', /padding-left: 18px/);
  await page.keyboard.press('Control+Shift+z');
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Key light' })).toHaveAttribute('style', /padding-left: 30px/);

  // Two point lights with shadows: the second passes 12 maps (sun 1 + spot 1 + 6 + 6) and is named.
  for (const name of ['Lamp A', 'Lamp B']) {
    await page.getByTestId('add-object').click();
    await page.getByTestId('add-PointLight').click();
    await page.getByTestId('object-panel').getByLabel('Name').fill(name);
    await page.getByTestId('object-panel').getByLabel('Name').press('Enter');
    await page.getByTestId('object-panel').getByLabel('Casts shadows').check();
  }
  await expect(page.getByTestId('editor-notices')).toContainText("'Lamp B' would make 14 shadow maps, more than the 12 allowed");
  // Delete removes the selected scene object; undo puts it back; delete again.
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Delete');
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Lamp B' })).toHaveCount(0);
  await page.keyboard.press('Control+z');
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Lamp B' })).toHaveCount(1);
  await page.locator('[data-testid=outliner] li button.name', { hasText: 'Lamp B' }).click();
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Delete');
  await expect(page.locator('[data-testid=outliner] li', { hasText: 'Lamp B' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('editor-lights.png') });

  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  const scene = await (await page.request.get(`/v1/scenes/${copyId}`)).json();
  const saved = scene.viewerConfig.objects.map((o: any) => [o.name, o.type, o.intensity ?? null, o.parent ? 'parented' : 'root']);
  expect(saved).toEqual([
    ['Key light', 'SpotLight', 40, 'parented'],
    ['Group', 'Group', null, 'root'],
    ['Lamp A', 'PointLight', 10, 'root'],
  ]);

  // The viewer shows the saved light (and no helpers).
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const seen = await page.evaluate(() => {
    const scene = (window as any).__viewer.viewer.context.scene;
    const light = scene.getObjectByName('Key light');
    let helpers = 0;
    scene.traverse((o: any) => { if (o.userData.helperOf) helpers++; });
    return { type: light?.type, intensity: light?.intensity, helpers };
  });
  expect(seen).toEqual({ type: 'SpotLight', intensity: 40, helpers: 0 });
});

test('scene settings: background, fog, exposure and the initial camera changed, undone, saved and seen in the viewer', async ({ page, request }) => {
  // The copy has a saved light already: a settings save must leave it alone.
  const copyId = await ownCopy(request);
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Ada', lastName: 'Lovelace' });
  const lamp = { ...defaultSceneObject('PointLight', 'settings-lamp'), name: 'Lamp' };
  const put = await request.post(`/v1/scenes/${copyId}/object-changes`, {
    headers: { authorization: `Bearer ${token}` },
    data: { changes: [{ key: 'object/settings-lamp', uuid: 'settings-lamp-1', createdAt: Date.now(), type: 'putObject', objectId: lamp.uuid, object: lamp }] },
  });
  expect(put.status(), await put.text()).toBeLessThan(300);
  await signIn(page, 'Ada', 'Lovelace', `/edit/${encodeURIComponent(copyId)}`);
  await editorReady(page);
  const panel = page.getByTestId('scene-panel');
  await expect(panel).toBeVisible();
  // "environment" cannot be chosen without an environment.
  await expect(panel.getByLabel('Background type').locator('option[value=environment]')).toBeDisabled();
  await panel.getByLabel('Background type').selectOption('gradient');
  await expect(panel.getByLabel('Bottom colour')).toBeVisible();
  await panel.getByLabel('Fog', { exact: true }).check();
  await expect(panel.getByLabel('Density')).toBeVisible();
  await panel.getByLabel('Exposure (2^x)').fill('1');
  const read = () => page.evaluate(() => { const s = (window as any).__editor.readSettings(); return { bg: s.backgroundType, fog: s.fogEnabled, exposure: s.toneMappingExposure, real: (window as any).__viewer.viewer.context.renderer.toneMappingExposure, fogObject: !!(window as any).__viewer.viewer.context.scene.fog }; });
  await expect.poll(read).toEqual({ bg: 'gradient', fog: true, exposure: 1, real: 2, fogObject: true });
  // Undo the exposure: back to 2^0.
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(read).toEqual({ bg: 'gradient', fog: true, exposure: 0, real: 1, fogObject: true });
  await page.getByTestId('initial-camera').click();
  await expect(panel).not.toContainText('frames the models');
  await page.screenshot({ path: test.info().outputPath('editor-scene-settings.png') });
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  const scene = await (await page.request.get(`/v1/scenes/${copyId}`)).json();
  expect(scene.viewerConfig.scene).toMatchObject({ backgroundType: 'gradient', fogEnabled: true, toneMappingExposure: 0 });
  expect(scene.viewerConfig.scene.initialCameraPosition).toBeTruthy();
  // The light saved before is still there: the settings save does not touch it.
  expect(scene.viewerConfig.objects.map((o: any) => o.name)).toEqual(['Lamp']);
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  expect(await page.evaluate(() => !!(window as any).__viewer.viewer.context.scene.fog)).toBe(true);
});

test('a new material for one node: created and assigned as one step, undone and redone, saved and seen in the viewer', async ({ page, request }) => {
  const copyId = await openCopy(page, request);
  await page.locator('[data-testid=outliner] li.mesh button.name').first().click();
  const panel = page.getByTestId('material-panel');
  await expect(panel).toBeVisible();
  const node = await page.evaluate(() => { const s = (window as any).__editor.selection; return { name: s.name, nodeId: s.nodeId, materialId: s.materialId }; });
  const steps = await page.getByTestId('history').locator('li.done').count();
  await page.getByTestId('new-material').click();
  await expect(page.getByTestId('history').locator('li.done')).toHaveCount(steps + 1);
  const created = await page.evaluate(() => (window as any).__editor.selection.materialId);
  expect(created).not.toBe(node.materialId);
  await expect(panel.getByLabel('Material of the node')).toHaveValue(created);
  await panel.getByLabel('Material color').fill('#ff00ff');
  // Undo the colour and the new material: the node has its old material again; redo both.
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+z');
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection.materialId)).toBe(node.materialId);
  await page.keyboard.press('Control+Shift+z');
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection.materialId)).toBe(created);
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const seen = await page.evaluate((name) => {
    const viewer = (window as any).__viewer.viewer;
    for (const record of viewer.world.models.values()) {
      const object = record.root.getObjectByName(name);
      if (!object) continue;
      let hex = -1;
      object.traverse((o: any) => { if (o.isMesh && hex < 0) hex = o.material.color.getHex(); });
      return hex;
    }
    return null;
  }, node.name);
  expect(seen).toBe(0xff00ff);
});

test('a second signed-in person may view a copy but not change it (403)', async ({ page, request }) => {
  const copyId = await ownCopy(request);
  await signIn(page, 'Grace', 'Hopper', `/edit/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  await expect(page.getByTestId('forbidden')).toContainText('you may view this scene but not change it');
  const scene = await (await request.get(`/v1/scenes/${copyId}`)).json();
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Grace', lastName: 'Hopper' });
  const response = await request.post(`/v1/models/${scene.models[0]._id}/apply-mutations`, {
    headers: { authorization: `Bearer ${token}` },
    data: { mutations: [{ key: 'k', uuid: 'grace-1', createdAt: Date.now(), type: 'updateNode', nodeId: '0', properties: { visible: false } }] },
  });
  expect(response.status()).toBe(403);
});

test('texture info of a textured model: wrap, filters, scale and rotation edited with undo, saved and seen in the viewer', async ({ page }) => {
  await importIntoScene(`${MODELS}/Duck.glb`, 'editor-duck');
  await signIn(page, 'Ada', 'Lovelace', '/edit/editor-duck');
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  await page.getByTestId('duplicate').click();
  await page.waitForURL((url) => url.pathname.startsWith('/edit/') && url.pathname !== '/edit/editor-duck', { timeout: 60_000 });
  const duckId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  await editorReady(page);
  await page.locator('[data-testid=outliner] li.mesh button.name').first().click();
  const maps = page.getByTestId('texture-maps');
  await expect(maps.locator('[data-map=map]')).toBeVisible();
  await maps.getByLabel('map wrapS').selectOption('1002');
  await maps.getByLabel('map magFilter').selectOption('1003');
  await maps.getByLabel('map scale U').fill('2');
  await maps.getByLabel('map scale U').press('Tab');
  await maps.getByLabel('map rotation').fill('90');
  await maps.getByLabel('map rotation').press('Tab');
  const texture = () => page.evaluate(() => {
    const e = (window as any).__editor;
    const m = e.readMaterial(e.selection.modelId, e.selection.materialId, ['map']).map;
    return { wrapS: m.wrapS, magFilter: m.magFilter, u: m.scale[0], rotation: Math.round((m.rotation * 180) / Math.PI) };
  });
  await expect.poll(texture).toEqual({ wrapS: 1002, magFilter: 1003, u: 2, rotation: 90 });
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(texture).toEqual({ wrapS: 1002, magFilter: 1003, u: 2, rotation: 0 });
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(texture).toEqual({ wrapS: 1002, magFilter: 1003, u: 2, rotation: 90 });
  await page.screenshot({ path: test.info().outputPath('editor-texture.png') });
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  await page.goto(`/embed/${encodeURIComponent(duckId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const seen = await page.evaluate(() => {
    let out: any = null;
    (window as any).__viewer.viewer.context.scene.traverse((o: any) => {
      if (!out && o.isMesh && o.material?.map) out = { wrapS: o.material.map.wrapS, magFilter: o.material.map.magFilter, u: o.material.map.repeat.x, rotation: Math.round((o.material.map.rotation * 180) / Math.PI) };
    });
    return out;
  });
  expect(seen).toEqual({ wrapS: 1002, magFilter: 1003, u: 2, rotation: 90 });
});

/** In the page: the batch instance of the mesh named `name` (src/engine/model-batches.ts), or null. */
function batchedState(page: Page, name: string): Promise<{ visible: boolean; matrix: number[]; mesh: number[] } | null> {
  return page.evaluate((n) => {
    const world = (window as any).__viewer.viewer.world;
    const b = world.render.batches;
    for (const record of world.models.values()) {
      const object = record.root.getObjectByName(n);
      if (!object) continue;
      const mesh = object.isMesh ? object : object.children.find((c: any) => c.isMesh);
      const eid = mesh.userData.eid;
      const i = b.batchOf ? b.batchOf[eid] : 0;
      if (!i) return null;
      const batch = b.list[i - 1];
      const id = b.instanceOf[eid];
      return { visible: batch.mesh.getVisibleAt(id), matrix: batch.mesh.getMatrixAt(id, mesh.matrixWorld.clone()).elements.slice(12, 15), mesh: mesh.matrixWorld.elements.slice(12, 15) };
    }
    throw new Error(`no node named ${n}`);
  }, name);
}

async function drawCalls(page: Page): Promise<number> {
  await page.evaluate(() => ((window as any).__viewer.viewer.world.render.needsRender = true));
  await frames(page, 1);
  return page.evaluate(() => (window as any).__viewer.viewer.world.stats.drawCalls);
}

test('a model of many parts draws through one batch per material, and stays editable part by part: hide, pick and outline, gizmo drag, save', async ({ page, request }) => {
  const source = 'e2e-plant-400';
  await underLock(`scene-${source}`, async () => {
    if ((await request.get(`/v1/scenes/${source}`)).status() !== 200) await storeRawModel(source, 'e2e-plant-400-model', await buildPartsModel(400));
  });
  const id = await ownCopy(request, source);
  await signIn(page, 'Ada', 'Lovelace', `/edit/${encodeURIComponent(id)}?quality=low`);
  await editorReady(page);
  // (three names nodes with underscores for spaces.) 400 parts, 40 machine nodes, 8 materials: 8 batches, drawn in the picture and the sun's map.
  expect(await page.evaluate(() => (window as any).__viewer.viewer.world.render.batches.list.filter(Boolean).length)).toBe(8);
  expect(await drawCalls(page)).toBeLessThanOrEqual(16);
  const batched = await view(page);
  // The same picture drawn mesh by mesh (400 calls a pass).
  await page.evaluate(() => (window as any).__viewer.viewer.setModelBatching(false));
  expect(await drawCalls(page)).toBeGreaterThanOrEqual(400);
  const plain = await view(page);
  expect(differing(batched, plain), 'batched and plain pictures differ').toBeLessThan(0.002);
  await page.evaluate(() => (window as any).__viewer.viewer.setModelBatching(true));
  expect(await drawCalls(page)).toBeLessThanOrEqual(16);

  // Hidden from the outliner: the machine's parts leave the picture with it.
  expect((await batchedState(page, 'Motor_of_machine_12'))?.visible).toBe(true);
  await row(page, 'Machine_12').getByRole('button', { name: 'Hide Machine_12' }).click();
  await expect.poll(async () => (await batchedState(page, 'Motor_of_machine_12'))?.visible).toBe(false);
  expect((await batchedState(page, 'Motor_of_machine_13'))?.visible).toBe(true);

  // A click on a part picks that part (its own mesh, not the batch), outlined.
  const empty = await view(page);
  const at = await page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const camera = viewer.navigation.camera;
    let motor: any = null;
    for (const record of viewer.world.models.values()) motor ??= record.root.getObjectByName('Motor_of_machine_20');
    const p = motor.position.clone().setFromMatrixPosition(motor.matrixWorld).project(camera);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  });
  await page.mouse.click(at.x, at.y);
  await expect.poll(() => page.evaluate(() => ((window as any).__viewer.viewer.world.objects[(window as any).__editor.gizmo.eid]?.name as string) ?? null)).toBe('Motor_of_machine_20');
  expect(outlinePixels(await view(page), empty).count, 'the selected part is outlined').toBeGreaterThan(20);

  // Dragged with the gizmo: its batch instance goes with it, frame by frame.
  const before = await batchedState(page, 'Motor_of_machine_20');
  await pressGizmoAndMove(page, 3, 15);
  await page.mouse.up();
  await frames(page, 1);
  const after = (await batchedState(page, 'Motor_of_machine_20'))!;
  expect(Math.hypot(after.mesh[0]! - before!.mesh[0]!, after.mesh[1]! - before!.mesh[1]!, after.mesh[2]! - before!.mesh[2]!)).toBeGreaterThan(0.01);
  for (let k = 0; k < 3; k++) expect(after.matrix[k]).toBeCloseTo(after.mesh[k]!, 5);

  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  // The viewer: the saved edits applied, still drawn through the batches.
  await page.goto(`/embed/${encodeURIComponent(id)}?quality=low`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 180_000 });
  const seen = (await batchedState(page, 'Motor_of_machine_20'))!;
  for (let k = 0; k < 3; k++) expect(seen.matrix[k]).toBeCloseTo(after.mesh[k]!, 3);
  expect((await batchedState(page, 'Motor_of_machine_12'))?.visible).toBe(false);
  expect(await drawCalls(page)).toBeLessThanOrEqual(16);
});
