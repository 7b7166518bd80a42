import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssetList, AssetListItem, AssetUploadResult, MAX_THUMBNAIL_BYTES, UploadError } from '../../src/protocol/upload.ts';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { MODELS_DIR, rawRequest } from './helpers.ts';
import { postRaw, readGlb, startUploadServer, type UploadServer } from './upload-helpers.ts';

describe('asset CDN', () => {
  let server: UploadServer;
  beforeAll(async () => {
    server = await startUploadServer();
  });
  afterAll(() => server.close());

  it('uploads an asset (validated, optimised) and serves it at {assetCdn}/assets/{id}/model.3dxa with ETag caching', async () => {
    const bytes = new Uint8Array(await readFile(join(MODELS_DIR, 'Duck.glb')));
    const res = await postRaw(server, '/v1/assets', bytes, 'Duck.glb', await server.auth());
    const body = await res.json();
    expect({ status: res.status, error: body.error }).toEqual({ status: 201, error: undefined });
    const asset = AssetUploadResult.parse(body);
    expect(asset).toMatchObject({ name: 'Duck', sourceFileName: 'Duck.glb', ownerId: server.userId(), path: `assets/${asset._id}/model.3dxa` });
    expect(asset.url).toBe(`/cdn/assets/${asset._id}/model.3dxa`);
    expect(asset.validation.errors).toBe(0);

    const file = await fetch(`${server.url}${asset.url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(file.headers.get('access-control-allow-origin')).toBe('*');
    const etag = file.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const container = new Uint8Array(await file.arrayBuffer());
    expect(container.byteLength).toBe(asset.byteLength);
    const decoded = await decodeContainer(container);
    expect(decoded.header.metadata?.sourceFileName).toBe('Duck.glb');
    const doc = await readGlb(decoded.asset);
    // The duck's one mesh in the default scene; its levels of detail and impostor beside it.
    const drawn = new Set<unknown>();
    doc.getRoot().getDefaultScene()!.traverse((node) => node.getMesh() && drawn.add(node.getMesh()));
    expect(drawn.size).toBe(1);
    expect(doc.getRoot().listScenes().map((scene) => scene.getName())).toContain('impostor');

    const again = await fetch(`${server.url}${asset.url}`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);

    const meta = await (await fetch(`${server.url}/v1/assets/${asset._id}`)).json();
    expect(meta).toMatchObject({ _id: asset._id, name: 'Duck', url: asset.url });
  });

  it('names an asset from the form field and needs a signed-in user', async () => {
    const form = new FormData();
    form.append('name', 'Rubber duck');
    form.append('file', new Blob([new Uint8Array(await readFile(join(MODELS_DIR, 'BoxAnimated.glb')))]), 'BoxAnimated.glb');
    const res = await fetch(`${server.url}/v1/assets`, { method: 'POST', headers: await server.auth(), body: form });
    expect(res.status).toBe(201);
    expect(AssetUploadResult.parse(await res.json()).name).toBe('Rubber duck');

    const anonymous = await postRaw(server, '/v1/assets', new Uint8Array(await readFile(join(MODELS_DIR, 'Duck.glb'))), 'Duck.glb');
    expect(anonymous.status).toBe(401);
  });

  it('refuses what is not glTF (400 with the report), unknown assets (404) and bad ids (400)', async () => {
    const bad = await postRaw(server, '/v1/assets', new TextEncoder().encode('nope'), 'nope.glb', await server.auth());
    expect(bad.status).toBe(400);
    expect(UploadError.parse(await bad.json()).validation?.errors).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/cdn/assets/NoSuchAsset/model.3dxa`)).status).toBe(404);
    expect((await fetch(`${server.url}/v1/assets/NoSuchAsset`)).status).toBe(404);
    expect((await rawRequest(Number(new URL(server.url).port), '/cdn/assets/..%2F..%2Fsecret/model.3dxa')).status).toBe(400);
  });
});

describe('asset CDN on a configured path', () => {
  let server: UploadServer;
  beforeAll(async () => {
    server = await startUploadServer({ ASSET_CDN_URL: '/static/cdn' });
  });
  afterAll(() => server.close());

  it('serves assets below the path of ASSET_CDN_URL', { timeout: 120_000 }, async () => {
    const res = await postRaw(server, '/v1/assets', new Uint8Array(await readFile(join(MODELS_DIR, 'Box-draco.glb'))), 'Box-draco.glb', await server.auth());
    const asset = AssetUploadResult.parse(await res.json());
    expect(asset.url).toBe(`/static/cdn/assets/${asset._id}/model.3dxa`);
    expect((await fetch(`${server.url}${asset.url}`)).status).toBe(200);
  });
});

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const WEBP_1X1 = Buffer.from('UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=', 'base64');

