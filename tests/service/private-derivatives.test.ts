import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientConfig } from '../../src/protocol/config.ts';
import { SceneDoc, type ModelDoc } from '../../src/protocol/scene.ts';
import { modelFileUrl } from '../../src/scene/load-scene.ts';
import { DERIVATIVE_URL_KEY_FILE, DERIVATIVE_URL_LIFETIME_S, DERIVATIVE_URL_STEP_S, derivativeUrlKey, signDerivativeQuery } from '../../src/server/auth/derivative-urls.ts';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { IMMUTABLE } from '../../src/server/routes/cdn.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * A private scene's model files (issue 33, item 10): a container that only private scenes list is
 * served only at the signed, expiring URL its scene document gives (`derivativeQuery`), cached
 * privately until it expires; without it, or with an expired or altered one, 403 and no file. A
 * public scene's containers keep their plain URL and a year of public caching.
 */

let server: TestServer;
let owner: string;
let config: ClientConfig;
/** Bytes of a container (any bytes: the CDN does not decode them). */
const FILE = new Uint8Array([0x33, 0x44, 0x58, 0x46, 1, 0, 0, ...Array.from({ length: 500 }, (_, i) => i & 0xff)]);

async function sceneWith(name: string, options: { public?: boolean; models: ModelDoc[] }): Promise<string> {
  const res = await fetch(`${server.url}/v1/scenes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, ...(options.public !== undefined ? { public: options.public } : {}) }),
  });
  expect(res.status).toBe(201);
  const { _id } = (await res.json()) as { _id: string };
  for (const model of options.models) {
    await server.store.writeDerivative(model.latestVersionKey, FILE);
    await server.store.appendModel(_id, model);
  }
  return _id;
}

function model(id: string): ModelDoc {
  return { _id: id, latestVersionKey: `${id}/v1`, outputFormat: 'glb', sourceFileName: `${id}.glb` };
}

async function getScene(id: string, token: string | undefined = owner): Promise<SceneDoc> {
  const res = await fetch(`${server.url}/v1/scenes/${id}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  return SceneDoc.parse(await res.json());
}

const derivative = (versionKey: string, query = '') => `${server.url}/cdn/derivatives/${versionKey}/model_file.binz${query ? `?${query}` : ''}`;

/** A refusal: 403, a JSON reason, nothing of the file, not cacheable. */
async function expectRefused(url: string, reason: RegExp): Promise<void> {
  const res = await fetch(url);
  const body = new Uint8Array(await res.arrayBuffer());
  expect({ url, status: res.status }).toEqual({ url, status: 403 });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(JSON.parse(new TextDecoder().decode(body))).toEqual({ error: expect.stringMatching(reason) });
  expect(Buffer.from(body).includes(Buffer.from(FILE.subarray(0, 40)))).toBe(false);
  const head = await fetch(url, { method: 'HEAD' });
  expect(head.status).toBe(403);
}

beforeAll(async () => {
  server = await startServer();
  owner = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
  config = ClientConfig.parse(await (await fetch(`${server.url}/v1/config`)).json());
});
afterAll(() => server?.close());

describe('a private scene’s model file', () => {
  it('is refused without the signed URL: 403 with the reason, no file', async () => {
    const id = await sceneWith('Secret', { public: false, models: [model('secret1')] });
    await expectRefused(derivative('secret1/v1'), /^This model belongs to a private scene: its file needs the signed URL the scene document gives .*has none/);
    // A token is not what opens it (the viewer's downloads carry none): only the signed URL.
    const withToken = await fetch(derivative('secret1/v1'), { headers: { authorization: `Bearer ${owner}` } });
    expect(withToken.status).toBe(403);
    await withToken.body?.cancel();
    // The scene itself is still the owner's alone.
    expect((await fetch(`${server.url}/v1/scenes/${id}`)).status).toBe(401);
  });

  it('is served at the URL the scene document gives its reader, cached privately until it expires', async () => {
    const id = await sceneWith('Secret 2', { public: false, models: [model('secret2')] });
    const scene = await getScene(id);
    const [doc] = scene.models;
    expect(doc.derivativeQuery).toMatch(/^exp=\d+&sig=[A-Za-z0-9_-]{43}$/);
    // The viewer's URL (src/scene/load-scene.ts), relative to the page.
    const url = new URL(modelFileUrl(config, doc), server.url).href;
    expect(url).toBe(derivative('secret2/v1', doc.derivativeQuery));
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(FILE);
    const cache = res.headers.get('cache-control') ?? '';
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(cache)?.[1]);
    expect({ cache, maxAge }).toEqual({ cache, maxAge: expect.any(Number) });
    expect(maxAge).toBeGreaterThanOrEqual(DERIVATIVE_URL_LIFETIME_S - 5);
    expect(maxAge).toBeLessThanOrEqual(DERIVATIVE_URL_LIFETIME_S + DERIVATIVE_URL_STEP_S);
    expect(cache).not.toMatch(/public|immutable/);
    // The browser's revalidation works at that URL.
    const again = await fetch(url, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    // The same query from GET /v1/models/{id}, for its readers.
    const modelRes = await fetch(`${server.url}/v1/models/secret2`, { headers: { authorization: `Bearer ${owner}` } });
    expect(((await modelRes.json()) as ModelDoc).derivativeQuery).toBe(doc.derivativeQuery);
    // The query is in the answers only, never in the stored documents.
    expect((await server.store.getScene(id))?.models[0]).toEqual(model('secret2'));
  });

  it('every answer that gives the owner the scene carries the signed queries', async () => {
    const id = await sceneWith('Secret 3', { public: false, models: [model('secret3')] });
    const headers = { authorization: `Bearer ${owner}`, 'content-type': 'application/json' };
    const answers: [string, Response][] = [
      ['GET', await fetch(`${server.url}/v1/scenes/${id}`, { headers })],
      ['PATCH', await fetch(`${server.url}/v1/scenes/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ name: 'Renamed' }) })],
      ['viewer-config', await fetch(`${server.url}/v1/scenes/${id}/viewer-config`, { method: 'PATCH', headers, body: JSON.stringify({ uiConfig: { rtcVideoEnabled: false, rtcAvatarsEnabled: true } }) })],
      ['thumbnail', await fetch(`${server.url}/v1/scenes/${id}/thumbnail`, { method: 'PUT', headers, body: JSON.stringify({ thumbnailUrl: 'https://example.com/t.png' }) })],
      ['duplicate', await fetch(`${server.url}/v1/scenes/${id}/duplicate`, { method: 'POST', headers: { authorization: `Bearer ${owner}` } })],
    ];
    for (const [name, res] of answers) {
      expect({ name, status: res.status }).toEqual({ name, status: name === 'duplicate' ? 201 : 200 });
      const scene = SceneDoc.parse(await res.json());
      const query = scene.models[0].derivativeQuery;
      expect({ name, query }).toEqual({ name, query: expect.stringMatching(/^exp=\d+&sig=/) });
      expect((await fetch(derivative('secret3/v1', query))).status).toBe(200);
    }
  });

  it('refuses an expired signature, saying so', async () => {
    await sceneWith('Secret 4', { public: false, models: [model('secret4')] });
    const key = await derivativeUrlKey(server.dataDir);
    const expired = signDerivativeQuery(key, 'secret4/v1', Date.now() / 1000 - DERIVATIVE_URL_LIFETIME_S - DERIVATIVE_URL_STEP_S - 1);
    await expectRefused(derivative('secret4/v1', expired), /private scene.*expired at \d{4}-\d\d-\d\dT.*fetch the scene document again/);
  });

  it('refuses a tampered or misplaced signature and odd queries, never with a 5xx', async () => {
    const id = await sceneWith('Secret 5', { public: false, models: [model('secret5'), model('secret6')] });
    const scene = await getScene(id);
    const query = scene.models[0].derivativeQuery!;
    const params = new URLSearchParams(query);
    const exp = params.get('exp')!;
    const sig = params.get('sig')!;
    const flipped = `${sig.slice(0, -2)}${sig.at(-2) === 'A' ? 'B' : 'A'}${sig.at(-1)}`;
    const cases = [
      `exp=${exp}&sig=${flipped}`,
      `exp=${Number(exp) + DERIVATIVE_URL_STEP_S}&sig=${sig}`,
      `exp=${exp}`,
      `sig=${sig}`,
      `exp=${exp}&exp=${exp}&sig=${sig}`,
      `exp=soon&sig=${sig}`,
      `exp=${exp}&sig=`,
      `exp=${'9'.repeat(400)}&sig=${sig}`,
    ];
    for (const tampered of cases) await expectRefused(derivative('secret5/v1', tampered), /^This model belongs to a private scene.*not valid/);
    // One model's signature does not open another's file.
    await expectRefused(derivative('secret6/v1', query), /not valid: its signature \(sig\) does not match/);
    // The untouched one still works.
    expect((await fetch(derivative('secret5/v1', query))).status).toBe(200);
  });

  it('keeps its key in DATA_DIR, private on disk, shared by every process of that DATA_DIR', async () => {
    const id = await sceneWith('Secret 7', { public: false, models: [model('secret7')] });
    const query = (await getScene(id)).models[0].derivativeQuery;
    expect(query).toMatch(/^exp=/);
    expect((await stat(join(server.dataDir, DERIVATIVE_URL_KEY_FILE))).mode & 0o777).toBe(0o600);
    const second = await startServer({ env: { DATA_DIR: server.dataDir } });
    try {
      const res = await fetch(`${second.url}/cdn/derivatives/secret7/v1/model_file.binz?${query}`);
      expect(res.status).toBe(200);
      const unsigned = await fetch(`${second.url}/cdn/derivatives/secret7/v1/model_file.binz`);
      expect(unsigned.status).toBe(403);
      await unsigned.body?.cancel();
    } finally {
      await second.close();
    }
  });
});

describe('a public scene’s model file', () => {
  it('keeps its plain URL and a year of public caching', async () => {
    for (const visibility of [undefined, true]) {
      const name = `open${visibility === undefined ? 'a' : 'b'}`;
      const id = await sceneWith('Open', { ...(visibility !== undefined ? { public: visibility } : {}), models: [model(name)] });
      const scene = await getScene(id, undefined);
      expect(scene.models[0]).toEqual(model(name));
      expect(modelFileUrl(config, scene.models[0])).toBe(`/cdn/derivatives/${name}/v1/model_file.binz`);
      const res = await fetch(derivative(`${name}/v1`));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(FILE);
    }
  });

  it('is public when it is in a public and a private scene (a private duplicate of a public scene)', async () => {
    const openId = await sceneWith('Shared', { models: [model('shared1')] });
    const secretId = await sceneWith('Also secret', { public: false, models: [] });
    await server.store.appendModel(secretId, model('shared1'));
    expect((await getScene(secretId)).models[0].derivativeQuery).toBeUndefined();
    // A duplicate is a new model document on the same container: still the public scene's file.
    const copy = await fetch(`${server.url}/v1/scenes/${openId}/duplicate`, { method: 'POST', headers: { authorization: `Bearer ${owner}` } });
    const copyId = ((await copy.json()) as SceneDoc)._id;
    await fetch(`${server.url}/v1/scenes/${copyId}`, { method: 'PATCH', headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ public: false }) });
    const copied = await getScene(copyId);
    expect(copied.models[0]).toMatchObject({ latestVersionKey: 'shared1/v1' });
    expect(copied.models[0].derivativeQuery).toBeUndefined();
    const res = await fetch(derivative('shared1/v1'));
    expect({ status: res.status, cache: res.headers.get('cache-control') }).toEqual({ status: 200, cache: IMMUTABLE });
  });

  it('follows the scene at once when its owner makes it private, and public again', async () => {
    const id = await sceneWith('Turning', { models: [model('turn1')] });
    const patch = (body: object) =>
      fetch(`${server.url}/v1/scenes/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await fetch(derivative('turn1/v1'))).status).toBe(200);
    const closed = SceneDoc.parse(await (await patch({ public: false })).json());
    expect(closed.models[0].derivativeQuery).toMatch(/^exp=/);
    await expectRefused(derivative('turn1/v1'), /private scene/);
    expect((await fetch(derivative('turn1/v1', closed.models[0].derivativeQuery))).status).toBe(200);
    const opened = SceneDoc.parse(await (await patch({ public: true })).json());
    expect(opened.models[0].derivativeQuery).toBeUndefined();
    expect((await fetch(derivative('turn1/v1'))).headers.get('cache-control')).toBe(IMMUTABLE);
  });
});

describe('a model file no scene lists', () => {
  it('is not served without a signature (nobody is given one), and a missing one is still a 404', async () => {
    await server.store.writeDerivative('orphan/v1', FILE);
    await expectRefused(derivative('orphan/v1'), /No scene lists model file 'orphan\/v1'/);
    const missing = await fetch(derivative('orphan/v2'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No model file for version 'orphan/v2'" });
  });
});
