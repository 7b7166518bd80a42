import { expect, test, type Page } from '@playwright/test';
import { signTestToken } from '../../src/server/auth/tokens';
import { loadServerConfig } from '../../src/server/config';
import { ensureDemoAssets } from '../../src/server/demo-instances-scene';
import { createInstanceService } from '../../src/server/instances';
import { decodeInstanceSet } from '../../src/protocol/instances';
import { join } from 'node:path';
import { canvasScreenshot, MODELS, store, underLock } from './helpers';
import { decodePng } from './png';
import { TOKEN_STORAGE_KEY } from '../../src/protocol/auth';

/**
 * Editing instances of an instanced asset group as a person does (issue 15): a row of five houses
 * owned by the signed-in person; click one, drag the gizmo, Delete, Ctrl+Z, Ctrl+C (a copy beside
 * it), Ctrl+S; the server's set and a reload show the same state; box selection takes several.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(240_000);

const SCENE = 'e2e-instances-editor';
const GROUP = 'houses';
const SPACING = 20;

async function prepare(): Promise<void> {
  const s = await store();
  const config = loadServerConfig({ ...process.env, DATA_DIR: process.env.E2E_DATA_DIR });
  const { user } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Ines', lastName: 'Instance' });
  await underLock('scene-e2e-instances-editor', async () => {
    if (await s.getScene(SCENE)) return;
    const assets = await ensureDemoAssets(config);
    await s.createScene({
      _id: SCENE,
      name: 'Five houses',
      ownerId: user.id,
      viewerConfig: {
        scene: { initialCameraPosition: { x: 0, y: 45, z: 70 }, initialCameraTarget: { x: 0, y: 0, z: 0 } },
        objects: [{ uuid: GROUP, type: 'InstancedAssetGroup', name: 'Houses', parent: null, position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1], visible: true, castShadow: true, assetId: assets.get('house')!, instanceCount: 5 }],
      },
    });
    const m = (x: number) => [1, 0, 0, 0, 1, 0, 0, 0, 1, x, 0, 0];
    await createInstanceService(s).replace(SCENE, GROUP, { ids: new Uint32Array([0, 1, 2, 3, 4]), matrices: new Float32Array([-2, -1, 0, 1, 2].flatMap((i) => m(i * SPACING))), nextId: 5 });
  });
}

async function signIn(page: Page, returnTo: string) {
  await page.goto(`/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByLabel(/first name/i).fill('Ines');
  await page.getByLabel(/last name/i).fill('Instance');
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.pathname === returnTo, { timeout: 60_000 });
}

async function ready(page: Page) {
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  await page.waitForFunction(() => (window as any).__viewer.viewer.world.instanceGroups.size > 0, undefined, { timeout: 60_000 });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
}

/** Client position of an instance's centre (its world box's centre). */
function instanceOnScreen(page: Page, id: number): Promise<{ x: number; y: number }> {
  return page.evaluate(
    ({ group, id }) => {
      const viewer = (window as any).__viewer.viewer;
      const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === group) as any;
      const b = new Float32Array(6);
      g.bvh.instanceBox(g.attribute.array, g.index.get(id), b);
      const p = viewer.navigation.camera.position.clone().set((b[0] + b[3]) / 2, (b[1] + b[4]) / 2, (b[2] + b[5]) / 2).applyMatrix4(g.object.matrixWorld).project(viewer.navigation.camera);
      const rect = viewer.context.renderer.domElement.getBoundingClientRect();
      return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
    },
    { group: GROUP, id },
  );
}

/** Client rectangle (x0, y0, x1, y1) of an instance's world box, projected. */
function instanceRect(page: Page, id: number): Promise<[number, number, number, number]> {
  return page.evaluate(
    ({ group, id }) => {
      const viewer = (window as any).__viewer.viewer;
      const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === group) as any;
      const b = new Float32Array(6);
      g.bvh.instanceBox(g.attribute.array, g.index.get(id), b);
      const camera = viewer.navigation.camera;
      const rect = viewer.context.renderer.domElement.getBoundingClientRect();
      const out = [Infinity, Infinity, -Infinity, -Infinity];
      for (let i = 0; i < 8; i++) {
        const p = camera.position.clone().set(i & 1 ? b[3] : b[0], i & 2 ? b[4] : b[1], i & 4 ? b[5] : b[2]).applyMatrix4(g.object.matrixWorld).project(camera);
        const x = rect.left + ((p.x + 1) / 2) * rect.width;
        const y = rect.top + ((1 - p.y) / 2) * rect.height;
        out[0] = Math.min(out[0], x);
        out[1] = Math.min(out[1], y);
        out[2] = Math.max(out[2], x);
        out[3] = Math.max(out[3], y);
      }
      return out as [number, number, number, number];
    },
    { group: GROUP, id },
  );
}

