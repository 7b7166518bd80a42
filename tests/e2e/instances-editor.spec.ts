import { expect, test, type Page } from '@playwright/test';
import { signTestToken } from '../../src/server/auth/tokens';
import { loadServerConfig } from '../../src/server/config';
import { ensureDemoAssets } from '../../src/server/demo-instances-scene';
import { createInstanceService } from '../../src/server/instances';
import { decodeInstanceSet } from '../../src/protocol/instance-set';
import { join } from 'node:path';
import { canvasScreenshot, EDITOR_VIEWPORT, MODELS, store, underLock } from './helpers';
import { decodePng } from './png';
import { instanceGizmoCentre } from '../support/instance-gizmo';
import { TOKEN_STORAGE_KEY } from '../../src/protocol/auth';

/**
 * Editing instances of an instanced asset group as a person does (issue 15): a row of five houses
 * owned by the signed-in person; click one, drag the gizmo, Delete, Ctrl+Z, Ctrl+C (a copy beside
 * it), Ctrl+S; the server's set and a reload show the same state; box selection takes several;
 * the gizmo's rotate ring and scale handle turn and scale one instance, each one undo step, saved;
 * box selection in a grid of 300 cars takes the ones inside the rectangle and moves only them.
 */
test.describe.configure({ mode: 'serial' });
// A desktop editor's size (helpers.ts).
test.use({ viewport: EDITOR_VIEWPORT });
test.setTimeout(240_000);

const SCENE = 'e2e-instances-editor';
const GROUP = 'houses';
const SPACING = 20;
/** A larger group: a grid of COLUMNS x ROWS cars, CAR_SPACING apart, ids row by row. */
const GRID_SCENE = 'e2e-instances-grid';
const CARS = 'cars';
const COLUMNS = 20;
const ROWS = 15;
const CAR_SPACING = 8;

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

async function prepareGrid(): Promise<void> {
  const s = await store();
  const config = loadServerConfig({ ...process.env, DATA_DIR: process.env.E2E_DATA_DIR });
  const { user } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Ines', lastName: 'Instance' });
  await underLock('scene-e2e-instances-grid', async () => {
    if (await s.getScene(GRID_SCENE)) return;
    const assets = await ensureDemoAssets(config);
    const count = COLUMNS * ROWS;
    await s.createScene({
      _id: GRID_SCENE,
      name: 'A car park',
      ownerId: user.id,
      viewerConfig: {
        scene: { initialCameraPosition: { x: 0, y: 150, z: 115 }, initialCameraTarget: { x: 0, y: 0, z: 0 } },
        objects: [{ uuid: CARS, type: 'InstancedAssetGroup', name: 'Cars', parent: null, position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1], visible: true, castShadow: true, assetId: assets.get('car')!, instanceCount: count }],
      },
    });
    const matrices = new Float32Array(count * 12);
    for (let id = 0; id < count; id++) {
      const x = ((id % COLUMNS) - (COLUMNS - 1) / 2) * CAR_SPACING;
      const z = (Math.floor(id / COLUMNS) - (ROWS - 1) / 2) * CAR_SPACING;
      matrices.set([1, 0, 0, 0, 1, 0, 0, 0, 1, x, 0, z], id * 12);
    }
    await createInstanceService(s).replace(GRID_SCENE, CARS, { ids: Uint32Array.from({ length: count }, (_, i) => i), matrices, nextId: count });
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
  // The editor starts after the viewer is ready (the access check, the browser's unsaved edits):
  // a click before it exists selects nothing.
  await page.waitForFunction(() => !!(window as any).__editor, undefined, { timeout: 60_000 });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
}

/** Client position of an instance's centre (its world box's centre). */
function instanceOnScreen(page: Page, id: number, groupId = GROUP): Promise<{ x: number; y: number }> {
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
    { group: groupId, id },
  );
}

