import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../../src/protocol/config';
import { fetchMutationLog } from '../../src/scene/apply-mutations';
import { fetchClientConfig, fetchScene } from '../../src/scene/load-scene';

/**
 * index.html's first inline script (the embed's early downloads), run as the page runs it, against a
 * fetch that records each request and answers when the test says. The app's own functions then take
 * the responses by their URLs, as on the page.
 */
function runEarlyDownloads(href: string) {
  const html = readFileSync(new URL('../../index.html', import.meta.url), 'utf8');
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error('index.html has no inline script');
  const requests: string[] = [];
  const answers = new Map<string, (response: Response) => void>();
  const fetchStub = (url: string) => {
    requests.push(url);
    return new Promise<Response>((resolve) => answers.set(url, resolve));
  };
  const page: { __earlyFetches?: Record<string, Promise<Response>>; __earlyFetchesStarted?: Promise<unknown> } = {};
  const documentStub = { createElement: () => ({ getContext: () => null }) };
  new Function('window', 'location', 'fetch', 'Worker', 'document', script)(page, new URL(href), fetchStub, undefined, documentStub);
  // The app reads them from its global scope.
  Object.assign(globalThis, { __earlyFetches: page.__earlyFetches, __earlyFetchesStarted: page.__earlyFetchesStarted });
  return {
    page,
    requests,
    answer(url: string, body: unknown) {
      const answer = answers.get(url);
      if (!answer) throw new Error(`${url} was not requested (requests: ${requests.join(', ')})`);
      answer(new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }));
    },
  };
}

const SCENE = {
  _id: 's1',
  name: 'Early',
  models: [{ _id: 'm 1', name: 'Model', sourceFileName: 'a.glb', outputFormat: 'glb', latestVersionKey: 'derivatives/m1/v1' }],
};

function config(modelService: string): ClientConfig {
  return {
    endpoints: { account: '', meetings: '', publicMeetings: '', modelService, modelDerivative: '', modelDerivativeCdn: '/cdn', assetCdn: '/cdn' },
    identityProvider: { domain: '', clientId: 'viewer', callbackUrl: '', audience: 'parametricos' },
    rtc: { iceServers: [] },
  };
}

afterEach(() => {
  delete (globalThis as { __earlyFetches?: unknown }).__earlyFetches;
  delete (globalThis as { __earlyFetchesStarted?: unknown }).__earlyFetchesStarted;
  vi.unstubAllGlobals();
});

describe("index.html's early downloads", () => {
  it('ask for the scene document beside the configuration, not one round trip after it', () => {
    const { requests } = runEarlyDownloads('http://viewer.test/embed/s1');
    // Nothing has answered yet.
    expect(requests).toEqual(['/v1/scenes/s1', '/v1/config']);
  });

  it("on this server's model service the app takes the scene document and the model's saved edits asked for early, and asks for nothing itself", async () => {
    const early = runEarlyDownloads('http://viewer.test/embed/s1');
    const ownFetch = vi.fn(async () => new Response('{}'));
    vi.stubGlobal('fetch', ownFetch);
    early.answer('/v1/config', config(''));
    early.answer('/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    const log = "/v1/models/m%201/mutations?after=0&limit=1000";
    expect(early.requests).toEqual(['/v1/scenes/s1', '/v1/config', log, '/cdn/derivatives/m1/v1/model_file.binz']);
    early.answer(log, { modelId: 'm 1', mutations: [], lastSeq: 0 });
    // The app's own requests for the same documents (src/scene/load-scene.ts, apply-mutations.ts).
    expect(await fetchClientConfig()).toEqual(config(''));
    expect((await fetchScene(config(''), 's1')).name).toBe('Early');
    expect(await fetchMutationLog('', 'm 1')).toEqual([]);
    expect(ownFetch).not.toHaveBeenCalled();
    // What is left is the model file, which the model's load takes (tests/unit/scene/load-scene.test.ts).
    expect(Object.keys(early.page.__earlyFetches!)).toEqual(['/cdn/derivatives/m1/v1/model_file.binz']);
  });

  it('a model service elsewhere: the guess is dropped and the document asked for there', async () => {
    const early = runEarlyDownloads('http://viewer.test/embed/s1');
    early.answer('/v1/config', config('https://models.test/'));
    await vi.waitFor(() => expect(early.requests).toContain('https://models.test/v1/scenes/s1'));
    expect(early.page.__earlyFetches).not.toHaveProperty('/v1/scenes/s1');
    early.answer('https://models.test/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests).toContain('https://models.test/v1/models/m%201/mutations?after=0&limit=1000');
  });

  it('the model service named by its address on this origin: the early document is kept under that URL, not asked for twice', async () => {
    const early = runEarlyDownloads('http://viewer.test/embed/s1');
    early.answer('/v1/config', config('http://viewer.test'));
    early.answer('/v1/scenes/s1', SCENE);
    await early.page.__earlyFetchesStarted;
    expect(early.requests.filter((url) => url.includes('/v1/scenes/'))).toEqual(['/v1/scenes/s1']);
    const ownFetch = vi.fn(async () => new Response('{}'));
    vi.stubGlobal('fetch', ownFetch);
    expect((await fetchScene(config('http://viewer.test'), 's1')).name).toBe('Early');
    expect(ownFetch).not.toHaveBeenCalled();
  });

});