describe('asset list and thumbnails', () => {
  let server: UploadServer;
  let duck: Uint8Array<ArrayBuffer>;
  beforeAll(async () => {
    server = await startUploadServer();
    duck = new Uint8Array(await readFile(join(MODELS_DIR, 'Box-draco.glb')));
  });
  afterAll(() => server.close());

  async function upload(name: string, user = 'alice') {
    const form = new FormData();
    form.append('name', name);
    form.append('file', new Blob([new Uint8Array(duck)]), 'Box-draco.glb');
    const res = await fetch(`${server.url}/v1/assets`, { method: 'POST', headers: await server.auth(user), body: form });
    expect(res.status).toBe(201);
    return AssetUploadResult.parse(await res.json());
  }
  const list = async (query = '', user = 'alice') => fetch(`${server.url}/v1/assets${query}`, { headers: await server.auth(user) });

  it("lists the signed-in user's assets, newest first, a page at a time, and nobody else's", async () => {
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await upload(`Asset ${i}`));
    await upload("Bob's asset", 'bob');

    const all = AssetList.parse(await (await list()).json());
    expect(all.assets.map((a) => a.name)).toEqual(['Asset 4', 'Asset 3', 'Asset 2', 'Asset 1', 'Asset 0']);
    expect(all.nextCursor).toBeNull();
    expect(all.assets[0]).toMatchObject({ _id: mine[4]!._id, url: `/cdn/assets/${mine[4]!._id}/model.3dxa`, thumbnailUrl: null, ownerId: server.userId() });

    const names: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const res = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const page = AssetList.parse(await res.json());
      expect(page.assets.length).toBeLessThanOrEqual(2);
      names.push(...page.assets.map((a) => a.name));
      cursor = page.nextCursor;
      pages++;
    }
    expect({ names, pages }).toEqual({ names: all.assets.map((a) => a.name), pages: 3 });

    const bobs = AssetList.parse(await (await list('', 'bob')).json());
    expect(bobs.assets.map((a) => a.name)).toEqual(["Bob's asset"]);

    expect((await fetch(`${server.url}/v1/assets`)).status).toBe(401);
    for (const bad of ['?limit=0', '?limit=101', '?limit=x', '?cursor=nonsense']) {
      const res = await list(bad);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect((await res.json()).error).toMatch(/limit|cursor/);
    }
  });

  it('stores a PNG or WebP thumbnail from the owner only, checks its type and size, and serves it', async () => {
    const asset = await upload('With picture');
    const put = async (body: Uint8Array, type: string, user = 'alice') =>
      fetch(`${server.url}/v1/assets/${asset._id}/thumbnail`, { method: 'PUT', headers: { ...(await server.auth(user)), 'content-type': type }, body: new Uint8Array(body) });

    expect((await fetch(`${server.url}/v1/assets/${asset._id}/thumbnail`)).status).toBe(404);
    expect((await fetch(`${server.url}/v1/assets/${asset._id}/thumbnail`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: PNG_1X1 })).status).toBe(401);
    const other = await put(PNG_1X1, 'image/png', 'bob');
    expect(other.status).toBe(403);
    expect((await other.json()).error).toMatch(/only its owner/);
    const jpeg = await put(PNG_1X1, 'image/jpeg');
    expect(jpeg.status).toBe(415);
    expect((await jpeg.json()).error).toBe("A thumbnail must be image/png or image/webp, not 'image/jpeg'");
    const lying = await put(WEBP_1X1, 'image/png');
    expect(lying.status).toBe(400);
    expect((await lying.json()).error).toBe('The thumbnail is not a PNG picture (it is image/webp)');
    const huge = await put(new Uint8Array(MAX_THUMBNAIL_BYTES + 1), 'image/png');
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toBe(`A thumbnail must be at most ${MAX_THUMBNAIL_BYTES} bytes`);
    expect((await fetch(`${server.url}/v1/assets/NoSuchAsset/thumbnail`, { method: 'PUT', headers: { ...(await server.auth()), 'content-type': 'image/png' }, body: PNG_1X1 })).status).toBe(404);

    const ok = await put(PNG_1X1, 'image/png');
    expect(ok.status).toBe(200);
    const item = AssetListItem.parse(await ok.json());
    expect(item.thumbnailUrl).toMatch(new RegExp(`^/v1/assets/${asset._id}/thumbnail\\?v=`));
    const got = await fetch(`${server.url}${item.thumbnailUrl}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer())).toEqual(PNG_1X1);
    const etag = got.headers.get('etag')!;
    expect((await fetch(`${server.url}${item.thumbnailUrl}`, { headers: { 'if-none-match': etag } })).status).toBe(304);

    // Replaced by a WebP: served as WebP, listed with the new URL.
    const webp = AssetListItem.parse(await (await put(WEBP_1X1, 'image/webp')).json());
    const listed = AssetList.parse(await (await list()).json()).assets.find((a) => a._id === asset._id)!;
    expect(listed.thumbnailUrl).toBe(webp.thumbnailUrl);
    const served = await fetch(`${server.url}${listed.thumbnailUrl}`);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(WEBP_1X1);
    // The container is untouched.
    expect((await fetch(`${server.url}${asset.url}`)).status).toBe(200);
  });
});
