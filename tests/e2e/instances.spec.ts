import { expect, test } from '@playwright/test';
import { createInstancesScene } from '../../src/server/demo-instances-scene';
import { loadServerConfig } from '../../src/server/config';
import { createInstanceService } from '../../src/server/instances';
import { canvasPixels, canvasScreenshot, settled, shadowsShown, store, underLock } from './helpers';
import { decodePng } from './png';

/**
 * Instanced asset groups in the viewer (issue 15): a generated city of 3,000 instances of the six
 * demo assets (through the same path as `npm run demo -- instances N`: assets on the asset CDN,
 * binary instance sets on the model service), drawn in one draw per asset part and material; a
 * click picks the instance under it by its stable id; a group whose asset does not exist shows the
 * red placeholder cube at each instance and a notice naming the asset.
 */

const CITY = 'e2e-instances';
const MISSING = 'e2e-instances-missing';

async function prepare(): Promise<void> {
  const s = await store();
  const config = loadServerConfig({ ...process.env, DATA_DIR: process.env.E2E_DATA_DIR });
  const instances = createInstanceService(s);
  await underLock('scene-e2e-instances', async () => {
    if (!(await s.getScene(CITY))) await createInstancesScene({ config, store: s, instances }, 3000, { sceneId: CITY });
    if (!(await s.getScene(MISSING))) {
      await s.createScene({
        _id: MISSING,
        name: 'Missing asset',
        viewerConfig: {
          objects: [
            { uuid: 'ghosts', type: 'InstancedAssetGroup', name: 'Ghosts', parent: null, position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1], visible: true, castShadow: true, assetId: 'no-such-asset', instanceCount: 3 },
          ],
        },
      });
      const m = (x: number) => [1, 0, 0, 0, 1, 0, 0, 0, 1, x, 0.5, 0];
      await instances.replace(MISSING, 'ghosts', { ids: new Uint32Array([0, 1, 2]), matrices: new Float32Array([...m(-2), ...m(0), ...m(2)]), nextId: 3 });
    }
  });
}

