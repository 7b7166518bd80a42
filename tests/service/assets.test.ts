import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssetUploadResult, UploadError } from '../../src/protocol/upload.ts';
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
    expect(doc.getRoot().listMeshes()).toHaveLength(1);

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

  it('serves assets below the path of ASSET_CDN_URL', async () => {
    const res = await postRaw(server, '/v1/assets', new Uint8Array(await readFile(join(MODELS_DIR, 'Box-draco.glb'))), 'Box-draco.glb', await server.auth());
    const asset = AssetUploadResult.parse(await res.json());
    expect(asset.url).toBe(`/static/cdn/assets/${asset._id}/model.3dxa`);
    expect((await fetch(`${server.url}${asset.url}`)).status).toBe(200);
  });
});