/** The group-local matrix of one instance (16 numbers) from the engine. */
function instanceMatrix(page: Page, id: number): Promise<number[]> {
  return page.evaluate(
    ({ group, id }) => {
      const g = [...(window as any).__viewer.viewer.world.instanceGroups.values()].find((r: any) => r.uuid === group) as any;
      const slot = g.index.get(id);
      return Array.from(g.attribute.array.slice(slot * 16, slot * 16 + 16) as Float32Array);
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

/**
 * A client point on the gizmo's handle for `axis` in its current mode, that the gizmo itself
 * takes as that handle (its own hover test, on its invisible picker meshes), and the direction
 * on screen from the gizmo's centre to that handle's middle. For a ring ('rotate'), the point is
 * on the ring's front, below the centre; for a scale handle, on its +axis arm.
 */
async function gizmoHandle(page: Page, axis: 'X' | 'Y' | 'Z'): Promise<{ x: number; y: number; dx: number; dy: number }> {
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const found = await page.evaluate((axis) => {
    const viewer = (window as any).__viewer.viewer;
    const camera = viewer.navigation.camera;
    const root = viewer.world.render.scene.getObjectByName('Editor gizmo');
    const controls = root.controls;
    const gizmo = root.children.find((c: any) => c.picker);
    const handles = gizmo.picker[controls.mode].children.filter((c: any) => c.name === axis);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    const toClient = (p: any) => ({ x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height });
    const vector = () => camera.position.clone();
    const centre = toClient(vector().setFromMatrixPosition(controls.object.matrixWorld).project(camera));
    // The middle of each of the handle's pickers (a scale handle has two arms, the first on +axis; a ring one).
    const mids = handles.map((h: any) => {
      h.geometry.computeBoundingBox();
      return toClient(h.geometry.boundingBox.getCenter(vector()).applyMatrix4(h.matrixWorld).project(camera));
    });
    const candidates: { x: number; y: number }[] = [];
    for (let dy = -220; dy <= 220; dy += 4) {
      for (let dx = -220; dx <= 220; dx += 4) {
        const x = centre.x + dx;
        const y = centre.y + dy;
        controls.pointerHover({ x: ((x - rect.left) / rect.width) * 2 - 1, y: -((y - rect.top) / rect.height) * 2 + 1, button: 0 });
        if (controls.axis === axis) candidates.push({ x, y });
      }
    }
    controls.axis = null;
    return { centre, mids, candidates, mode: controls.mode };
  }, axis);
  expect(found.candidates.length, `points on the gizmo's ${axis} handle (${found.mode})`).toBeGreaterThan(3);
  const { centre, candidates } = found;
  let pick: { x: number; y: number };
  let direction: { x: number; y: number };
  if (found.mode === 'rotate') {
    // The ring's front: below the centre, near the vertical through it.
    const front = candidates.filter((p) => p.y > centre.y + 8 && Math.abs(p.x - centre.x) <= 12).sort((a, b) => a.y - b.y);
    expect(front.length, 'points on the front of the ring').toBeGreaterThan(0);
    pick = front[front.length >> 1]!;
    direction = { x: 1, y: 0 };
  } else {
    const mid = found.mids[0]!;
    const d = { x: mid.x - centre.x, y: mid.y - centre.y };
    const length = Math.hypot(d.x, d.y);
    direction = { x: d.x / length, y: d.y / length };
    const arm = candidates.filter((p) => (p.x - centre.x) * direction.x + (p.y - centre.y) * direction.y > 0).sort((a, b) => Math.hypot(a.x - mid.x, a.y - mid.y) - Math.hypot(b.x - mid.x, b.y - mid.y));
    expect(arm.length, 'points on the +arm of the scale handle').toBeGreaterThan(0);
    pick = arm[0]!;
  }
  return { x: pick.x, y: pick.y, dx: direction.x, dy: direction.y };
}

/** Presses on `from`, then moves `steps` times by (dx, dy) pixels, a frame after each, and releases. */
async function dragGizmo(page: Page, from: { x: number; y: number }, dx: number, dy: number, steps: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.down();
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(from.x + i * dx, from.y + i * dy);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  }
  await page.mouse.up();
}

function historySteps(page: Page): Promise<{ name: string; done: boolean }[]> {
  return page.evaluate(() => (window as any).__editor.history.steps().map((s: any) => ({ name: s.name, done: s.done })));
}

/** The server's set of a group as {id: 12 packed numbers}. */
async function serverSet(page: Page, scene: string, group: string): Promise<Record<number, number[]>> {
  const token = await page.evaluate((key) => (JSON.parse(localStorage.getItem(key) ?? '{}') as { token?: string }).token ?? null, TOKEN_STORAGE_KEY);
  const served = await page.evaluate(
    async ({ scene, group, token }) => {
      const r = await fetch(`/v1/scenes/${scene}/groups/${group}/instances`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      return Array.from(new Uint8Array(await r.arrayBuffer()));
    },
    { scene, group, token },
  );
  const set = decodeInstanceSet(new Uint8Array(served));
  const out: Record<number, number[]> = {};
  set.ids.forEach((id, slot) => (out[id] = Array.from(set.matrices.slice(slot * 12, slot * 12 + 12))));
  return out;
}

/** Columns of a 16-number matrix as the 12 numbers of the packed set. */
const packed = (m: number[]) => [m[0]!, m[1]!, m[2]!, m[4]!, m[5]!, m[6]!, m[8]!, m[9]!, m[10]!, m[12]!, m[13]!, m[14]!];
const column = (m: number[], k: number) => Math.hypot(m[k * 4]!, m[k * 4 + 1]!, m[k * 4 + 2]!);

/** The live instances as {id: [x, y, z]} from the engine. */
function engineInstances(page: Page, groupId = GROUP): Promise<Record<number, number[]>> {
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
  }, groupId);
}

test.beforeAll(async () => {
  await prepare();
  await prepareGrid();
});

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
  const c = await instanceGizmoCentre(page);
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
  // Drawn where it is now: the picture through the culled path (the matrix texture's row sent after
  // the drag) is the one drawn through instanceMatrix, as a plain InstancedMesh draws.
  const picture = async (culling: boolean) => {
    await page.evaluate(async (on) => {
      const viewer = (window as any).__viewer.viewer;
      viewer.world.render.instanceCulling = on;
      viewer.world.render.needsRender = true;
      await viewer.nextFrame();
      await viewer.nextFrame();
    }, culling);
    return decodePng(await canvasScreenshot(page));
  };
  const culledPicture = await picture(true);
  const plainPicture = await picture(false);
  await picture(true);
  let differing = 0;
  for (let i = 0; i < culledPicture.data.length; i += 4) {
    const d = Math.abs(culledPicture.data[i]! - plainPicture.data[i]!) + Math.abs(culledPicture.data[i + 1]! - plainPicture.data[i + 1]!) + Math.abs(culledPicture.data[i + 2]! - plainPicture.data[i + 2]!);
    if (d > 24) differing++;
  }
  expect(differing / (culledPicture.width * culledPicture.height), 'pixels that differ between culled and plain drawing after the drag').toBeLessThan(0.002);
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
  const c = await instanceGizmoCentre(page);
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

test('the gizmo turns one instance with its ring and scales another with its handle: one undo step each, saved, and a reload shows both', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page, `/edit/${SCENE}`);
  await ready(page);
  const startRotated = await instanceMatrix(page, 1);
  const startScaled = await instanceMatrix(page, 2);
  const others = await engineInstances(page);

  // Rotate: select house 1, the Rotate mode, drag its Y ring sideways.
  const h1 = await instanceOnScreen(page, 1);
  await page.mouse.click(h1.x, h1.y);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.instances?.ids ?? null)).toEqual([1]);
  await page.getByRole('button', { name: 'Rotate', exact: true }).click();
  await expect.poll(() => page.evaluate(() => (window as any).__editor.gizmo.mode)).toBe('rotate');
  const stepsBefore = (await historySteps(page)).length;
  const ring = await gizmoHandle(page, 'Y');
  await dragGizmo(page, ring, 8, 0, 6);
  const rotated = await instanceMatrix(page, 1);
  // Turned about its own vertical axis: X and Z columns turned, Y column and position kept, no scale.
  expect(Math.abs(rotated[0]! - 1)).toBeGreaterThan(0.05);
  expect(Math.abs(rotated[8]!)).toBeGreaterThan(0.05);
  [rotated[4], rotated[6]].forEach((v) => expect(v).toBeCloseTo(0, 4));
  expect(rotated[5]).toBeCloseTo(1, 4);
  [0, 1, 2].forEach((k) => expect(column(rotated, k)).toBeCloseTo(1, 4));
  [12, 13, 14].forEach((k) => expect(rotated[k]).toBeCloseTo(startRotated[k]!, 3));
  let steps = await historySteps(page);
  expect(steps.length).toBe(stepsBefore + 1);
  expect(steps[steps.length - 1]).toEqual({ name: 'Rotate Houses #1', done: true });
  // One undo step: Undo puts it back as it was, Redo turns it again.
  await page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect.poll(() => instanceMatrix(page, 1)).toEqual(startRotated);
  await page.getByRole('button', { name: 'Redo', exact: true }).click();
  await expect.poll(() => instanceMatrix(page, 1)).toEqual(rotated);

  // Scale: select house 2, the Scale mode, drag its X handle outwards.
  const h2 = await instanceOnScreen(page, 2);
  await page.mouse.click(h2.x, h2.y);
  await expect.poll(() => page.evaluate(() => (window as any).__editor.selection?.instances?.ids ?? null)).toEqual([2]);
  await page.getByRole('button', { name: 'Scale', exact: true }).click();
  await expect.poll(() => page.evaluate(() => (window as any).__editor.gizmo.mode)).toBe('scale');
  const handle = await gizmoHandle(page, 'X');
  await dragGizmo(page, handle, handle.dx * 10, handle.dy * 10, 6);
  const scaled = await instanceMatrix(page, 2);
  // Longer along its X axis only, not turned, not moved.
  expect(column(scaled, 0)).toBeGreaterThan(1.2);
  expect(column(scaled, 1)).toBeCloseTo(1, 4);
  expect(column(scaled, 2)).toBeCloseTo(1, 4);
  [scaled[1], scaled[2], scaled[4], scaled[6], scaled[8], scaled[9]].forEach((v) => expect(v).toBeCloseTo(0, 4));
  [12, 13, 14].forEach((k) => expect(scaled[k]).toBeCloseTo(startScaled[k]!, 3));
  steps = await historySteps(page);
  expect(steps.length).toBe(stepsBefore + 2);
  expect(steps[steps.length - 1]).toEqual({ name: 'Scale Houses #2', done: true });
  await page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect.poll(() => instanceMatrix(page, 2)).toEqual(startScaled);
  expect(await instanceMatrix(page, 1)).toEqual(rotated);
  await page.getByRole('button', { name: 'Redo', exact: true }).click();
  await expect.poll(() => instanceMatrix(page, 2)).toEqual(scaled);
  // The other houses did not move.
  const now = await engineInstances(page);
  for (const id of Object.keys(others).map(Number)) if (id !== 1 && id !== 2) expect(now[id]).toEqual(others[id]);

  // Saved: the server holds both matrices; a reload shows them.
  await page.getByTestId('save').click();
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  const set = await serverSet(page, SCENE, GROUP);
  set[1]!.forEach((v, k) => expect(v).toBeCloseTo(packed(rotated)[k]!, 4));
  set[2]!.forEach((v, k) => expect(v).toBeCloseTo(packed(scaled)[k]!, 4));
  await page.reload();
  await ready(page);
  (await instanceMatrix(page, 1)).forEach((v, k) => expect(v).toBeCloseTo(rotated[k]!, 4));
  (await instanceMatrix(page, 2)).forEach((v, k) => expect(v).toBeCloseTo(scaled[k]!, 4));
  expect(errors).toEqual([]);
});

