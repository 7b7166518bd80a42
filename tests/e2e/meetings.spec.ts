import { expect, test, type Page } from '@playwright/test';
import { store } from './helpers';
import { PEOPLE, avatarOf, expectGlide, moveCamera, near, openAs as openPerson, pose, type Vec } from './meeting-helpers';

/**
 * Three people in one meeting, each in a browser context of their own (their own sign-in), on a copy
 * of the demo scene: the participants panel, each sees the others' avatars move, follow mode
 * (camera, projection, section planes: the meeting's and the followed person's own), stopping it
 * with a tool, and leave notices. Shared section planes and measurements: meetings-shared-tools.spec.ts.
 */

const SCENE = 'meeting-e2e';
const openAs = (browser: Parameters<typeof openPerson>[0], first: string, last: string) => openPerson(browser, first, last, SCENE);

test.describe.configure({ mode: 'serial' });

test("a follower sees what the followed person sees: the meeting's planes once, the followed person's own ones copied; their own come back after", async ({ browser }) => {
  test.setTimeout(240_000);
  const s = await store();
  const demo = await s.getScene('demo');
  if (!demo) throw new Error('the demo scene is missing');
  if (!(await s.getScene(SCENE))) await s.putScene({ ...demo, _id: SCENE, name: 'Meeting test' });
  const [ada, grace] = [await openAs(browser, ...PEOPLE[0]), await openAs(browser, ...PEOPLE[2])];
  /** The planes a page has, rounded and sorted (order of creation differs between pages). */
  const planes = (page: Page) =>
    page.evaluate(() =>
      (window as any).__viewer.viewer.tools.sections
        .list()
        .map((p: any) => ({ normal: [p.normal.x, p.normal.y, p.normal.z].map((v: number) => Math.round(v * 1000) / 1000 + 0), constant: Math.round(p.constant * 1000) / 1000 + 0 }))
        .sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  const sorted = (list: { normal: number[]; constant: number }[]) => [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const cut = (page: Page, point: Vec, normal: Vec) =>
    page.evaluate(
      ([p, n]) => {
        const v = (window as any).__viewer.viewer;
        const P = v.navigation.camera.position.constructor;
        const id = v.tools.sections.create(new P(...p), new P(...n));
        if (v.tools.sections.placing) v.tools.sections.confirm();
        v.tools.deactivate();
        return id as number;
      },
      [point, normal] as const,
    );
  /** A plane of one's own: made while out of the meeting, then back in. */
  const ownPlane = async (page: Page, point: Vec, normal: Vec) => {
    await page.locator('.meeting-leave').click();
    await expect(page.getByTestId('meeting-join')).toBeVisible();
    await cut(page, point, normal);
    await page.getByTestId('meeting-join').click();
    await expect(page.getByTestId('meeting-participant')).toHaveCount(2, { timeout: 30_000 });
  };
  try {
    for (const person of [ada, grace]) await expect(person.page.getByTestId('meeting-participant')).toHaveCount(2, { timeout: 30_000 });
    const graceOwn = { normal: [1, 0, 0], constant: -0.2 };
    const adaOwn = { normal: [0, 0, 1], constant: 0.3 };
    await ownPlane(grace.page, [0.2, 0, 0], [1, 0, 0]);
    await ownPlane(ada.page, [0, 0, -0.3], [0, 0, 1]);
    // In the meeting Ada cuts the model horizontally at 0.6 m: the meeting's plane, both have it.
    const shared = { normal: [0, -1, 0], constant: 0.6 };
    await cut(ada.page, [0, 0.6, 0], [0, -1, 0]);
    await expect.poll(() => planes(grace.page), { timeout: 20_000 }).toEqual(sorted([graceOwn, shared]));
    expect(await planes(ada.page)).toEqual(sorted([adaOwn, shared]));

    // Grace follows Ada: she has exactly Ada's planes, the shared one once.
    await grace.page.locator('[data-testid="meeting-participant"]', { hasText: 'Ada Lovelace' }).getByTestId('meeting-follow').click();
    await expect(grace.page.getByTestId('meeting-following')).toContainText('Following Ada Lovelace');
    await expect.poll(() => planes(grace.page), { timeout: 20_000 }).toEqual(sorted([adaOwn, shared]));
    // Ada replaces the meeting's plane: Grace's follows, still once.
    const next = { normal: [0, -1, 0], constant: 0.4 };
    await ada.page.evaluate(() => {
      const sections = (window as any).__viewer.viewer.tools.sections;
      const plane = sections.list().find((p: any) => Math.abs(p.normal.y + 1) < 1e-3);
      sections.remove(plane.id);
    });
    await cut(ada.page, [0, 0.4, 0], [0, -1, 0]);
    await expect.poll(() => planes(grace.page), { timeout: 20_000 }).toEqual(sorted([adaOwn, next]));
    await grace.page.screenshot({ path: test.info().outputPath('follower-sees-section.png') });

    // Stopping: Grace's own plane comes back, Ada's own goes, the meeting's stays.
    await grace.page.getByTestId('meeting-stop-follow').click();
    await expect.poll(() => planes(grace.page), { timeout: 30_000 }).toEqual(sorted([graceOwn, next]));
    // Nothing of Grace's own reached Ada.
    expect(await planes(ada.page)).toEqual(sorted([adaOwn, next]));
  } finally {
    for (const person of [ada, grace]) await person.context.close().catch(() => undefined);
  }
});

test('three people meet: participants, avatars, follow mode (camera, projection), stopping it with a tool, leaving', async ({ browser }) => {
  test.setTimeout(240_000);
  const s = await store();
  const demo = await s.getScene('demo');
  if (!demo) throw new Error('the demo scene is missing');
  if (!(await s.getScene(SCENE))) await s.putScene({ ...demo, _id: SCENE, name: 'Meeting test' });

  const [ada, alan, grace] = [await openAs(browser, ...PEOPLE[0]), await openAs(browser, ...PEOPLE[1]), await openAs(browser, ...PEOPLE[2])];
  try {
    // ----- The participants panel: everyone, ' (you)' for oneself -----
    for (const [person, who] of [
      [ada, 'Ada Lovelace'],
      [alan, 'Alan Turing'],
      [grace, 'Grace Hopper'],
    ] as const) {
      const list = person.page.getByTestId('meeting-participant');
      await expect(list).toHaveCount(3, { timeout: 30_000 });
      await expect(person.page.getByTestId('meeting-status')).toHaveText('Connected');
      await expect(person.page.locator('[data-testid="meeting-participant"][data-self]')).toHaveText(new RegExp(`${who} \\(you\\)`));
    }
    await expect(ada.page.getByTestId('meeting-participants')).toContainText('Alan Turing');
    await expect(ada.page.getByTestId('meeting-participants')).toContainText('Grace Hopper');

    // ----- Avatars: Ada moves; Alan and Grace see her avatar glide to her camera -----
    const adaPosition: Vec = [4, 2.5, 5];
    const adaBefore = await Promise.all([alan, grace].map((v) => avatarOf(v.page, 'Ada Lovelace')));
    await moveCamera(ada.page, adaPosition, [0, 0.5, 0]);
    await expectGlide(alan.page, 'Ada Lovelace', adaPosition, adaBefore[0]?.position ?? null);
    await expectGlide(grace.page, 'Ada Lovelace', adaPosition, adaBefore[1]?.position ?? null);
    // Alan moves; Ada sees him.
    const alanPosition: Vec = [-5, 1.5, 3];
    const alanBefore = await avatarOf(ada.page, 'Alan Turing');
    await moveCamera(alan.page, alanPosition, [0, 0.5, 0]);
    await expectGlide(ada.page, 'Alan Turing', alanPosition, alanBefore?.position ?? null);
    await ada.page.screenshot({ path: 'test-results/meetings-ada-sees-avatars.png' });

    // ----- Follow mode: Grace follows Ada -----
    await grace.page.locator('[data-testid="meeting-participant"]', { hasText: 'Ada Lovelace' }).getByTestId('meeting-follow').click();
    await expect(grace.page.getByTestId('meeting-following')).toContainText('Following Ada Lovelace');
    // Grace hides all avatars; Ada and Alan hide Grace's.
    await expect.poll(async () => (await avatarOf(grace.page, 'Ada Lovelace'))?.visible, { timeout: 30_000 }).toBe(false);
    await expect.poll(async () => (await avatarOf(grace.page, 'Alan Turing'))?.visible, { timeout: 30_000 }).toBe(false);
    await expect.poll(async () => (await avatarOf(alan.page, 'Grace Hopper'))?.visible ?? false, { timeout: 30_000 }).toBe(false);

    // Ada moves: Grace's camera follows.
    const adaNext: Vec = [1, 6, 6];
    await moveCamera(ada.page, adaNext, [0, 0.3, 0]);
    await expect.poll(async () => near((await pose(grace.page)).position, adaNext, 0.2), { timeout: 20_000 }).toBe(true);
    expect(near((await pose(grace.page)).target, [0, 0.3, 0], 0.2)).toBe(true);

    // Ada switches to orthographic and cuts a section: Grace sees both.
    await ada.page.evaluate(() => (window as any).__viewer.viewer.navigation.setProjection('Orthographic'));
    await expect.poll(() => grace.page.evaluate(() => (window as any).__viewer.viewer.navigation.projection), { timeout: 30_000 }).toBe('Orthographic');
    await grace.page.screenshot({ path: 'test-results/meetings-grace-follows-ada.png' });

    // ----- Another tool stops following; Grace's own (empty) set of planes comes back -----
    await grace.page.getByTestId('tool-length').click();
    await expect(grace.page.getByTestId('meeting-following')).toHaveCount(0);
    expect(await grace.page.evaluate(() => (window as any).__viewer.viewer.tools.sections.list().length)).toBe(0);
    // Grace's camera is where Ada's is (an avatar around one's camera is not drawn): she steps back.
    await moveCamera(grace.page, [-3, 3, -6], [0, 0.5, 0]);
    await expect.poll(async () => (await avatarOf(grace.page, 'Ada Lovelace'))?.visible, { timeout: 30_000 }).toBe(true);
    await expect.poll(async () => (await avatarOf(alan.page, 'Grace Hopper'))?.visible ?? null, { timeout: 30_000 }).not.toBe(false);

    // ----- Leaving: Alan closes his page; the others are told -----
    await alan.context.close();
    for (const person of [ada, grace]) {
      await expect(person.page.getByTestId('meeting-participant')).toHaveCount(2, { timeout: 20_000 });
      await expect(person.page.getByTestId('meeting-notices')).toContainText('Alan Turing left');
      expect(await avatarOf(person.page, 'Alan Turing')).toBeNull();
    }
  } finally {
    for (const person of [ada, alan, grace]) await person.context.close().catch(() => undefined);
  }
});
