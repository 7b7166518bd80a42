import { expect, test } from '@playwright/test';
import { POINT_LIGHT_SHADOW_COST } from '../../src/protocol/constants';
import { canvasPixels, recordMessages, settled } from './helpers';

/**
 * The generated warehouse (src/server/demo-warehouse.ts), seeded into the fresh DATA_DIR by the
 * server itself: one model (the building, its lights, the animated forklift) and one instanced
 * asset group per repeated asset (rack bay, pallet, box, drum, lamp: about 11,900 instances from
 * the asset CDN), drawn in a handful of instanced draws; a click on a pallet picks that instance.
 */
const GROUPS = ['warehouse-rack', 'warehouse-pallet', 'warehouse-box', 'warehouse-drum', 'warehouse-lamp'];
/** A pallet on the first beam level of row 1, bay 6 (layout order row, bay, level, pallet). */
const PALLET_ID = ((1 * 14 + 6) * 4 + 1) * 2;

test.describe('warehouse demo', () => {
  test('reaches ready, draws its groups in a handful of draw calls, plays the forklift, and a click picks a pallet', async ({ page }) => {
    // About 50 s alone on SwiftShader; twice in CI, beside the three-person video call of
    // meetings-sfu.spec.ts on the same two cores, it ran past 2 min (its last screenshot, below,
    // waiting for frames). Slower, not stuck.
    test.setTimeout(300_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await recordMessages(page);

    const started = Date.now();
    await page.goto('/embed/warehouse?autoPlay=true');
    expect(await settled(page)).toBe('ready');
    const loadMs = Date.now() - started;

    const summary = await page.evaluate(() => (window as any).__viewer.summary());
    expect(summary).toHaveLength(1);
    expect(summary[0].name).toBe('demo-warehouse-building.glb');
    expect(summary[0].animations.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['Forklift patrol', 'Fork lift']));

    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    const facts = await page.evaluate((pointLightPasses) => {
      const viewer = (window as any).__viewer.viewer;
      const groups = [...viewer.world.instanceGroups.values()] as any[];
      let objects = 0;
      let modelMeshes = 0;
      // The shadow passes a frame that draws the maps makes: one per directional or spot light,
      // one per face of a point light's cube.
      let shadowPasses = 0;
      viewer.context.scene.traverse((o: any) => {
        objects++;
        if (o.isMesh && !o.isInstancedMesh) modelMeshes++;
        if (o.isLight && o.castShadow && o.visible && o.shadow) shadowPasses += o.isPointLight ? pointLightPasses : 1;
      });
      return {
        groups: Object.fromEntries(groups.map((g) => [g.uuid, { live: g.live, meshes: g.meshes.length, placeholder: g.asset.placeholder }])) as Record<string, { live: number; meshes: number; placeholder: boolean }>,
        objects,
        modelMeshes,
        shadowPasses,
        drawCalls: viewer.world.stats.drawCalls,
        renderedFrames: (window as any).__viewer.stats.renderedFrames,
      };
    }, POINT_LIGHT_SHADOW_COST);
    expect(Object.keys(facts.groups).sort()).toEqual([...GROUPS].sort());
    expect(facts.groups['warehouse-pallet']).toEqual({ live: 896, meshes: 1, placeholder: false });
    expect(facts.groups['warehouse-box']).toEqual({ live: 10_752, meshes: 1, placeholder: false });
    // The rack bay has two parts (blue uprights, orange beams).
    expect(facts.groups['warehouse-rack']).toEqual({ live: 112, meshes: 2, placeholder: false });
    const live = Object.values(facts.groups).reduce((n, g) => n + g.live, 0);
    expect(live).toBeGreaterThanOrEqual(10_000);
    // Never an Object3D per instance.
    expect(facts.objects).toBeLessThan(200);
    // One draw per asset part and material plus the model's meshes, and as many again for each
    // shadow pass the frame makes: the frame measured here may be the one that draws the maps after
    // the first picture (on the low tier the sun, the daylight and the forklift's headlight).
    const groupMeshes = Object.values(facts.groups).reduce((n, g) => n + g.meshes, 0);
    expect(groupMeshes).toBe(6);
    expect(facts.renderedFrames).toBeGreaterThan(0);
    expect(facts.drawCalls).toBeGreaterThan(0);
    expect(facts.shadowPasses).toBeGreaterThan(0);
    expect(facts.drawCalls).toBeLessThanOrEqual((groupMeshes + facts.modelMeshes) * (1 + facts.shadowPasses) + 4);

    const pixels = await canvasPixels(page);
    expect(pixels.nonBackground, 'the warehouse covers the canvas').toBeGreaterThan(0.1);
    expect(pixels.colours).toBeGreaterThan(8);
    const canvas = page.getByTestId('viewer-canvas');
    await canvas.screenshot({ path: test.info().outputPath('warehouse.png') });

    // Play both animations from their rows: the forklift drives down its aisle, the fork lift's clock runs.
    const forklift = () =>
      page.evaluate(() => {
        const record = (window as any).__viewer.viewer.world.models.values().next().value;
        // The node each animation moves (its tracks name it).
        const target = (clip: string) => {
          const entry = record.animations.find((a: any) => a.name === clip);
          const track = entry.clip.tracks.find((t: any) => t.name.endsWith('.position'));
          return record.root.getObjectByName(track.name.slice(0, -'.position'.length));
        };
        const forkTime = record.animations.find((a: any) => a.name === 'Fork lift').action?.time ?? 0;
        return [target('Forklift patrol').position.x, forkTime] as [number, number];
      });
    const [x0, y0] = await forklift();
    for (const name of ['Forklift patrol', 'Fork lift']) {
      const row = page.getByTestId('animation-row').filter({ hasText: name });
      await row.getByTestId('animation-play').click();
      await expect(row).toHaveAttribute('data-status', 'playing');
    }
    await expect.poll(async () => (await forklift())[0]).toBeGreaterThan(x0 + 0.5);
    await expect.poll(async () => (await forklift())[1]).toBeGreaterThan(y0);
    // Stop them again: SwiftShader draws every frame while they play, too slow for the clicks below.
    for (const stop of await page.getByTestId('animation-stop').all()) await stop.click();

    // Stand in the aisle in front of one pallet and click it: the hit is that instance of the pallets group.
    await page.evaluate(() => {
      const w = window as any;
      w.__hits = [];
      w.__viewer.viewer.events.on('hit', (h: unknown) => w.__hits.push(h));
    });
    const target = await page.evaluate(
      async ({ id }) => {
        const viewer = (window as any).__viewer.viewer;
        const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === 'warehouse-pallet') as any;
        const b = new Float32Array(6);
        g.bvh.instanceBox(g.attribute.array, g.index.get(id), b);
        const c = viewer.navigation.camera.position.clone().set((b[0] + b[3]) / 2, (b[1] + b[4]) / 2, (b[2] + b[5]) / 2).applyMatrix4(g.object.matrixWorld);
        await viewer.navigation.controls.setLookAt(c.x, c.y, c.z + 2.2, c.x, c.y, c.z, false);
        await viewer.nextFrame();
        const p = c.clone().project(viewer.navigation.camera);
        const rect = viewer.context.renderer.domElement.getBoundingClientRect();
        return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
      },
      { id: PALLET_ID },
    );
    await page.mouse.click(target.x, target.y);
    await expect.poll(() => page.evaluate(() => (window as any).__hits.length)).toBeGreaterThan(0);
    const hit = await page.evaluate(() => {
      const h = (window as any).__hits.at(-1);
      return { groupId: h.groupId, instanceId: h.instanceId };
    });
    expect(hit).toEqual({ groupId: 'warehouse-pallet', instanceId: PALLET_ID });
    // Element screenshots wait for two animation frames with the canvas in place; twice in CI, with
    // the three-person Janus call on the same two cores, the close-up's frames did not come within
    // the 30 s action limit (what held them there is not known).
    await canvas.screenshot({ path: test.info().outputPath('warehouse-pallet.png'), timeout: 150_000 });

    expect(errors).toEqual([]);
    test.info().annotations.push({ type: 'load time', description: `${loadMs} ms to ready (SwiftShader)` });
  });
});
