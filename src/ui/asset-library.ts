import { proxy } from 'valtio';
import { AssetList, AssetListItem, THUMBNAIL_SIZE, type AssetUploadResult } from '../protocol/upload';
import { path, ServiceError, type ServiceClient } from '../service/client';

/**
 * The asset library's state and its client of the model service: the signed-in user's assets a
 * page at a time (GET /v1/assets), newest first; uploads join at the top; thumbnails are rendered
 * in the browser for assets that have none (src/viewer/asset-thumbnail.ts, loaded only then) and
 * stored on the server (PUT /v1/assets/{id}/thumbnail), one at a time.
 */

/** A tile's picture: stored (url), being made, or none (with why). */
export type ThumbnailState = { kind: 'stored'; url: string } | { kind: 'rendering' } | { kind: 'none'; reason?: string };

export interface LibraryAsset {
  id: string;
  name: string;
  url: string;
  byteLength: number;
  createdAt: string;
  thumbnail: ThumbnailState;
}

export interface AssetLibraryState {
  assets: LibraryAsset[];
  /** 'idle' before the first page, 'loading' while a page comes, 'ready', or 'failed' with `error`. */
  status: 'idle' | 'loading' | 'ready' | 'failed';
  error: string | null;
  nextCursor: string | null;
}

export function createAssetLibraryState(): AssetLibraryState {
  return proxy<AssetLibraryState>({ assets: [], status: 'idle', error: null, nextCursor: null });
}

export interface AssetClient {
  /** The model service's client (its base URL found once, the signed-in user's token). */
  service: () => Promise<ServiceClient>;
  /** Renders a container as a picture; absent where nothing can render (tests, no WebGL). */
  render?: (containerUrl: string, size: number) => Promise<Blob>;
}

function toLibraryAsset(item: AssetListItem, base: string): LibraryAsset {
  return {
    id: item._id,
    name: item.name,
    url: item.url,
    byteLength: item.byteLength,
    createdAt: item.createdAt,
    thumbnail: item.thumbnailUrl ? { kind: 'stored', url: `${base}${item.thumbnailUrl}` } : { kind: 'none' },
  };
}

/** A failure in the library's words: the service's reason, else the status, else the message. */
function errorText(error: unknown, what: string): string {
  if (error instanceof ServiceError && error.kind === 'status') return error.reason ? `${what}: ${error.reason}` : `${what} (HTTP ${error.status}).`;
  return (error as Error).message;
}

/** Loads the first page (`more` false) or the next one, appending; keeps what is listed on failure. */
export async function loadAssets(state: AssetLibraryState, client: AssetClient, more = false): Promise<void> {
  if (state.status === 'loading') return;
  if (more && state.nextCursor === null) return;
  state.status = 'loading';
  state.error = null;
  try {
    const service = await client.service();
    const query = more && state.nextCursor ? `?cursor=${encodeURIComponent(state.nextCursor)}` : '';
    const page = await service.request('GET', `/v1/assets${query}`, { schema: AssetList, auth: 'required', what: 'The asset list' }).catch((error: unknown) => {
      throw new Error(errorText(error, 'The asset list could not be loaded'));
    });
    const items = page.assets.map((item) => toLibraryAsset(item, service.base));
    const known = new Set(more ? state.assets.map((a) => a.id) : []);
    state.assets = more ? [...state.assets, ...items.filter((a) => !known.has(a.id))] : items;
    state.nextCursor = page.nextCursor;
    state.status = 'ready';
  } catch (error) {
    state.status = 'failed';
    state.error = (error as Error).message;
  }
}

/** An upload's answer joins the list at the top. */
export function addUploaded(state: AssetLibraryState, result: AssetUploadResult): LibraryAsset {
  const asset: LibraryAsset = { id: result._id, name: result.name, url: result.url, byteLength: result.byteLength, createdAt: result.createdAt, thumbnail: { kind: 'none' } };
  state.assets = [asset, ...state.assets.filter((a) => a.id !== asset.id)];
  return state.assets[0]!;
}

/**
 * Renders and stores the thumbnail of every listed asset that has none and was not tried yet, one
 * after the other. A failure leaves the neutral tile, says why on it, and is not retried until the
 * page is loaded again.
 */
export async function fillThumbnails(state: AssetLibraryState, client: AssetClient): Promise<void> {
  if (!client.render) return;
  for (;;) {
    const asset = state.assets.find((a) => a.thumbnail.kind === 'none' && a.thumbnail.reason === undefined);
    if (!asset) return;
    asset.thumbnail = { kind: 'rendering' };
    asset.thumbnail = await makeThumbnail(asset, client);
  }
}

async function makeThumbnail(asset: LibraryAsset, client: AssetClient): Promise<ThumbnailState> {
  try {
    const service = await client.service();
    const base = service.base;
    // A relative CDN URL is on the model service's server.
    const containerUrl = /^https?:\/\//.test(asset.url) ? asset.url : `${base}${asset.url}`;
    const picture = await client.render!(containerUrl, THUMBNAIL_SIZE);
    const type = picture.type === 'image/webp' ? 'image/webp' : 'image/png';
    const item = await service
      .request('PUT', path`/v1/assets/${asset.id}/thumbnail`, { body: picture, contentType: type, schema: AssetListItem, auth: 'required', what: 'The stored thumbnail' })
      .catch((error: unknown) => {
        throw new Error(errorText(error, 'The thumbnail was not stored'));
      });
    return item.thumbnailUrl ? { kind: 'stored', url: `${base}${item.thumbnailUrl}` } : { kind: 'none', reason: 'The server kept no thumbnail.' };
  } catch (error) {
    return { kind: 'none', reason: (error as Error).message };
  }
}

/** A picture that failed to load shows the neutral tile (never a broken image). */
export function thumbnailFailed(state: AssetLibraryState, id: string): void {
  const asset = state.assets.find((a) => a.id === id);
  if (asset && asset.thumbnail.kind === 'stored') asset.thumbnail = { kind: 'none', reason: 'The thumbnail could not be loaded.' };
}
