import { expect, test, type Page } from '@playwright/test';
import { join } from 'node:path';
import { BOX, BOX_NAME, writeToolsBox } from './fixtures-tools';
import { canvasPixels, importIntoScene, ROOT, toClient } from './helpers';
import { PEOPLE, avatarOf, expectGlide, moveCamera, openAs, type Person, type Vec } from './meeting-helpers';

/**
 * Shared tools (issue 14, item 7) with three people in one meeting, each in a browser context of
 * their own, on the tools' 2 x 3 x 1 m box: each sees the others' avatars move; Ada's section plane
 * cuts Alan's and Grace's views (the section state through the page's handle and the picture),
 * follows when she moves it and goes when she deletes it; Alan measures a length with the tool and
 * Ada and Grace see it with its label; Grace reloads and gets the measurement back from the others;
 * her deleting it removes it for everyone. The editor's shared selection is covered by unit tests
 * (tests/unit/meeting/shared-selection.test.ts, tests/unit/ui/editor/meeting-selection.test.ts):
 * three signed-in editor pages are more than this machine's software GPU carries in one test.
 */

const SCENE = 'meeting-tools-box';
const QUERY = '?quality=low&uiWatermark=false';
const X = BOX.width / 2;
const Z = BOX.depth / 2;
const inset = 0.08;
/** Near the bottom corners of the box's front face (the length tool snaps onto the corners). */
const BOTTOM_LEFT: Vec = [-X + inset, inset, Z];
const BOTTOM_RIGHT: Vec = [X - inset, inset, Z];
/** Where everyone looks from for the picture checks: the box's front, a little from above. */
const VIEW: [Vec, Vec] = [
  [0, 2.2, 7],
  [0, 1.4, 0],
];

type Plane = { normal: number[]; constant: number };

/** The section state of a page through its handle: the planes, the renderer's clipping planes, the selected plane. */
function sectionState(page: Page): Promise<{ planes: Plane[]; clipping: number; selected: number }> {
  return page.evaluate(() => {
    const v = (window as any).__viewer.viewer;
    const r = (x: number) => Math.round(x * 1000) / 1000 + 0;
    return {
      planes: v.tools.sections.list().map((p: any) => ({ normal: [r(p.normal.x), r(p.normal.y), r(p.normal.z)], constant: r(p.constant) })),
      clipping: v.context.renderer.clippingPlanes.length,
      selected: v.tools.sections.selected,
    };
  });
}

function measurements(page: Page): Promise<{ kind: string; label: string }[]> {
  return page.evaluate(() => (window as any).__viewer.viewer.tools.measurements.list().map((m: any) => ({ kind: m.kind, label: m.label })));
}

/** The share of the view the box covers (its pixels differ from the background). */
async function boxShare(page: Page): Promise<number> {
  return (await canvasPixels(page)).nonBackground;
}

/** Waits for a few frames of the page (its view drawn after a change). */
async function settledView(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        let frames = 0;
        const tick = () => (++frames >= 3 ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
  );
}

