import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../../src/protocol/config';
import { fetchMutationLog } from '../../src/scene/apply-mutations';
import { takeEarlyFetch } from '../../src/scene/fetch';
import { SceneDoc } from '../../src/protocol/scene';
import { fetchClientConfig, fetchScene, modelFileUrl } from '../../src/scene/load-scene';
import { runEarlyPage } from '../support/early-page';

/**
 * index.html's boot script as the built page has it (src/viewer/early-boot.ts compiled by
 * scripts/early-boot.ts), run as the page runs it (tests/support/early-page.ts). `modelService`:
 * the address the server wrote into the page (src/server/index-page.ts); null for a page served
 * without it. The app's own functions then take the responses by their URLs, as on the page.
 */
async function runEarlyDownloads(href: string, modelService: string | null) {
  const early = await runEarlyPage(href, { modelService });
  // The app reads them from its global scope.
  Object.assign(globalThis, { __earlyFetches: early.page.__earlyFetches, __earlyFetchesStarted: early.page.__earlyFetchesStarted });
  return early;
}

const SCENE = {
  _id: 's1',
  name: 'Early',
  models: [{ _id: 'm 1', name: 'Model', sourceFileName: 'a.glb', outputFormat: 'glb', latestVersionKey: 'derivatives/m1/v1' }],
};
const LOG = '/v1/models/m%201/mutations?after=0&limit=1000';
const MODEL = '/cdn/derivatives/m1/v1/model_file.binz';

function config(modelService: string): ClientConfig {
  return {
    endpoints: { account: '', meetings: '', publicMeetings: '', modelService, modelDerivative: '', modelDerivativeCdn: '/cdn', assetCdn: '/cdn' },
    identityProvider: { domain: '', clientId: 'viewer', callbackUrl: '', audience: 'parametricos' },
    rtc: { iceServers: [] },
  };
}

/** The app's own fetch: the tests expect it never to be called. */
function stubOwnFetch() {
  const own = vi.fn(async () => new Response('{}'));
  vi.stubGlobal('fetch', own);
  return own;
}

afterEach(() => {
  delete (globalThis as { __earlyFetches?: unknown }).__earlyFetches;
  delete (globalThis as { __earlyFetchesStarted?: unknown }).__earlyFetchesStarted;
  vi.unstubAllGlobals();
});

describe("index.html's early downloads", () => {
  it('ask for the scene document beside the configuration where the page says the model service is, not one round trip after it', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config']);
    // The meta element comes before the script that reads it.
    expect(early.metaAt).toBeGreaterThan(0);
    expect(early.metaAt).toBeLessThan(early.scriptAt);
    expect((await runEarlyDownloads('http://viewer.test/embed/s%201', 'https://models.test/')).requests).toEqual(['https://models.test/v1/scenes/s%201', '/v1/config']);
  });

  it('a page served without the address (another host, the dev server) waits for the configuration', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', null);
    expect(early.requests).toEqual(['/v1/config']);
    early.answer('/v1/config', config('https://models.test'));
    await vi.waitFor(() => expect(early.requests).toEqual(['/v1/config', 'https://models.test/v1/scenes/s1']));
  });

  it('the app takes the configuration, the scene document and the saved edits asked for early, and asks for nothing itself', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    const own = stubOwnFetch();
    early.answer('/v1/config', config(''));
    early.answer('/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config', LOG, MODEL]);
    early.answer(LOG, { modelId: 'm 1', mutations: [], lastSeq: 0 });
    // The app's own requests for the same documents (src/scene/load-scene.ts, apply-mutations.ts).
    expect(await fetchClientConfig()).toEqual(config(''));
    expect((await fetchScene(config(''), 's1')).name).toBe('Early');
    expect(await fetchMutationLog('', 'm 1')).toEqual([]);
    expect(own).not.toHaveBeenCalled();
    // What is left is the model file, which the model's load takes (tests/unit/scene/load-scene.test.ts).
    expect(Object.keys(early.page.__earlyFetches!)).toEqual([MODEL]);
  });

  it('the app may take and read the scene document before the configuration has answered: the models still start early', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    const own = stubOwnFetch();
    early.answer('/v1/scenes/s1', SCENE);
    const taken = takeEarlyFetch('/v1/scenes/s1')!;
    expect((await (await taken).json()).name).toBe('Early');
    early.answer('/v1/config', config(''));
    await early.page.__earlyFetchesStarted;
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config', LOG, MODEL]);
    expect(own).not.toHaveBeenCalled();
  });

  it('a configuration that names another address: the early document is dropped and asked for there', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    early.answer('/v1/config', config('https://models.test/'));
    await vi.waitFor(() => expect(early.requests).toContain('https://models.test/v1/scenes/s1'));
    expect(early.page.__earlyFetches).not.toHaveProperty('/v1/scenes/s1');
    early.answer('https://models.test/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests).toContain('https://models.test/v1/models/m%201/mutations?after=0&limit=1000');
  });

  it('the same address written another way (absolute on this origin): the early document is kept under the URL the app asks for', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    early.answer('/v1/config', config('http://viewer.test'));
    early.answer('/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests.filter((url) => url.includes('/v1/scenes/'))).toEqual(['/v1/scenes/s1']);
    const own = stubOwnFetch();
    expect((await fetchScene(config('http://viewer.test'), 's1')).name).toBe('Early');
    expect(own).not.toHaveBeenCalled();
  });

  it("a private scene's model starts early at its signed URL, the one the app builds and takes; a public scene's at the plain one", async () => {
    const query = 'exp=1700003600&sig=abc_-DEF';
    const signed = { ...SCENE, public: false, models: [{ ...SCENE.models[0], derivativeQuery: query }] };
    const early = await runEarlyDownloads('http://viewer.test/embed/s1', '');
    early.answer('/v1/config', config(''));
    early.answer('/v1/scenes/s1', signed);
    await early.page.__earlyFetchesStarted;
    const url = modelFileUrl(config(''), SceneDoc.parse(signed).models[0]);
    expect(url).toBe(`${MODEL}?${query}`);
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config', LOG, url]);
    expect(takeEarlyFetch(url)).not.toBeNull();
    // The plain URL of the same model is not started, so it cannot be taken for the signed one.
    expect(takeEarlyFetch(MODEL)).toBeNull();
    expect(modelFileUrl(config(''), SceneDoc.parse(SCENE).models[0])).toBe(MODEL);
  });

  it('a cover (autoPlay off) asks for the documents only: no model, no saved edits', async () => {
    const early = await runEarlyDownloads('http://viewer.test/embed/s1?autoPlay=false', '');
    early.answer('/v1/config', config(''));
    early.answer('/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config']);
  });
});
