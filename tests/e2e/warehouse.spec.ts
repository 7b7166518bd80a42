import { expect, test } from '@playwright/test';
import { canvasPixels, recordMessages, settled } from './helpers';

/**
 * The generated warehouse (src/server/demo-warehouse.ts), seeded into the fresh DATA_DIR by the
 * server itself: about 11,900 instances of five assets drawn as a handful of instanced meshes,
 * KHR_lights_punctual lights and the animated forklift.
 */
test.describe('warehouse demo', () => {
  test('reaches ready, draws its instances in a handful of draw calls, and plays the forklift', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await recordMessages(page);

    const started = Date.now();
    await page.goto('/embed/warehouse?autoPlay=true');
    expect(await settled(page)).toBe('ready');
    const loadMs = Date.now() - started;

    const summary = await page.evaluate(() => (window as any).__viewer.summary());
    expect(summary).toHaveLength(1);
    expect(summary[0].name).toBe('demo-warehouse.glb');
    // Instanced assets count once each: floor, markings, walls, racks (2 primitives), pallets,
    // boxes, drums, lamps, and the forklift's parts.
    expect(summary[0].meshes).toBeLessThan(40);
    expect(summary[0].animations.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['Forklift patrol', 'Fork lift']));

    const instances = await page.evaluate(() => {
      let count = 0;
      let instancedMeshes = 0;
      (window as any).__viewer.viewer.context.scene.traverse((o: any) => {
        if (o.isInstancedMesh) {
          instancedMeshes++;
          count += o.count;
        }
      });
      return { count, instancedMeshes };
    });
    // three.js makes one InstancedMesh per primitive of an instanced node (the rack has two).
    expect(instances.instancedMeshes).toBeLessThanOrEqual(8);
    expect(instances.count).toBeGreaterThanOrEqual(10_000);

    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    const stats = await page.evaluate(() => (window as any).__viewer.stats);
    expect(stats.renderedFrames).toBeGreaterThan(0);
    expect(stats.drawCalls).toBeLessThan(120);

    const pixels = await canvasPixels(page);
    expect(pixels.nonBackground, 'the warehouse covers the canvas').toBeGreaterThan(0.1);
    expect(pixels.colours).toBeGreaterThan(8);
    expect(errors).toEqual([]);
    await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath('warehouse.png') });
    test.info().annotations.push({ type: 'load time', description: `${loadMs} ms to ready (SwiftShader)` });
  });
});