test('box selection in a grid of 300 cars takes the cars inside the rectangle and moves only them', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page, `/edit/${GRID_SCENE}`);
  await ready(page);
  const before = await engineInstances(page, CARS);
  expect(Object.keys(before).length).toBe(COLUMNS * ROWS);

  // A rectangle from halfway before car (3, 4) to halfway past car (8, 8), in screen space.
  const at = (column: number, row: number) => instanceOnScreen(page, row * COLUMNS + column, CARS);
  const [a, a0, b, b1] = await Promise.all([at(3, 4), at(2, 3), at(8, 8), at(9, 9)]);
  const from = { x: (a.x + a0.x) / 2, y: (a.y + a0.y) / 2 };
  const to = { x: (b.x + b1.x) / 2, y: (b.y + b1.y) / 2 };
  // The cars whose centres project inside it, worked out here from the camera.
  const inside = await page.evaluate(
    ({ group, from, to }) => {
      const viewer = (window as any).__viewer.viewer;
      const camera = viewer.navigation.camera;
      const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === group) as any;
      const rect = viewer.context.renderer.domElement.getBoundingClientRect();
      const b = new Float32Array(6);
      const out: number[] = [];
      for (let slot = 0; slot < g.count; slot++) {
        g.bvh.instanceBox(g.attribute.array, slot, b);
        const p = camera.position.clone().set((b[0] + b[3]) / 2, (b[1] + b[4]) / 2, (b[2] + b[5]) / 2).applyMatrix4(g.object.matrixWorld).project(camera);
        const x = rect.left + ((p.x + 1) / 2) * rect.width;
        const y = rect.top + ((1 - p.y) / 2) * rect.height;
        if (x >= Math.min(from.x, to.x) && x <= Math.max(from.x, to.x) && y >= Math.min(from.y, to.y) && y <= Math.max(from.y, to.y)) out.push(g.ids[slot]);
      }
      return out.sort((p: number, q: number) => p - q);
    },
    { group: CARS, from, to },
  );
  expect(inside.length).toBeGreaterThanOrEqual(12);
  expect(inside.length).toBeLessThan(COLUMNS * ROWS / 2);

  await page.getByTestId('viewer-canvas').focus();
  await page.keyboard.press('b');
  await expect(page.getByTestId('box-select-toggle')).toHaveAttribute('aria-pressed', 'true');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.up();
  await expect.poll(() => page.evaluate(() => [...((window as any).__editor.selection?.instances?.ids ?? [])].sort((p: number, q: number) => p - q))).toEqual(inside);
  await expect(page.getByTestId('instances-selected')).toHaveText(`${inside.length} Cars`);
  await page.keyboard.press('b');

  // The gizmo at their centre moves them all by the same amount, as one step; no other car moves.
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  expect(await page.evaluate(() => (window as any).__editor.gizmo.mode)).toBe('translate');
  const c = await instanceGizmoCentre(page);
  await dragGizmo(page, c, 10, 0, 6);
  const after = await engineInstances(page, CARS);
  const selected = new Set(inside);
  const d = after[inside[0]!]!.map((v, k) => v - before[inside[0]!]![k]!);
  expect(Math.hypot(...d)).toBeGreaterThan(1);
  for (const id of Object.keys(before).map(Number)) {
    if (selected.has(id)) after[id]!.forEach((v, k) => expect(v - before[id]![k]!).toBeCloseTo(d[k]!, 1));
    else expect(after[id]).toEqual(before[id]);
  }
  await expect(page.getByTestId('history')).toContainText(`Move ${inside.length} Cars`);

  // Saved as one edit: the server's set agrees, car by car.
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });
  const set = await serverSet(page, GRID_SCENE, CARS);
  expect(Object.keys(set).length).toBe(COLUMNS * ROWS);
  for (const id of Object.keys(after).map(Number)) [9, 10, 11].forEach((k, i) => expect(set[id]![k]).toBeCloseTo(after[id]![i]!, 1));
  expect(errors).toEqual([]);
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
