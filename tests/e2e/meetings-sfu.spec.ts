import { expect, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium, NO_MULTISAMPLING_ARGS } from '../../scripts/chromium.mjs';
import { store } from './helpers';
import { openAs as openPerson } from './meeting-helpers';

/**
 * A call through the call server (the real Janus that global-setup starts, RTC_MESH_MAX=2): three
 * people in a meeting join its call with Chromium's fake camera and microphone; each decodes the
 * other two's video through Janus; camera off turns one's picture black for the others, mute
 * disables the microphone's track; leaving takes one's tile away for the others.
 */

test.use({
  launchOptions: {
    executablePath: findChromium(),
    args: [
      ...CHROMIUM_ARGS,
      ...NO_MULTISAMPLING_ARGS,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
      // Host candidates with their addresses (Janus cannot resolve mDNS names).
      '--disable-features=WebRtcHideLocalIpsWithMdns',
    ],
  },
});

const SCENE = 'meeting-sfu-e2e';

/** A signed-in person in the scene's meeting, connected, with the fake camera and microphone allowed. */
async function openAs(browser: Browser, first: string, last: string): Promise<Page> {
  const { page } = await openPerson(browser, first, last, SCENE, '?quality=low', { viewport: { width: 900, height: 520 }, media: true });
  await expect(page.getByTestId('meeting-status')).toHaveText('Connected', { timeout: 30_000 });
  return page;
}

/** Frames decoded by the video of each remote tile, by the name on it. */
function remoteFrames(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const frames: Record<string, number> = {};
    for (const tile of document.querySelectorAll('[data-testid="call-tile"]:not([data-self])')) {
      const video = tile.querySelector('video') as HTMLVideoElement;
      const name = tile.querySelector('.call-name')?.textContent ?? '?';
      frames[name] = video.videoWidth === 0 ? 0 : video.getVideoPlaybackQuality().totalVideoFrames;
    }
    return frames;
  });
}

/** The mean brightness (0-255) of the picture in the remote tile named `name`. */
function brightness(page: Page, name: string): Promise<number> {
  return page.evaluate((who) => {
    const tile = [...document.querySelectorAll('[data-testid="call-tile"]:not([data-self])')].find((t) => t.querySelector('.call-name')?.textContent === who);
    const video = tile?.querySelector('video') as HTMLVideoElement | undefined;
    if (!video || video.videoWidth === 0) return -1;
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 36;
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) sum += (data[i] + data[i + 1] + data[i + 2]) / 3;
    return sum / (data.length / 4);
  }, name);
}

test('three people call through Janus: each decodes the others\' video; camera off, mute, leave', async ({ browser }) => {
  test.skip(process.env.E2E_JANUS !== '1', `no call server for this run: ${process.env.E2E_JANUS_SKIP ?? 'E2E_JANUS is not set'}`);
  test.setTimeout(300_000);
  const s = await store();
  const demo = await s.getScene('demo');
  if (!demo) throw new Error('the demo scene is missing');
  if (!(await s.getScene(SCENE))) await s.putScene({ ...demo, _id: SCENE, name: 'Call server test' });

  const people = [
    ['Ada', 'Lovelace'],
    ['Alan', 'Turing'],
    ['Grace', 'Hopper'],
  ] as const;
  const pages: Page[] = [];
  try {
    for (const [first, last] of people) pages.push(await openAs(browser, first, last));
    const [ada, alan, grace] = pages;
    await expect(ada.getByTestId('meeting-participant')).toHaveCount(3, { timeout: 30_000 });
    for (const page of pages) {
      await page.getByTestId('call-join').click();
      // Three people in the meeting, RTC_MESH_MAX 2: the call goes through the call server.
      await expect(page.getByTestId('call-controls')).toHaveAttribute('data-mode', 'sfu', { timeout: 30_000 });
    }

    // Each decodes both others' (fake camera's) video, still coming.
    for (const [i, page] of pages.entries()) {
      const others = people.filter((_, j) => j !== i).map(([first, last]) => `${first} ${last}`);
      await expect(page.getByTestId('call-tile')).toHaveCount(3, { timeout: 60_000 });
      await expect.poll(async () => Object.keys(await remoteFrames(page)).sort(), { timeout: 30_000 }).toEqual(others.sort());
      await expect.poll(async () => Math.min(...Object.values(await remoteFrames(page))), { timeout: 60_000 }).toBeGreaterThan(5);
      const before = await remoteFrames(page);
      await expect.poll(async () => {
        const now = await remoteFrames(page);
        return others.every((name) => now[name] > before[name]);
      }, { timeout: 30_000 }).toBe(true);
    }
    await grace.screenshot({ path: 'test-results/meetings-sfu-grace.png' });
    // The fake microphone beeps: the speaking indicator rings others' tiles, measured on what Janus relays.
    await expect(grace.locator('[data-testid="call-tile"][data-speaking]:not([data-self])').first()).toBeAttached({ timeout: 30_000 });

    // Camera off: Ada's picture goes black for the others; her local tracks say so too.
    await expect.poll(() => brightness(alan, 'Ada Lovelace'), { timeout: 30_000 }).toBeGreaterThan(20);
    await ada.getByTestId('call-camera').click();
    await expect
      .poll(async () => {
        const [level, frames] = await Promise.all([brightness(alan, 'Ada Lovelace'), remoteFrames(alan)]);
        // Logged: whether her frames still come while the picture is checked.
        console.log(`camera off: brightness ${level.toFixed(1)}, frames ${frames['Ada Lovelace']}`);
        return level;
      }, { timeout: 60_000 })
      .toBeLessThan(5);
    await expect.poll(() => brightness(grace, 'Ada Lovelace'), { timeout: 30_000 }).toBeLessThan(5);
    await ada.getByTestId('call-mute').click();
    await expect(ada.getByTestId('call-mute')).toHaveText('Unmute');
    const tracks = await ada.evaluate(() => {
      const video = document.querySelector('[data-testid="call-tile"][data-self] video') as HTMLVideoElement;
      return (video.srcObject as MediaStream).getTracks().map((t) => `${t.kind}:${t.enabled}`).sort();
    });
    expect(tracks).toEqual(['audio:false', 'video:false']);
    // Camera on again: the picture comes back.
    await ada.getByTestId('call-camera').click();
    await expect.poll(() => brightness(alan, 'Ada Lovelace'), { timeout: 30_000 }).toBeGreaterThan(20);

    // Ada leaves the call: her tile goes for the others; they still see each other.
    await ada.getByTestId('call-leave').click();
    for (const page of [alan, grace]) await expect(page.getByTestId('call-tile')).toHaveCount(2, { timeout: 30_000 });
    const left = await remoteFrames(alan);
    expect(Object.keys(left)).toEqual(['Grace Hopper']);
    await expect.poll(async () => (await remoteFrames(alan))['Grace Hopper'], { timeout: 30_000 }).toBeGreaterThan(left['Grace Hopper']);
  } finally {
    for (const page of pages) await page.context().close();
  }
});