test.describe('instanced asset groups', () => {
  test.beforeAll(prepare);

  test('draws a city of groups in one draw per asset part, and a click picks the instance under it', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    // Who called fetch for each asset: index.html's inline script (its frames are the page's own
    // URL) or the app's code (a frame in /assets/). The app may handle the scene document before
    // index.html's copy of it and then waits for the early download (earlyOrFetch), so time order
    // alone does not tell them apart on a busy machine.
    await page.addInitScript(() => {
      const w = window as any;
      const callers: { url: string; page: boolean }[] = (w.__assetCallers = []);
      const native = window.fetch.bind(window);
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (/\/model\.3dxa$/.test(url)) {
          const frames = (new Error().stack ?? '').split('\n').slice(2);
          callers.push({ url, page: frames.length > 0 && frames.every((f) => !/\/assets\/[^/]+\.js/.test(f)) && frames.some((f) => f.includes(location.pathname)) });
        }
        return native(input, init);
      };
    });
    await page.goto(`/embed/${CITY}?quality=low`);
    expect(await settled(page)).toBe('ready');
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    // index.html started every asset and every instance set, and the app took each of them; the
    // sets were downloaded by the loader worker (the page's own timeline has none of them), once
    // per group.
    const sets = requests.filter((p) => /\/v1\/scenes\/[^/]+\/groups\/[^/]+\/instances$/.test(p));
    const assets = requests.filter((p) => p.endsWith('/model.3dxa'));
    expect(sets.length).toBe(6);
    expect(new Set(sets).size).toBe(6);
    expect(assets.length).toBe(6);
    expect(new Set(assets).size).toBe(6);
    expect(await page.evaluate(() => Object.keys((window as any).__earlyFetches ?? { missing: true }))).toEqual([]);
    // The sets were asked for by index.html, in the loader worker it started; the app adopted the
    // worker and took each of them (the counts above: no second download).
    expect(await page.evaluate(() => {
      const loader = (window as any).__earlyLoader;
      return loader ? { adopted: loader.adopted === true, failed: loader.failed, left: Object.keys(loader.ids), kept: Object.keys(loader.replies) } : null;
    })).toEqual({ adopted: true, failed: false, left: [], kept: [] });
    const callers = await page.evaluate(() => (window as any).__assetCallers as { url: string; page: boolean }[]);
    expect(callers).toHaveLength(6);
    expect(callers.filter((c) => !c.page)).toEqual([]);
    const resources = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    expect(resources.filter((name) => /\/model\.3dxa$/.test(name))).toHaveLength(6);
    expect(resources.filter((name) => /\/instances$/.test(name))).toHaveLength(0);

    const facts = await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      const groups = [...viewer.world.instanceGroups.values()];
      let meshes = 0;
      let objects = 0;
      viewer.context.scene.traverse(() => objects++);
      for (const g of groups) meshes += g.meshes.length;
      return { groups: groups.length, live: groups.reduce((n: number, g: any) => n + g.live, 0), meshes, objects, drawCalls: viewer.world.stats.drawCalls, placeholders: groups.filter((g: any) => g.asset.placeholder).length };
    });
    expect(facts.groups).toBe(6);
    expect(facts.live).toBe(3000);
    expect(facts.placeholders).toBe(0);
    // Never an Object3D per instance: the whole scene has far fewer objects than instances.
    expect(facts.objects).toBeLessThan(200);
    // One draw per part and material, the shadow pass at most doubling it (plus the scene's own props).
    expect(facts.drawCalls).toBeGreaterThan(0);
    expect(facts.drawCalls).toBeLessThanOrEqual(facts.meshes * 2 + 4);
    // A scene of groups alone has something to show: no "no models" notice (it is added before 'ready').
    await expect(page.getByText(/no models to show/)).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('instances-city-page.png') });

    // Click the middle of the canvas: the hit names an instance whose box holds the hit point.
    await page.evaluate(() => {
      const w = window as any;
      w.__hits = [];
      w.__viewer.viewer.events.on('hit', (h: unknown) => w.__hits.push(h));
    });
    const canvas = page.getByTestId('viewer-canvas');
    const box = (await canvas.boundingBox())!;
    // A point of the view with an instance under it (the centre may be a street): the picker's answer before the click.
    const target = await page.evaluate(() => {
      const viewer = (window as any).__viewer.viewer;
      for (let j = 0; j <= 20; j++) {
        for (let i = 0; i <= 20; i++) {
          const x = (i - 10) / 12;
          const y = (j - 10) / 12;
          const hit = viewer.picker.pick(x, y);
          if (hit && hit.groupId) return { x, y, id: hit.instanceId, group: hit.groupId };
        }
      }
      return null;
    });
    expect(target, 'an instance is in view').not.toBeNull();
    await page.mouse.click(box.x + ((target!.x + 1) / 2) * box.width, box.y + ((1 - target!.y) / 2) * box.height);
    await expect.poll(() => page.evaluate(() => (window as any).__hits.length)).toBeGreaterThan(0);
    const checked = await page.evaluate(({ x, y }) => {
      const w = window as any;
      const viewer = w.__viewer.viewer;
      const event = w.__hits[w.__hits.length - 1];
      const hit = viewer.picker.pick(x, y);
      const group = [...viewer.world.instanceGroups.values()].find((g: any) => g.uuid === hit.groupId) as any;
      const b = new Float32Array(6);
      group.bvh.instanceBox(group.attribute.array, group.index.get(hit.instanceId), b);
      const p = hit.point;
      const inside = p.x >= b[0] - 1e-3 && p.y >= b[1] - 1e-3 && p.z >= b[2] - 1e-3 && p.x <= b[3] + 1e-3 && p.y <= b[4] + 1e-3 && p.z <= b[5] + 1e-3;
      return { eventInstance: event.instanceId, inside };
    }, { x: target!.x, y: target!.y });
    expect(checked.eventInstance).toBe(target!.id);
    expect(checked.inside).toBe(true);
    expect(errors).toEqual([]);
    await canvas.screenshot({ path: test.info().outputPath('instances-city.png') });
  });

  test('the groups\' programs are linked before their first frame (instancing, shadows, the tier\'s target)', async ({ page }) => {
    // three.js links a program when a draw first needs it, inside the frame. Per animation frame:
    // the programs linked and the instanced draws made; a frame with both drew a group with a
    // program the precompile missed (another variant of defines: instancing, shadows, target).
    await page.addInitScript(() => {
      const w = window as any;
      w.__frames = { linksOutside: 0, instancedFrames: 0, missed: 0 };
      let frame: { links: number; instanced: number } | null = null;
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback: FrameRequestCallback) =>
        raf((time) => {
          const outer = frame;
          frame = { links: 0, instanced: 0 };
          try {
            callback(time);
          } finally {
            if (frame.instanced > 0) w.__frames.instancedFrames++;
            if (frame.instanced > 0 && frame.links > 0) w.__frames.missed += frame.links;
            frame = outer;
          }
        });
      const proto = WebGL2RenderingContext.prototype as any;
      const link = proto.linkProgram;
      proto.linkProgram = function (this: WebGL2RenderingContext, program: WebGLProgram) {
        if (frame) frame.links++;
        else w.__frames.linksOutside++;
        return link.call(this, program);
      };
      for (const name of ['drawElementsInstanced', 'drawArraysInstanced']) {
        const draw = proto[name];
        proto[name] = function (this: WebGL2RenderingContext, ...args: unknown[]) {
          if (frame) frame.instanced++;
          return draw.apply(this, args);
        };
      }
    });
    await page.goto(`/embed/${CITY}?quality=low`);
    expect(await settled(page)).toBe('ready');
    // The shadow maps (the depth programs' first use) are drawn after the first picture.
    await shadowsShown(page);
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    const facts = await page.evaluate(() => {
      const w = window as any;
      const viewer = w.__viewer.viewer;
      const casts = [...viewer.world.instanceGroups.values()].some((g: any) => g.meshes.some((m: any) => m.castShadow));
      return { ...w.__frames, shadows: viewer.context.renderer.shadowMap.enabled && viewer.context.sun.castShadow && casts };
    });
    // The groups were drawn, with the sun's shadows on the low tier (so the depth programs count too).
    expect(facts.instancedFrames).toBeGreaterThan(0);
    expect(facts.shadows).toBe(true);
    expect(facts.linksOutside, 'programs linked outside frames (the precompile)').toBeGreaterThan(0);
    expect(facts.missed, 'programs linked in a frame that drew the groups').toBe(0);
  });

  test('each pass draws only the instances in its frustum at their level of detail, and the picture at rest is the one drawn without culling and levels', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Reads back from the GPU (each waits for it to finish drawing): none in the frames after the
    // load (the quality probe reads one pixel before the first scene). Chromium's own compositor
    // still logs "GPU stall due to ReadPixels" without a GPU: a plain WebGL page gets the same.
    await page.addInitScript(() => {
      const w = window as any;
      w.__readbacks = { counting: false, calls: 0 };
      const proto = WebGL2RenderingContext.prototype as any;
      for (const name of ['readPixels', 'getBufferSubData']) {
        const f = proto[name];
        proto[name] = function (this: WebGL2RenderingContext, ...args: unknown[]) {
          if (w.__readbacks.counting) w.__readbacks.calls++;
          return f.apply(this, args);
        };
      }
    });
    await page.goto(`/embed/${CITY}?quality=low`);
    expect(await settled(page)).toBe('ready');
    await page.evaluate(() => ((window as any).__readbacks.counting = true));
    await shadowsShown(page);
    // At street level in the middle of the city, looking along a street: most of the city is behind
    // the camera or beside it.
    await page.evaluate(async () => {
      const viewer = (window as any).__viewer.viewer;
      const box = new (viewer.navigation.camera.position.constructor)();
      const groups = [...viewer.world.instanceGroups.values()] as any[];
      const min = box.clone().set(Infinity, Infinity, Infinity);
      const max = box.clone().set(-Infinity, -Infinity, -Infinity);
      for (const g of groups) {
        min.min(g.localBox.min);
        max.max(g.localBox.max);
      }
      const c = min.clone().add(max).multiplyScalar(0.5);
      await viewer.navigation.controls.setLookAt(c.x, 1.7, c.z, c.x + 1, 1.7, c.z + 0.3, false);
      await viewer.nextFrame();
    });
    /** One frame drawn anew (shadow maps included), with each group's counts over it. */
    const frame = (culling: boolean, levels: boolean) =>
      page.evaluate(
        async ([on, levelsOn]) => {
          const viewer = (window as any).__viewer.viewer;
          viewer.world.render.instanceCulling = on;
          viewer.world.render.instanceLevels = levelsOn;
          const groups = [...viewer.world.instanceGroups.values()] as any[];
          for (const g of groups) g.culling.stats = { passes: 0, culls: 0, drawn: 0, cullMs: 0, drawnByLevel: g.culling.stats.drawnByLevel.map(() => 0) };
          viewer.world.render.needsRender = true;
          await viewer.nextFrame();
          await viewer.nextFrame();
          const sums = groups.reduce(
            (sum: { passes: number; drawn: number; live: number; coarser: number }, g: any) => ({
              passes: sum.passes + g.culling.stats.passes,
              drawn: sum.drawn + g.culling.stats.drawn,
              live: sum.live + g.live * g.culling.stats.passes,
              coarser: sum.coarser + g.culling.stats.drawn - g.culling.stats.drawnByLevel[0],
            }),
            { passes: 0, drawn: 0, live: 0, coarser: 0 },
          );
          return { ...sums, triangles: viewer.world.stats.triangles as number };
        },
        [culling, levels],
      );
    const levelled = await frame(true, true);
    const levelledPicture = decodePng(await canvasScreenshot(page));
    const culled = await frame(true, false);
    const culledPicture = decodePng(await canvasScreenshot(page));
    const whole = await frame(false, false);
    const wholePicture = decodePng(await canvasScreenshot(page));
    // Every pass drew (the picture and the sun's shadow map at least), with culling a small share of
    // the instances; switched off, through instanceMatrix as plain InstancedMeshes (no list at all).
    expect(culled.passes).toBeGreaterThan(0);
    expect(culled.drawn, 'instances drawn over the passes with culling').toBeLessThan(culled.live * 0.5);
    expect(culled.drawn).toBeGreaterThan(0);
    expect(whole.passes).toBe(0);
    expect(culled.triangles, 'triangles of the frame, culled against plain').toBeLessThan(whole.triangles * 0.5);
    // The demo assets have impostors (too few triangles for simplified levels): the far instances
    // are cards, drawn with fewer triangles than culling alone draws.
    expect(levelled.coarser, 'instances drawn at a coarser level').toBeGreaterThan(0);
    expect(culled.coarser).toBe(0);
    expect(levelled.triangles, 'triangles with levels against culling alone').toBeLessThan(culled.triangles);
    // The same picture: no pixel differs by more than a little but for a few at edges; with the
    // levels, a few more where a card stands for a far instance.
    const share = (a: typeof culledPicture, b: typeof culledPicture) => {
      let differing = 0;
      for (let i = 0; i < a.data.length; i += 4) {
        const d = Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
        if (d > 24) differing++;
      }
      return differing / (a.width * a.height);
    };
    expect(share(culledPicture, wholePicture), 'share of pixels that differ with culling off').toBeLessThan(0.002);
    const levelsShare = share(levelledPicture, wholePicture);
    console.log(`[instances] street view: ${(levelsShare * 100).toFixed(3)}% of pixels differ with levels on; triangles ${levelled.triangles} (levels), ${culled.triangles} (culled), ${whole.triangles} (plain)`);
    expect(levelsShare, 'share of pixels that differ with culling and levels off').toBeLessThan(0.005);
    // The triangle budget (src/engine/triangle-budget.ts): at rest this view costs less than the low
    // tier's budget, so it was drawn at bias 1 (the pictures above). Most of its cost is the sun's
    // shadow map, whose casters (these assets have cards but no simplified meshes) cannot give way.
    // Given a budget of the shadows and half the picture, the frames that follow raise the bias
    // until the frame fits, its shadow maps counted with it.
    const budgeted = await page.evaluate(async () => {
      const viewer = (window as any).__viewer.viewer;
      viewer.world.render.instanceCulling = true;
      viewer.world.render.instanceLevels = true;
      const state = viewer.world.render.budget;
      const tierBudget = state.budget;
      await viewer.nextFrame();
      const before = { picture: state.pictureTriangles, shadow: state.shadowTriangles, bias: state.bias };
      const budget = Math.round(before.shadow + before.picture / 2);
      state.budget = budget;
      const biases: number[] = [];
      for (let i = 0; i < 8; i++) {
        await viewer.nextFrame();
        biases.push(state.drawnBias);
        if (state.bias === state.drawnBias) break;
      }
      const result = { before, budget, biases, cost: state.cost, shadow: state.shadowTriangles, over: state.over, tierBudget };
      state.budget = tierBudget;
      return result;
    });
    console.log(`[instances] street view: ${budgeted.before.picture} triangles of picture, ${budgeted.before.shadow} of shadow map; under a budget of ${budgeted.budget}: biases ${budgeted.biases.join(', ')}, frame ${budgeted.cost}`);
    expect(budgeted.tierBudget, 'the low tier has a budget above this view').toBeGreaterThan(levelled.triangles);
    expect(budgeted.before.bias).toBe(1);
    expect(budgeted.before.shadow, 'shadow-map triangles counted').toBeGreaterThan(0);
    expect(budgeted.biases[0]).toBe(1);
    expect(budgeted.biases.length, 'frames until it fits').toBeLessThanOrEqual(6);
    expect(budgeted.biases.at(-1)!, 'the bias the frame fits at').toBeGreaterThan(1);
    expect(budgeted.cost, 'the frame under its budget').toBeLessThanOrEqual(budgeted.budget);
    expect(budgeted.over).toBe(false);
    expect(await page.evaluate(() => (window as any).__readbacks.calls), 'GPU readbacks in the frames').toBe(0);
    const pixels = await canvasPixels(page);
    expect(pixels.nonBackground, 'the street view shows the city').toBeGreaterThan(0.1);
    await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath('instances-street.png') });
    // Far above the city, most instances are cards (pulled, src/engine/instance-impostor.ts): the
    // picture with levels covers as much and looks as the one at full detail, cell by cell.
    await page.evaluate(async () => {
      const viewer = (window as any).__viewer.viewer;
      const groups = [...viewer.world.instanceGroups.values()] as any[];
      const min = groups[0].localBox.min.clone();
      const max = groups[0].localBox.max.clone();
      for (const g of groups) {
        min.min(g.localBox.min);
        max.max(g.localBox.max);
      }
      const c = min.clone().add(max).multiplyScalar(0.5);
      const size = Math.max(max.x - min.x, max.z - min.z);
      await viewer.navigation.controls.setLookAt(c.x, size * 0.7, c.z + size * 0.7, c.x, 0, c.z, false);
      await viewer.nextFrame();
    });
    const far = await frame(true, true);
    const farCards = decodePng(await canvasScreenshot(page));
    const farCardsCover = (await canvasPixels(page)).nonBackground;
    await frame(true, false);
    const farFull = decodePng(await canvasScreenshot(page));
    const farFullCover = (await canvasPixels(page)).nonBackground;
    await page.getByTestId('viewer-canvas').screenshot({ path: test.info().outputPath('instances-far.png') });
    /** Mean difference of 16 x 16 pixel cells' average colours (0-255 a channel). */
    const cellDifference = (a: typeof farCards, b: typeof farCards) => {
      let sum = 0;
      let cells = 0;
      for (let y0 = 0; y0 + 16 <= a.height; y0 += 16) {
        for (let x0 = 0; x0 + 16 <= a.width; x0 += 16) {
          const mean = [0, 0, 0, 0, 0, 0];
          for (let y = y0; y < y0 + 16; y++) {
            for (let x = x0; x < x0 + 16; x++) {
              const i = (y * a.width + x) * 4;
              for (let k = 0; k < 3; k++) {
                mean[k]! += a.data[i + k]!;
                mean[k + 3]! += b.data[i + k]!;
              }
            }
          }
          sum += (Math.abs(mean[0]! - mean[3]!) + Math.abs(mean[1]! - mean[4]!) + Math.abs(mean[2]! - mean[5]!)) / (3 * 256);
          cells++;
        }
      }
      return sum / cells;
    };
    const farDifference = cellDifference(farCards, farFull);
    console.log(`[instances] far view: ${far.coarser} of ${far.drawn} instances drawn coarser; cover ${farCardsCover.toFixed(3)} (levels) / ${farFullCover.toFixed(3)} (full); cells differ by ${farDifference.toFixed(2)}`);
    expect(far.coarser / far.drawn, 'share of the instances drawn as cards or simplified').toBeGreaterThan(0.5);
    expect(farCardsCover / farFullCover, 'the cards cover the city as its meshes do').toBeGreaterThan(0.8);
    expect(farCardsCover / farFullCover).toBeLessThan(1.25);
    expect(farDifference, "cells' mean colour difference, cards against meshes").toBeLessThan(4);
    expect(errors).toEqual([]);
  });

  test('a group whose asset cannot be loaded shows red placeholder cubes and a notice naming the asset', async ({ page }) => {
    await page.goto(`/embed/${MISSING}?quality=low`);
    expect(await settled(page)).toBe('ready');
    await page.evaluate(() => (window as any).__viewer.viewer.nextFrame());
    const group = await page.evaluate(() => {
      const g = [...(window as any).__viewer.viewer.world.instanceGroups.values()][0] as any;
      return { placeholder: g.asset.placeholder, live: g.live };
    });
    expect(group).toEqual({ placeholder: true, live: 3 });
    await expect(page.getByText(/no-such-asset/)).toBeVisible();
    await expect(page.getByText(/no models to show/)).toHaveCount(0);
    const pixels = await canvasPixels(page);
    expect(pixels.nonBackground).toBeGreaterThan(0.01);
    const canvas = page.getByTestId('viewer-canvas');
    await canvas.screenshot({ path: test.info().outputPath('instances-missing.png') });
  });
});
