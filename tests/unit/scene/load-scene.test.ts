import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../../../src/protocol/config';
import { fetchBinary, fetchJson, HttpError, takeEarlyFetch } from '../../../src/scene/fetch';
import { fetchScene, modelFileUrl } from '../../../src/scene/load-scene';

const config: ClientConfig = {
  endpoints: {
    account: '',
    meetings: '/meetings',
    publicMeetings: '/meetings',
    modelService: 'http://models.test/',
    modelDerivative: '',
    modelDerivativeCdn: 'https://cdn.test/derivatives/',
    assetCdn: '/cdn',
  },
  identityProvider: { domain: '', clientId: 'x', callbackUrl: '/auth/callback', audience: 'parametricos' },
  rtc: { iceServers: [] },
};

afterEach(() => vi.unstubAllGlobals());

function respond(body: BodyInit | null, init: ResponseInit = {}) {
  vi.stubGlobal('fetch', vi.fn(async () => new Response(body, init)));
}

describe('modelFileUrl', () => {
  it('is {model-derivative CDN}/{latestVersionKey}/model_file.binz', () => {
    const url = modelFileUrl(config, { _id: 'm1', latestVersionKey: 'm1/v7', outputFormat: 'glb', sourceFileName: 'a.glb' });
    expect(url).toBe('https://cdn.test/derivatives/m1/v7/model_file.binz');
  });
  it("appends the signed query a private scene's model carries (derivativeQuery), and nothing without one", () => {
    const signed = { _id: 'm1', latestVersionKey: 'm1/v7', outputFormat: 'glb', sourceFileName: 'a.glb', derivativeQuery: 'exp=1700003600&sig=abc_-DEF' };
    expect(modelFileUrl(config, signed)).toBe('https://cdn.test/derivatives/m1/v7/model_file.binz?exp=1700003600&sig=abc_-DEF');
    expect(modelFileUrl({ ...config, endpoints: { ...config.endpoints, modelDerivativeCdn: '/cdn/derivatives' } }, signed)).toBe('/cdn/derivatives/m1/v7/model_file.binz?exp=1700003600&sig=abc_-DEF');
  });
});

describe("a scene document's derivativeQuery", () => {
  const scene = (derivativeQuery: string) => ({ _id: 's', name: 'S', models: [{ _id: 'm1', latestVersionKey: 'm1/v7', outputFormat: 'glb', sourceFileName: 'a.glb', derivativeQuery }] });
  it('is kept by the scene schema, so the load builds the signed URL', async () => {
    respond(JSON.stringify(scene('exp=1700003600&sig=abc')), { status: 200 });
    const doc = await fetchScene(config, 's');
    expect(modelFileUrl(config, doc.models[0])).toBe('https://cdn.test/derivatives/m1/v7/model_file.binz?exp=1700003600&sig=abc');
  });
  it('is refused when it would change more than the query (a path, a fragment, another query)', async () => {
    for (const query of ['../../x', 'a#b', '?a=1', 'a=1 b', '']) {
      respond(JSON.stringify(scene(query)), { status: 200 });
      await expect(fetchScene(config, 's')).rejects.toThrow(/models\.0\.derivativeQuery/);
    }
  });
});

describe('fetchScene', () => {
  it('returns a scene that passes the schema', async () => {
    respond(JSON.stringify({ _id: 's', name: 'S', models: [] }), { status: 200 });
    const scene = await fetchScene(config, 's');
    expect(scene.viewerConfig).toEqual({});
    expect(vi.mocked(fetch).mock.calls[0][0]).toBe('http://models.test/v1/scenes/s');
  });
  it('names the fields of a scene that fails its schema', async () => {
    respond(JSON.stringify({ _id: 's', name: 'S', models: [{ _id: 'm', outputFormat: 'glb' }] }), { status: 200 });
    await expect(fetchScene(config, 's')).rejects.toThrow(/scene document is invalid: models\.0\.latestVersionKey/);
  });
  it('passes on the server error text', async () => {
    respond(JSON.stringify({ error: "Scene 's' not found" }), { status: 404 });
    await expect(fetchScene(config, 's')).rejects.toThrow("answered 404: Scene 's' not found");
  });
  it('refuses a body that is not JSON', async () => {
    respond('<html>', { status: 200 });
    await expect(fetchScene(config, 's')).rejects.toThrow('did not answer with JSON');
  });
});

