import { expect, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium, NO_MULTISAMPLING_ARGS } from '../../scripts/chromium.mjs';
import { store } from './helpers';
import { openAs as openPerson } from './meeting-helpers';

/**
 * Audio and video of a meeting (peer-to-peer mesh): two people join the call with Chromium's fake
 * camera and microphone; each decodes the other's video; mute and camera off act on the tracks.
 */

test.use({
  launchOptions: {
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, ...NO_MULTISAMPLING_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'],
  },
});

const SCENE = 'meeting-call-e2e';

/** A signed-in person in the scene's meeting, connected, with the fake camera and microphone allowed. */
async function openAs(browser: Browser, first: string, last: string): Promise<Page> {
  const { page } = await openPerson(browser, first, last, SCENE, '?quality=low', { viewport: { width: 1000, height: 560 }, media: true });
  await expect(page.getByTestId('meeting-status')).toHaveText('Connected', { timeout: 30_000 });
  return page;
}

/** Frames the remote tile's video has decoded. */
function remoteFrames(page: Page): Promise<number> {
  return page.evaluate(() => {
    const video = document.querySelector('[data-testid="call-tile"]:not([data-self]) video') as HTMLVideoElement | null;
    if (!video || video.videoWidth === 0) return 0;
    return video.getVideoPlaybackQuality().totalVideoFrames;
  });
}

test('two people join the call and see each other\'s video; mute and camera off', async ({ browser }) => {
  test.setTimeout(180_000);
  const s = await store();
  const demo = await s.getScene('demo');
  if (!demo) throw new Error('the demo scene is missing');
  if (!(await s.getScene(SCENE))) await s.putScene({ ...demo, _id: SCENE, name: 'Call test' });

  const ada = await openAs(browser, 'Ada', 'Lovelace');
  const alan = await openAs(browser, 'Alan', 'Turing');
  try {
    await expect(ada.getByTestId('meeting-participant')).toHaveCount(2, { timeout: 30_000 });
    await ada.getByTestId('call-join').click();
    await expect(ada.getByTestId('call-controls')).toBeVisible();
    // Two people: a mesh, whether or not a call server is configured (global-setup: RTC_MESH_MAX 2).
    await expect(ada.getByTestId('call-controls')).toHaveAttribute('data-mode', 'mesh');
    await alan.getByTestId('call-join').click();
    await expect(alan.getByTestId('call-controls')).toBeVisible();

    // Each decodes the other's (fake camera's) video.
    for (const page of [ada, alan]) {
      await expect(page.getByTestId('call-tile')).toHaveCount(2, { timeout: 30_000 });
      await expect.poll(() => remoteFrames(page), { timeout: 30_000 }).toBeGreaterThan(5);
    }
    await expect(alan.locator('[data-testid="call-tile"]:not([data-self])')).toContainText('Ada Lovelace');
    await ada.screenshot({ path: 'test-results/meetings-call-ada.png' });

    // Mute and camera off disable the local tracks.
    await ada.getByTestId('call-mute').click();
    await expect(ada.getByTestId('call-mute')).toHaveText('Unmute');
    await ada.getByTestId('call-camera').click();
    const tracks = await ada.evaluate(() => {
      const video = document.querySelector('[data-testid="call-tile"][data-self] video') as HTMLVideoElement;
      const stream = video.srcObject as MediaStream;
      return stream.getTracks().map((t) => `${t.kind}:${t.enabled}`).sort();
    });
    expect(tracks).toEqual(['audio:false', 'video:false']);

    // Leaving the call removes the tile on the other side.
    await ada.getByTestId('call-leave').click();
    await expect(alan.getByTestId('call-tile')).toHaveCount(1, { timeout: 30_000 });
  } finally {
    await ada.context().close();
    await alan.context().close();
  }
});