test('three people share section planes and measurements', async ({ browser }) => {
  test.setTimeout(360_000);
  await importIntoScene(await writeToolsBox(join(ROOT, 'tests/.tmp/meeting-tools-box.glb')), SCENE);
  const people: Person[] = [];
  try {
    for (const [first, last] of PEOPLE) people.push(await openAs(browser, first, last, SCENE, QUERY));
    const [ada, alan, grace] = people;
    for (const person of people) {
      await expect(person.page.getByTestId('meeting-participant')).toHaveCount(3, { timeout: 30_000 });
      await expect(person.page.getByTestId('meeting-status')).toHaveText('Connected');
    }

    await test.step("each sees the others' avatars move", async () => {
      const places: Vec[] = [
        [4, 2.5, 5],
        [-5, 1.5, 3],
        [1, 4, -6],
      ];
      for (let i = 0; i < 3; i++) {
        const mover = people[i];
        const name = `${PEOPLE[i][0]} ${PEOPLE[i][1]}`;
        const others = people.filter((_, j) => j !== i);
        const before = await Promise.all(others.map((o) => avatarOf(o.page, name)));
        await moveCamera(mover.page, places[i], [0, 1.5, 0]);
        for (let k = 0; k < others.length; k++) await expectGlide(others[k].page, name, places[i], before[k]?.position ?? null);
      }
    });

    // Everyone looks at the box's front from the same place: the avatars glide there, and around
    // one's own camera they are not drawn, so the pictures show the box alone.
    for (const person of people) await moveCamera(person.page, ...VIEW);
    for (const [i, person] of people.entries()) {
      for (const [j, [first, last]] of PEOPLE.entries()) {
        if (i === j) continue;
        await expect.poll(async () => (await avatarOf(person.page, `${first} ${last}`))?.visible, { timeout: 60_000 }).toBe(false);
      }
    }
    await Promise.all(people.map((p) => settledView(p.page)));
    const whole = await Promise.all([alan, grace].map((p) => boxShare(p.page)));
    for (const share of whole) expect(share).toBeGreaterThan(0.05);

    await test.step("Ada's section plane cuts Alan's and Grace's views, follows her moves and goes when she deletes it", async () => {
      // Ada cuts the box at 1.2 m, keeping what is below.
      await ada.page.evaluate(() => {
        const v = (window as any).__viewer.viewer;
        const P = v.navigation.camera.position.constructor;
        v.tools.activate('section-tool');
        v.tools.sections.create(new P(0, 1.2, 0), new P(0, -1, 0));
        v.tools.sections.confirm();
      });
      const cut = { normal: [0, -1, 0], constant: 1.2 };
      for (const person of [alan, grace]) {
        await expect.poll(() => sectionState(person.page), { timeout: 20_000 }).toEqual({ planes: [cut], clipping: 1, selected: 0 });
      }
      // The picture: the top of the box is gone (cut at 1.2 of 3 m; the cap adds its top face).
      for (const [k, person] of [alan, grace].entries()) {
        await expect.poll(() => boxShare(person.page), { timeout: 20_000 }).toBeLessThan(whole[k] * 0.75);
      }
      await grace.page.screenshot({ path: test.info().outputPath('grace-sees-adas-cut.png') });

      // Ada moves it up to 2.4 m (the gizmo's way: the plane's pose changes).
      await ada.page.evaluate(() => {
        const v = (window as any).__viewer.viewer;
        const sections = v.tools.sections;
        const [plane] = sections.list();
        const P = v.navigation.camera.position.constructor;
        const position = new P();
        const rotation = v.navigation.camera.quaternion.clone();
        sections.pose(plane.id, position, rotation);
        position.y = 2.4;
        sections.setPose(plane.id, position, rotation);
      });
      const moved = { normal: [0, -1, 0], constant: 2.4 };
      for (const person of [alan, grace]) await expect.poll(() => sectionState(person.page), { timeout: 20_000 }).toEqual({ planes: [moved], clipping: 1, selected: 0 });
      const lower = await Promise.all([alan, grace].map((p) => boxShare(p.page)));
      for (const [k, person] of [alan, grace].entries()) {
        // More of the box shows than with the cut at 1.2, less than without a cut.
        await expect.poll(() => boxShare(person.page), { timeout: 20_000 }).toBeGreaterThan(whole[k] * 0.75);
        expect(lower[k]).toBeLessThan(whole[k]);
      }

      // Ada deletes it: gone for everyone, the whole box again.
      await ada.page.evaluate(() => {
        const sections = (window as any).__viewer.viewer.tools.sections;
        for (const p of sections.list()) sections.remove(p.id);
        (window as any).__viewer.viewer.tools.deactivate();
      });
      for (const [k, person] of [alan, grace].entries()) {
        await expect.poll(() => sectionState(person.page), { timeout: 20_000 }).toEqual({ planes: [], clipping: 0, selected: 0 });
        await expect.poll(() => boxShare(person.page), { timeout: 20_000 }).toBeGreaterThan(whole[k] * 0.95);
      }
    });

    await test.step('Alan measures a length; Ada and Grace see it with its label', async () => {
      await alan.page.waitForFunction((name) => {
        const viewer = (window as any).__viewer.viewer;
        const box = viewer.world.objects.find((o: any) => o?.isMesh && o.name === name);
        return !!box && !!viewer.picker.treeOf(box);
      }, BOX_NAME);
      await alan.page.getByTestId('tool-length').click();
      for (const corner of [BOTTOM_LEFT, BOTTOM_RIGHT]) {
        const at = await toClient(alan.page, corner);
        await alan.page.mouse.click(at.x, at.y);
      }
      await expect(alan.page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toBeVisible();
      await alan.page.keyboard.press('Escape');
      for (const person of [ada, grace]) {
        await expect.poll(() => measurements(person.page), { timeout: 20_000 }).toEqual([{ kind: 'length', label: '2.00 m' }]);
        await expect(person.page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toBeVisible();
      }
      await ada.page.screenshot({ path: test.info().outputPath('ada-sees-alans-length.png') });
    });

    await test.step('Grace reloads: she gets the measurement back from the others; her deleting it removes it for everyone', async () => {
      await grace.page.reload();
      await expect(grace.page.getByTestId('meeting-participant')).toHaveCount(3, { timeout: 60_000 });
      await expect.poll(() => measurements(grace.page), { timeout: 30_000 }).toEqual([{ kind: 'length', label: '2.00 m' }]);
      await expect(grace.page.getByTestId('measure-label').filter({ hasText: '2.00 m' })).toBeVisible();
      await grace.page.evaluate(() => {
        const m = (window as any).__viewer.viewer.tools.measurements;
        for (const x of m.list()) m.remove(x.id);
      });
      for (const person of [ada, alan]) {
        await expect.poll(() => measurements(person.page), { timeout: 20_000 }).toEqual([]);
        await expect(person.page.getByTestId('measure-label')).toHaveCount(0);
      }
    });
  } finally {
    for (const person of people) await person.context.close().catch(() => undefined);
  }
});