describe("fetchScene with the page's token", () => {
  it('sends the token when there is one, and none without', async () => {
    respond(JSON.stringify({ _id: 's', name: 'S', models: [] }), { status: 200 });
    await fetchScene(config, 's', undefined, async () => 'T1');
    await fetchScene(config, 's', undefined, async () => null);
    const headers = vi.mocked(fetch).mock.calls.map((call) => (call[1]!.headers as Record<string, string>).authorization);
    expect(headers).toEqual(['Bearer T1', undefined]);
  });

  it('a refused token (401) does not keep a public scene from opening: asked once more without', async () => {
    const answers = [new Response(JSON.stringify({ error: 'Invalid token: the token has expired' }), { status: 401 }), new Response(JSON.stringify({ _id: 's', name: 'S', models: [] }), { status: 200 })];
    vi.stubGlobal('fetch', vi.fn(async () => answers.shift()!));
    expect((await fetchScene(config, 's', undefined, () => 'STALE')).name).toBe('S');
    const headers = vi.mocked(fetch).mock.calls.map((call) => (call[1]!.headers as Record<string, string>).authorization);
    expect(headers).toEqual(['Bearer STALE', undefined]);
  });
});

describe('fetchBinary', () => {
  it('reports byte progress and returns the bytes', async () => {
    const bytes = new Uint8Array(1000).map((_, i) => i & 255);
    respond(bytes, { status: 200, headers: { 'Content-Length': '1000' } });
    const seen: number[] = [];
    const buffer = await fetchBinary('http://x/f', (loaded, total) => {
      expect(total).toBe(1000);
      seen.push(loaded);
    });
    expect(new Uint8Array(buffer)).toEqual(bytes);
    expect(seen.at(-1)).toBe(1000);
  });
  it('copes with a Content-Length that does not match the body (compressed transfer)', async () => {
    const bytes = new Uint8Array(300).fill(7);
    respond(bytes, { status: 200, headers: { 'Content-Length': '100' } });
    expect(new Uint8Array(await fetchBinary('http://x/f')).length).toBe(300);
  });
  it('refuses a download that ends early', async () => {
    respond(new Uint8Array(10), { status: 200, headers: { 'Content-Length': '20' } });
    await expect(fetchBinary('http://x/f')).rejects.toThrow('ended after 10 of 20 bytes');
  });
  it('throws an HttpError naming the status', async () => {
    respond('nope', { status: 404, statusText: 'Not Found' });
    const error = await fetchBinary('http://x/f').catch((e) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(404);
    expect(error.message).toBe('The model file request failed: 404 Not Found.');
  });
  it("gives the service's reason from a JSON answer (a private scene's model without a valid signed URL)", async () => {
    const reason = 'This model belongs to a private scene: its file needs the signed URL the scene document gives, and this one expired at 2024-01-01T00:00:00.000Z: fetch the scene document again for a new one';
    respond(JSON.stringify({ error: reason }), { status: 403, statusText: 'Forbidden', headers: { 'content-type': 'application/json; charset=utf-8' } });
    const error = await fetchBinary('http://x/f').catch((e) => e);
    expect(error).toMatchObject({ status: 403, message: `The model file request failed: 403 Forbidden. ${reason}` });
  });
});

describe('early downloads (started by index.html)', () => {
  const early = () => (globalThis as { __earlyFetches?: Record<string, Promise<Response>>; __earlyFetchesStarted?: Promise<unknown> });
  afterEach(() => {
    delete early().__earlyFetches;
    delete early().__earlyFetchesStarted;
  });

  it('a URL index.html has not started yet waits for its chain, then takes the early download', async () => {
    respond('not this', { status: 200 });
    let started!: () => void;
    early().__earlyFetches = {};
    early().__earlyFetchesStarted = new Promise<void>((resolve) => (started = resolve));
    const pending = fetchBinary('http://x/asset');
    await new Promise((resolve) => setTimeout(resolve, 5));
    // index.html's chain is still parsing the scene document: the app neither fetched nor gave up.
    expect(fetch).not.toHaveBeenCalled();
    early().__earlyFetches!['http://x/asset'] = Promise.resolve(new Response(new Uint8Array(7).fill(1)));
    started();
    expect(new Uint8Array(await pending)).toEqual(new Uint8Array(7).fill(1));
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a URL the chain never starts, or a failed chain, is fetched by the app after it settles', async () => {
    respond('{"ok":true}', { status: 200 });
    early().__earlyFetches = {};
    early().__earlyFetchesStarted = Promise.reject(new Error('config unreachable'));
    expect(await fetchJson('http://x/other')).toEqual({ ok: true });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(vi.mocked(fetch).mock.calls[0][0]).toBe('http://x/other');
  });

  it('an abort while waiting for the chain rejects at once', async () => {
    respond('not this', { status: 200 });
    early().__earlyFetches = {};
    early().__earlyFetchesStarted = new Promise(() => {});
    const abort = new AbortController();
    const pending = fetchBinary('http://x/never', undefined, abort.signal);
    abort.abort(new DOMException('The load was cancelled.', 'AbortError'));
    await expect(pending).rejects.toThrow('The load was cancelled.');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('are taken once by URL, checked like the app’s own; other URLs are fetched', async () => {
    respond(JSON.stringify({ _id: 'own', name: 'Own', models: [] }), { status: 200 });
    early().__earlyFetches = {
      'http://models.test/v1/scenes/s': Promise.resolve(new Response(JSON.stringify({ _id: 's', name: 'Early', models: [] }), { status: 200 })),
    };
    expect((await fetchScene(config, 's')).name).toBe('Early');
    expect(fetch).not.toHaveBeenCalled();
    // Taken: the second load of the same scene asks the server.
    expect((await fetchScene(config, 's')).name).toBe('Own');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(takeEarlyFetch('http://models.test/v1/scenes/s')).toBeNull();
  });

  it("a private scene: the early download (no token) is refused, the document is asked for again with the page's token", async () => {
    respond(JSON.stringify({ _id: 'p', name: 'Private', models: [] }), { status: 200 });
    early().__earlyFetches = {
      'http://models.test/v1/scenes/p': Promise.resolve(new Response(JSON.stringify({ error: "Scene 'p' not found" }), { status: 404 })),
      'http://models.test/v1/scenes/q': Promise.resolve(new Response(JSON.stringify({ error: "Scene 'q' not found" }), { status: 404 })),
      'http://models.test/v1/scenes/r': Promise.resolve(new Response(JSON.stringify({ _id: 'r', name: 'Public', models: [] }), { status: 200 })),
    };
    expect((await fetchScene(config, 'p', undefined, () => 'TOKEN')).name).toBe('Private');
    expect(vi.mocked(fetch).mock.calls[0]![0]).toBe('http://models.test/v1/scenes/p');
    expect((vi.mocked(fetch).mock.calls[0]![1]!.headers as Record<string, string>).authorization).toBe('Bearer TOKEN');
    // Without a token the early refusal is the answer; a public scene's early answer is taken even with one.
    await expect(fetchScene(config, 'q', undefined, () => null)).rejects.toThrow("answered 404: Scene 'q' not found");
    // ... without asking for the token at all: a token generator that never answers holds nothing up.
    const asked = vi.fn(() => new Promise<string>(() => undefined));
    expect((await fetchScene(config, 'r', undefined, asked)).name).toBe('Public');
    expect(asked).not.toHaveBeenCalled();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('give the same errors as the app’s own requests', async () => {
    early().__earlyFetches = {
      'http://models.test/v1/scenes/gone': Promise.resolve(new Response(JSON.stringify({ error: "Scene 'gone' not found" }), { status: 404 })),
      'http://x/model': Promise.resolve(new Response(new Uint8Array(10), { status: 200, headers: { 'Content-Length': '20' } })),
    };
    await expect(fetchScene(config, 'gone')).rejects.toThrow("answered 404: Scene 'gone' not found");
    await expect(fetchBinary('http://x/model')).rejects.toThrow('ended after 10 of 20 bytes');
  });

  it('stream a model with byte progress', async () => {
    const bytes = new Uint8Array(500).fill(3);
    early().__earlyFetches = { 'http://x/m': Promise.resolve(new Response(bytes, { status: 200, headers: { 'Content-Length': '500' } })) };
    const seen: number[] = [];
    expect(new Uint8Array(await fetchBinary('http://x/m', (loaded) => seen.push(loaded)))).toEqual(bytes);
    expect(seen.at(-1)).toBe(500);
  });

  it('still honour the caller’s abort signal', async () => {
    let finish!: (r: Response) => void;
    early().__earlyFetches = { 'http://x/slow': new Promise<Response>((resolve) => (finish = resolve)) };
    const abort = new AbortController();
    const pending = fetchBinary('http://x/slow', undefined, abort.signal);
    abort.abort(new DOMException('The load was cancelled.', 'AbortError'));
    await expect(pending).rejects.toThrow('The load was cancelled.');
    finish(new Response(new Uint8Array(1)));
    const aborted = new AbortController();
    aborted.abort(new DOMException('Already cancelled.', 'AbortError'));
    early().__earlyFetches = { 'http://x/late': Promise.resolve(new Response(new Uint8Array(1))) };
    expect(() => takeEarlyFetch('http://x/late', aborted.signal)).toThrow('Already cancelled.');
  });
});
