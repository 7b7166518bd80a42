import { expect, test, type Page } from '@playwright/test';
import { signTestToken } from '../../src/server/auth/tokens';
import { importIntoScene, MODELS } from './helpers';

/**
 * The editor as a person uses it: sign in with the development provider, open the demo in the
 * editor, duplicate it to edit, click a node, drag the gizmo, Ctrl+S, and see the node moved in
 * the viewer; undo/redo across a merge; a second person gets 403.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(240_000);

let copyId = '';

async function signIn(page: Page, firstName: string, lastName: string, returnTo: string) {
  await page.goto(`/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByLabel(/first name/i).fill(firstName);
  await page.getByLabel(/last name/i).fill(lastName);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => url.pathname === returnTo, { timeout: 60_000 });
}

async function editorReady(page: Page) {
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  await expect(page.getByTestId('outliner')).toBeVisible({ timeout: 60_000 });
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

test('sign in, duplicate the demo, click a node, drag the gizmo, Ctrl+S, and the viewer shows it moved', async ({ page }) => {
  await signIn(page, 'Ada', 'Lovelace', '/edit/demo');
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  // The seeded demo is nobody's: the person is offered a copy of their own.
  await page.getByTestId('duplicate').click();
  await page.waitForURL((url) => url.pathname.startsWith('/edit/') && url.pathname !== '/edit/demo', { timeout: 60_000 });
  copyId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
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
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const c = await gizmoCentre(page);
  await page.mouse.move(c.x, c.y);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  await page.mouse.down();
  expect(await page.evaluate(() => (window as any).__editor.gizmo.dragging)).toBe(true);
  for (let i = 1; i <= 8; i++) {
    await page.mouse.move(c.x + i * 10, c.y - i * 4);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  }
  await page.mouse.up();
  await expect(page.getByTestId('history').locator('li.done')).toHaveCount(1);
  await expect(page.getByTestId('history')).toContainText(`Move ${name}`);
  await expect(page.getByTestId('save-status')).toHaveText(/Unsaved changes \(1 edit\)/);
  await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
  const moved = await worldPositionOf(page, name);
  expect(Math.hypot(moved[0] - before[0], moved[1] - before[1], moved[2] - before[2])).toBeGreaterThan(0.01);
  await page.screenshot({ path: test.info().outputPath('editor-after-drag.png') });

  // Ctrl+S with the view focused saves.
  await canvas.focus();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-status')).toHaveText(/All changes saved/, { timeout: 30_000 });

  // The viewer page shows the node where it was dropped.
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  const seen = await worldPositionOf(page, name);
  for (let k = 0; k < 3; k++) expect(seen[k]).toBeCloseTo(moved[k], 3);
  // The original demo is untouched.
  await page.goto('/embed/demo');
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  const original = await worldPositionOf(page, name);
  for (let k = 0; k < 3; k++) expect(original[k]).toBeCloseTo(before[k], 3);
});

test('material edits within 500 ms merge into one step; undo and redo go across it; Ctrl+C says Not implemented', async ({ page }) => {
  test.skip(!copyId, 'needs the copy of the first test');
  await signIn(page, 'Ada', 'Lovelace', `/edit/${copyId}`);
  await editorReady(page);
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
});

test('lights, cameras and groups: added from the toolbar, edited, parented, removed, undone, saved, and seen in the viewer', async ({ page }) => {
  test.skip(!copyId, 'needs the copy of the first test');
  await signIn(page, 'Ada', 'Lovelace', `/edit/${copyId}`);
  await editorReady(page);
  const steps = () => page.getByTestId('history').locator('li.done').count();
  const start = await steps();

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
  // Its helper is drawn in the editor.
  expect(await page.evaluate(() => { let n = 0; (window as any).__viewer.viewer.context.scene.traverse((o: any) => { if (o.userData.helperOf) n++; }); return n; })).toBe(1);

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
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  const seen = await page.evaluate(() => {
    const scene = (window as any).__viewer.viewer.context.scene;
    const light = scene.getObjectByName('Key light');
    let helpers = 0;
    scene.traverse((o: any) => { if (o.userData.helperOf) helpers++; });
    return { type: light?.type, intensity: light?.intensity, helpers };
  });
  expect(seen).toEqual({ type: 'SpotLight', intensity: 40, helpers: 0 });
});

test('scene settings: background, fog, exposure and the initial camera changed, undone, saved and seen in the viewer', async ({ page }) => {
  test.skip(!copyId, 'needs the copy of the first test');
  await signIn(page, 'Ada', 'Lovelace', `/edit/${copyId}`);
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
  // The lights saved before are still there: the settings save does not touch them.
  expect(scene.viewerConfig.objects.length).toBe(3);
  await page.goto(`/embed/${encodeURIComponent(copyId)}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  expect(await page.evaluate(() => !!(window as any).__viewer.viewer.context.scene.fog)).toBe(true);
});

test('a new material for one node: created and assigned as one step, undone and redone, saved and seen in the viewer', async ({ page }) => {
  test.skip(!copyId, 'needs the copy of the first test');
  await signIn(page, 'Ada', 'Lovelace', `/edit/${copyId}`);
  await editorReady(page);
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
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
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

test('a second signed-in person may view the copy but not change it (403)', async ({ page, request }) => {
  test.skip(!copyId, 'needs the copy of the first test');
  await signIn(page, 'Grace', 'Hopper', `/edit/${copyId}`);
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
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
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
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
  await page.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 120_000 });
  const seen = await page.evaluate(() => {
    let out: any = null;
    (window as any).__viewer.viewer.context.scene.traverse((o: any) => {
      if (!out && o.isMesh && o.material?.map) out = { wrapS: o.material.map.wrapS, magFilter: o.material.map.magFilter, u: o.material.map.repeat.x, rotation: Math.round((o.material.map.rotation * 180) / Math.PI) };
    });
    return out;
  });
  expect(seen).toEqual({ wrapS: 1002, magFilter: 1003, u: 2, rotation: 90 });
});