/** The live instances as {id: [x, y, z]} from the engine. */
function engineInstances(page: Page): Promise<Record<number, number[]>> {
  return page.evaluate((group) => {
    const viewer = (window as any).__viewer.viewer;
    const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === group) as any;
    const out: Record<number, number[]> = {};
    for (let slot = 0; slot < g.count; slot++) {
      const id = g.ids[slot];
      if (id === 0xffffffff) continue;
      out[id] = Array.from(g.attribute.array.slice(slot * 16 + 12, slot * 16 + 15) as Float32Array).map((v) => Math.round(v * 100) / 100);
    }
    return out;
  }, GROUP);
}

async function gizmoCentre(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const editor = (window as any).__editor;
    // The pivot: the centre of the selected instances' positions.
    const ids: number[] = editor.gizmo.instances.ids;
    const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === editor.gizmo.instances.groupId) as any;
    const e = g.attribute.array;
    const sum = [0, 1, 2].map((k) => ids.reduce((n, id) => n + e[g.index.get(id) * 16 + 12 + k], 0) / ids.length);
    const p = viewer.navigation.camera.position.clone().set(sum[0], sum[1], sum[2]).applyMatrix4(g.object.matrixWorld).project(viewer.navigation.camera);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  });
}

test.beforeAll(prepare);

test('click an instance, drag it, delete it, undo, copy it, save, and a reload shows the same', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page, `/edit/${SCENE}`);
  await ready(page);
  const start = await engineInstances(page);
  expect(Object.keys(start).map(Number)).toEqual([0, 1, 2, 3, 4]);

  // A click on house 3 selects that instance: its outline (of that house alone), the panel names it.
  const h = await instanceOnScreen(page, 3);
  await page.mouse.click(h.x, h.y);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.instances ?? null)).toEqual({ groupId: GROUP, ids: [3] });
  await expect(page.getByTestId('instances-selected')).toHaveText('Houses #3');
  await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath('instance-selected.png') });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const shot = decodePng(await canvasScreenshot(page));
  const canvas = (await page.getByTestId('viewer-canvas').boundingBox())!;
  let outline = 0;
  let stray = 0;
  const r = await instanceRect(page, 3);
  const near = (x: number, y: number) => x >= r[0] - canvas.x - 6 && x <= r[2] - canvas.x + 6 && y >= r[1] - canvas.y - 6 && y <= r[3] - canvas.y + 6;
  for (let y = 0; y < shot.height; y++) {
    for (let x = 0; x < shot.width; x++) {
      const i = (y * shot.width + x) * 4;
      // The selection outline's blue (#1f8efa).
      if (Math.abs(shot.data[i] - 0x1f) > 12 || Math.abs(shot.data[i + 1] - 0x8e) > 12 || Math.abs(shot.data[i + 2] - 0xfa) > 12) continue;
      if (near(x, y)) outline++;
      else stray++;
    }
  }
  expect(outline, 'outline pixels around house 3').toBeGreaterThan(100);
  expect(stray, 'outline pixels elsewhere').toBeLessThan(10);

  // Drag the gizmo's centre (moves in the view plane): one drag, one step, only house 3 moves.
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.down();
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  for (let i = 1; i <= 8; i++) {
    await page.mouse.move(c.x + i * 12, c.y);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  }
  await page.mouse.up();
  const moved = await engineInstances(page);
  expect(moved[3]![0]).toBeGreaterThan(start[3]![0]! + 2);
  for (const id of [0, 1, 2, 4]) expect(moved[id]).toEqual(start[id]);
  await expect(page.getByTestId('history')).toContainText('Move Houses #3');

  // Delete, then Ctrl+Z: house 3 goes and comes back where it was moved to, with its id.
  await page.keyboard.press('Delete');
  await expect.poll(async () => Object.keys(await engineInstances(page)).length).toBe(4);
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await engineInstances(page))[3]).toEqual(moved[3]);

  // Select it again and Ctrl+C: a copy with a new id beside it, selected.
  const h2 = await instanceOnScreen(page, 3);
  await page.mouse.click(h2.x, h2.y);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.instances?.ids ?? null)).toEqual([3]);
  await page.keyboard.press('Control+c');
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.instances?.ids ?? null)).toEqual([5]);
  const copied = await engineInstances(page);
  expect(copied[5]![0]).toBeGreaterThan(moved[3]![0]! + 5);
  expect(copied[5]![2]).toBeCloseTo(moved[3]![2]!, 1);

  // Save: the server's set holds the same state.
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  const token = await page.evaluate((key) => (JSON.parse(localStorage.getItem(key) ?? '{}') as { token?: string }).token ?? null, TOKEN_STORAGE_KEY);
  const served = await page.evaluate(async ({ scene, group, token }) => {
    const r = await fetch(`/v1/scenes/${scene}/groups/${group}/instances`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return Array.from(new Uint8Array(await r.arrayBuffer()));
  }, { scene: SCENE, group: GROUP, token });
  const set = decodeInstanceSet(new Uint8Array(served));
  const serverX: Record<number, number> = {};
  set.ids.forEach((id, slot) => (serverX[id] = Math.round(set.matrices[slot * 12 + 9]! * 100) / 100));
  expect(serverX).toEqual(Object.fromEntries(Object.entries(copied).map(([id, p]) => [id, p[0]])));

  // A reload shows the same instances where they were left.
  await page.reload();
  await ready(page);
  expect(await engineInstances(page)).toEqual(copied);
  expect(errors).toEqual([]);
});

