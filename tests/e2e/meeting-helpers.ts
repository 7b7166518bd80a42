import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { TOKEN_STORAGE_KEY } from '../../src/protocol/auth';
import { signTestToken } from '../../src/server/auth/tokens';
import { settled } from './helpers';

/**
 * People in meetings for the browser tests (meetings.spec.ts, meetings-shared-tools.spec.ts): each
 * signs in in a browser context of their own and opens a scene, which joins its meeting; their
 * camera, their avatars as others draw them.
 */

export const PEOPLE = [
  ['Ada', 'Lovelace'],
  ['Alan', 'Turing'],
  ['Grace', 'Hopper'],
] as const;

export type Vec = [number, number, number];

export interface Person {
  context: BrowserContext;
  page: Page;
}

/** Signs in as First Last (a token of the development identity provider) and opens `/embed/{scene}{query}`. */
export async function openAs(
  browser: Browser,
  first: string,
  last: string,
  scene: string,
  query = '',
  options: { viewport?: { width: number; height: number }; media?: boolean } = {},
): Promise<Person> {
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: first, lastName: last });
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 800, height: 500 } });
  // The call's camera and microphone (Chromium's fake devices, given by the spec's launch options).
  if (options.media) await context.grantPermissions(['camera', 'microphone']);
  await context.addInitScript(
    ([key, value]) => window.localStorage.setItem(key, value),
    [TOKEN_STORAGE_KEY, JSON.stringify({ token, expiresAt: Date.now() + 3600_000 })] as const,
  );
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[${first}] page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') console.error(`[${first}] console: ${message.text()}`);
  });
  await page.goto(`/embed/${scene}${query}`);
  expect(await settled(page)).toBe('ready');
  return { context, page };
}

/** The camera's position and target in a page. */
export function pose(page: Page): Promise<{ position: Vec; target: Vec }> {
  return page.evaluate(() => {
    const c = (window as any).__viewer.viewer.controls;
    const p = c.getPosition(new (c.camera.position.constructor)(), false);
    const t = c.getTarget(new (c.camera.position.constructor)(), false);
    return { position: [p.x, p.y, p.z] as Vec, target: [t.x, t.y, t.z] as Vec };
  });
}

export function moveCamera(page: Page, position: Vec, target: Vec): Promise<void> {
  return page.evaluate(
    ([p, t]) => (window as any).__viewer.viewer.controls.setLookAt(p[0], p[1], p[2], t[0], t[1], t[2], false),
    [position, target] as const,
  );
}

/** Where a person's avatar is drawn in a page (its Object3D's world position), and whether it is shown. */
export function avatarOf(page: Page, name: string): Promise<{ position: Vec; visible: boolean } | null> {
  return page.evaluate((n) => {
    const scene = (window as any).__viewer.viewer.world.render.scene;
    const avatar = scene.getObjectByName(`avatar:${n}`);
    if (!avatar) return null;
    const e = avatar.matrixWorld.elements;
    return { position: [e[12], e[13], e[14]] as Vec, visible: avatar.visible };
  }, name);
}

export const distance = (a: Vec, b: Vec) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
export const near = (a: Vec, b: Vec, tolerance: number) => distance(a, b) < tolerance;

/**
 * Waits until a person's avatar, as another page draws it, has covered most of the way to `target`
 * (the smoothing glides 2.5% of the way per 1/60 s: on a loaded machine with a software GPU the
 * last centimetres take long, so the check is "most of the way", shown, and moving the right way).
 */
export async function expectGlide(page: Page, name: string, target: Vec, from: Vec | null): Promise<void> {
  const start = from ?? [0, 0, 0];
  const total = Math.max(distance(start, target), 1);
  await expect
    .poll(
      async () => {
        const avatar = await avatarOf(page, name);
        return avatar !== null && avatar.visible && distance(avatar.position, target) < Math.max(0.15, total * 0.3);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
}
