import { describe, expect, it } from 'vitest';
import { addUploaded, createAssetLibraryState, fillThumbnails, loadAssets, thumbnailFailed, type AssetClient } from '../../../src/ui/asset-library';
import type { AssetListItem, AssetUploadResult } from '../../../src/protocol/upload';
import { createServiceClient } from '../../../src/service/client';

const item = (id: string, thumbnailUrl: string | null = null): AssetListItem => ({
  _id: id,
  name: `Asset ${id}`,
  sourceFileName: `${id}.glb`,
  path: `assets/${id}/model.3dxa`,
  byteLength: 1000,
  createdAt: '2025-01-01T00:00:00.000Z',
  url: `/cdn/assets/${id}/model.3dxa`,
  thumbnailUrl,
});

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A fake model service: pages of assets, and thumbnails stored by PUT. */
function fakeClient(pages: Record<string, { assets: AssetListItem[]; nextCursor: string | null }>, options: { render?: AssetClient['render']; putStatus?: number } = {}) {
  const calls: { url: string; method: string; type?: string; auth?: string }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const headers = (init?.headers ?? {}) as Record<string, string>;
      calls.push({ url, method: init?.method ?? 'GET', type: headers['content-type'], auth: headers.authorization });
      if (init?.method === 'PUT') {
        if (options.putStatus && options.putStatus !== 200) return json(options.putStatus, { error: 'only its owner may set its thumbnail' });
        const id = decodeURIComponent(url.split('/')[5]!);
        return json(200, item(id, `/v1/assets/${id}/thumbnail?v=1`));
      }
      const cursor = new URL(url).searchParams.get('cursor') ?? '';
      const page = pages[cursor];
      return page ? json(200, page) : json(400, { error: 'cursor is not one this server gave' });
    }) as typeof globalThis.fetch;
  // The base URL with a trailing slash: the client trims it once.
  const service = createServiceClient({ baseUrl: 'http://models.test/', token: async () => 'T', fetch });
  const client: AssetClient = { service: async () => service, render: options.render };
  return { client, calls };
}

describe('the asset library state', () => {
  it('loads the first page with the token, then the next by its cursor, without repeats', async () => {
    const { client, calls } = fakeClient({ '': { assets: [item('a', '/v1/assets/a/thumbnail?v=1'), item('b')], nextCursor: 'c1' }, c1: { assets: [item('b'), item('c')], nextCursor: null } });
    const state = createAssetLibraryState();
    await loadAssets(state, client);
    expect(state.status).toBe('ready');
    expect(state.assets.map((a) => a.id)).toEqual(['a', 'b']);
    expect(state.assets[0]!.thumbnail).toEqual({ kind: 'stored', url: 'http://models.test/v1/assets/a/thumbnail?v=1' });
    expect(state.assets[1]!.thumbnail).toEqual({ kind: 'none' });
    expect(calls[0]).toMatchObject({ url: 'http://models.test/v1/assets', auth: 'Bearer T' });
    await loadAssets(state, client, true);
    expect(calls[1]!.url).toBe('http://models.test/v1/assets?cursor=c1');
    expect(state.assets.map((a) => a.id)).toEqual(['a', 'b', 'c']);
    expect(state.nextCursor).toBeNull();
    await loadAssets(state, client, true);
    expect(calls).toHaveLength(2);
  });

  it("a failed page says the server's error and keeps the assets listed", async () => {
    const { client } = fakeClient({ '': { assets: [item('a')], nextCursor: 'gone' } });
    const state = createAssetLibraryState();
    await loadAssets(state, client);
    await loadAssets(state, client, true);
    expect(state.status).toBe('failed');
    expect(state.error).toBe('The asset list could not be loaded: cursor is not one this server gave');
    expect(state.assets.map((a) => a.id)).toEqual(['a']);
  });

  it('puts an upload at the top and renders and stores the missing thumbnails, one at a time', async () => {
    const rendered: string[] = [];
    let running = 0;
    let most = 0;
    const render = async (url: string, size: number) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      rendered.push(`${url} ${size}`);
      return new Blob([new Uint8Array([0x52, 0x49, 0x46, 0x46])], { type: 'image/webp' });
    };
    const { client, calls } = fakeClient({ '': { assets: [item('a', '/v1/assets/a/thumbnail?v=1'), item('b')], nextCursor: null } }, { render });
    const state = createAssetLibraryState();
    await loadAssets(state, client);
    addUploaded(state, { ...item('new'), validation: { validatorVersion: '2', errors: 0, warnings: 0, infos: 0, hints: 0, repaired: 0, messages: [], truncated: false } } as unknown as AssetUploadResult);
    expect(state.assets.map((a) => a.id)).toEqual(['new', 'a', 'b']);
    await Promise.all([fillThumbnails(state, client), fillThumbnails(state, client)]);
    expect(rendered.sort()).toEqual(['http://models.test/cdn/assets/b/model.3dxa 256', 'http://models.test/cdn/assets/new/model.3dxa 256']);
    expect(calls.filter((c) => c.method === 'PUT').map((c) => [c.url, c.type])).toEqual(
      expect.arrayContaining([
        ['http://models.test/v1/assets/new/thumbnail', 'image/webp'],
        ['http://models.test/v1/assets/b/thumbnail', 'image/webp'],
      ]),
    );
    expect(state.assets.map((a) => a.thumbnail)).toEqual([
      { kind: 'stored', url: 'http://models.test/v1/assets/new/thumbnail?v=1' },
      { kind: 'stored', url: 'http://models.test/v1/assets/a/thumbnail?v=1' },
      { kind: 'stored', url: 'http://models.test/v1/assets/b/thumbnail?v=1' },
    ]);
    // A picture that does not load falls back to the neutral tile, and says so.
    thumbnailFailed(state, 'a');
    expect(state.assets[1]!.thumbnail).toEqual({ kind: 'none', reason: 'The thumbnail could not be loaded.' });
  });

  it('a failed render or refused store leaves the neutral tile with the reason, tried once', async () => {
    let tries = 0;
    const failing = fakeClient({ '': { assets: [item('x')], nextCursor: null } }, {
      render: async () => {
        tries++;
        throw new Error('WebGL is not available');
      },
    });
    const state = createAssetLibraryState();
    await loadAssets(state, failing.client);
    await fillThumbnails(state, failing.client);
    await fillThumbnails(state, failing.client);
    expect(tries).toBe(1);
    expect(state.assets[0]!.thumbnail).toEqual({ kind: 'none', reason: 'WebGL is not available' });

    const refused = fakeClient({ '': { assets: [item('y')], nextCursor: null } }, { render: async () => new Blob([new Uint8Array([0x89])], { type: 'image/png' }), putStatus: 403 });
    const other = createAssetLibraryState();
    await loadAssets(other, refused.client);
    await fillThumbnails(other, refused.client);
    expect(refused.calls.find((c) => c.method === 'PUT')!.type).toBe('image/png');
    expect(other.assets[0]!.thumbnail).toEqual({ kind: 'none', reason: 'The thumbnail was not stored: only its owner may set its thumbnail' });
  });
});