test('box selection takes the instances inside the rectangle, and moves them together', async ({ page }) => {
  await signIn(page, `/edit/${SCENE}`);
  await ready(page);
  const before = await engineInstances(page);
  const left = await instanceOnScreen(page, 1);
  const right = await instanceOnScreen(page, 2);
  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('b');
  await expect(page.getByTestId('box-select-toggle')).toHaveAttribute('aria-pressed', 'true');
  await page.mouse.move(left.x - 60, left.y - 60);
  await page.mouse.down();
  await page.mouse.move((left.x + right.x) / 2, left.y, { steps: 4 });
  await page.mouse.move(right.x + 60, right.y + 60, { steps: 4 });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await expect(page.getByTestId('box-select')).toBeVisible();
  await page.mouse.up();
  await expect.poll(() => page.evaluate(() => [...((window as any).__editor.selection?.instances?.ids ?? [])].sort())).toEqual([1, 2]);
  await expect(page.getByTestId('instances-selected')).toHaveText('2 Houses');
  await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath('instances-box-selected.png') });

  // Box selection off; the gizmo at their centre moves both by the same amount, as one step.
  await page.keyboard.press('b');
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.down();
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  for (let i = 1; i <= 6; i++) {
    await page.mouse.move(c.x, c.y - i * 10);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  }
  await page.mouse.up();
  const after = await engineInstances(page);
  const d1 = after[1]!.map((v, i) => v - before[1]![i]!);
  const d2 = after[2]!.map((v, i) => v - before[2]![i]!);
  expect(Math.hypot(...d1)).toBeGreaterThan(1);
  d1.forEach((v, i) => expect(v).toBeCloseTo(d2[i]!, 1));
  expect(after[0]).toEqual(before[0]);
  await expect(page.getByTestId('history')).toContainText('Move 2 Houses');
  await page.keyboard.press('Control+z');
  await expect.poll(() => engineInstances(page)).toEqual(before);
});

test("the editor's asset library uploads an asset and Place puts it in the view as a new group; saved, it is there after a reload", async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page, `/edit/${SCENE}`);
  await ready(page);
  const library = page.getByTestId('editor-assets');
  await library.getByLabel('Choose asset files').setInputFiles(join(MODELS, 'Duck.glb'));
  await expect(library.getByText("Duck.glb is in your assets as 'Duck'.")).toBeVisible({ timeout: 60_000 });
  const groupsBefore = await page.evaluate(() => (window as any).__viewer.viewer.world.instanceGroups.size);
  await library.getByRole('button', { name: 'Place Duck' }).first().click();
  await expect.poll(() => page.evaluate(() => (window as any).__viewer.viewer.world.instanceGroups.size)).toBe(groupsBefore + 1);
  const placed = await page.evaluate(() => (window as any).__editor.selection?.instances ?? null);
  expect(placed?.ids).toEqual([0]);
  await expect(page.getByTestId('history')).toContainText('Place');
  // The focus is on the library's button (keys belong to the view): the toolbar's Save.
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  await page.reload();
  await ready(page);
  await expect
    .poll(() =>
      page.evaluate((uuid) => {
        const g = [...(window as any).__viewer.viewer.world.instanceGroups.values()].find((r: any) => r.uuid === uuid) as any;
        return g ? { live: g.live, placeholder: g.asset.placeholder } : null;
      }, placed.groupId),
    )
    .toEqual({ live: 1, placeholder: false });
  expect(errors).toEqual([]);
});
