import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { importModel } from '../../../src/server/import.ts';
import { MAX_TEXTURE_BYTES } from '../../../src/protocol/textures.ts';
import { MODELS_DIR, solidPng, startServer, type TestServer } from '../helpers.ts';
import { backendEnv, unavailable, useBackends } from '../backends.ts';

/** POST/GET /v1/models/{id}/textures: the editor's texture upload (issue 11). */
describe.each(useBackends())('uploaded textures on %s', (backend) => {
  let server: TestServer;
  let ada: string;
  let grace: string;
  let seededModel: string;
  let modelId: string;
  let privateModel: string;

  beforeAll(async () => {
    if (unavailable(backend)) return;
    server = await startServer({ env: await backendEnv(backend) });
    const imported = await importModel(server.store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { name: 'Seeded' });
    seededModel = imported.model._id;
    ada = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
    grace = (await signTestToken(server.dataDir, { firstName: 'Grace', lastName: 'Hopper' })).token;
    const copy = await (await post(`/v1/scenes/${imported.scene._id}/duplicate`, ada)).json();
    modelId = copy.models[0]._id;
    // A private copy: its textures are not for shared caches.
    const secret = await (await post(`/v1/scenes/${copy._id}/duplicate`, ada)).json();
    const patched = await fetch(`${server.url}/v1/scenes/${secret._id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ada}`, 'content-type': 'application/json' },
      body: JSON.stringify({ public: false }),
    });
    expect(patched.status).toBe(200);
    privateModel = secret.models[0]._id;
  }, 60_000);
  afterAll(() => server?.close());

  function post(path: string, token: string | null, body?: Uint8Array, type = 'image/png') {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': type } : {}) },
      body: body as BodyInit | undefined,
    });
  }
  const upload = (model: string, bytes: Uint8Array, type = 'image/png', token: string | null = ada) => post(`/v1/models/${model}/textures`, token, bytes, type);

  it.skipIf(unavailable(backend))('stores an image content-addressed and serves it immutable with its type, ETag and 304', async () => {
    const png = solidPng(4, 4, [200, 30, 40]);
    const response = await upload(modelId, png);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { textureId: string; url: string };
    const hash = createHash('sha256').update(png).digest('hex').slice(0, 24);
    expect(body).toEqual({ textureId: `u-${hash}`, url: `/v1/models/${modelId}/textures/u-${hash}` });
    expect(response.headers.get('location')).toBe(body.url);

    // The same image again: the same id, one file.
    expect(await (await upload(modelId, png)).json()).toEqual(body);
    expect(await readdir(join(server.dataDir, 'textures', modelId))).toEqual([`u-${hash}.png`]);

    const served = await fetch(`${server.url}${body.url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = served.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    const again = await fetch(`${server.url}${body.url}`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    // JPEG and WebP are kept with their own type.
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
    const jpegBody = (await (await upload(modelId, jpeg, 'image/jpeg')).json()) as { url: string };
    expect((await fetch(`${server.url}${jpegBody.url}`)).headers.get('content-type')).toBe('image/jpeg');
    const webp = new Uint8Array([0x52, 0x49, 0x46, 0x46, 4, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c]);
    const webpBody = (await (await upload(modelId, webp, 'image/webp')).json()) as { url: string };
    expect((await fetch(`${server.url}${webpBody.url}`)).headers.get('content-type')).toBe('image/webp');
  });

  it.skipIf(unavailable(backend))("only the owner and editors of a scene listing the model upload (401, 403); a private scene's textures are private", async () => {
    const png = solidPng(2, 2, [1, 2, 3]);
    const anonymous = await upload(modelId, png, 'image/png', null);
    expect(anonymous.status).toBe(401);
    const stranger = await upload(modelId, png, 'image/png', grace);
    expect(stranger.status).toBe(403);
    expect(((await stranger.json()) as { error: string }).error).toMatch(/You may not change model/);
    // Nobody may change the seeded (ownerless) scene's model.
    expect((await upload(seededModel, png)).status).toBe(403);
    expect((await upload('no-such-model', png)).status).toBe(404);

    const { url } = (await (await upload(privateModel, png)).json()) as { url: string };
    expect((await fetch(`${server.url}${url}`)).status).toBe(401);
    expect((await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${grace}` } })).status).toBe(403);
    const mine = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${ada}` } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
  });

  it.skipIf(unavailable(backend))('refuses a type mismatch (400 naming both), a non-image (400), another content type (415), more than 16 MB (413) and stores nothing', async () => {
    const png = solidPng(2, 2, [9, 9, 9]);
    const mismatch = await upload(modelId, png, 'image/jpeg');
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: string }).error).toBe("The texture's bytes are image/png but it was sent as image/jpeg");
    const text = await upload(modelId, new TextEncoder().encode('not an image at all'), 'image/png');
    expect(text.status).toBe(400);
    expect(((await text.json()) as { error: string }).error).toMatch(/not a PNG, JPEG or WebP image/);
    const json = await upload(modelId, new TextEncoder().encode('{}'), 'application/json');
    expect(json.status).toBe(415);
    expect(((await json.json()) as { error: string }).error).toBe("A texture must be sent as image/png, image/jpeg, image/webp, not 'application/json'");
    const gif = await upload(modelId, new TextEncoder().encode('GIF89a'), 'image/gif');
    expect(gif.status).toBe(415);
    const huge = new Uint8Array(MAX_TEXTURE_BYTES + 1);
    huge.set(png);
    const tooLarge = await upload(modelId, huge);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: string }).error).toMatch(/larger than the limit of 16777216 bytes/);
    const files = await readdir(join(server.dataDir, 'textures', modelId));
    const hash = createHash('sha256').update(png).digest('hex').slice(0, 24);
    expect(files.some((f) => f.startsWith(`u-${hash}`))).toBe(false);
    expect(files.some((f) => f.endsWith('.tmp'))).toBe(false);

    expect((await fetch(`${server.url}/v1/models/${modelId}/textures/../../etc/passwd`)).status).toBe(404);
    const badId = await fetch(`${server.url}/v1/models/${modelId}/textures/1`);
    expect(badId.status).toBe(400);
    const missing = await fetch(`${server.url}/v1/models/${modelId}/textures/u-${'0'.repeat(24)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe(`Model '${modelId}' has no uploaded texture 'u-${'0'.repeat(24)}'`);
  });
});
