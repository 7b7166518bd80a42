import { useEffect, useMemo, useRef } from 'react';
import { useSnapshot } from 'valtio';
import { getToken, signInUrl } from '../service/token';
import { AssetUploadResult } from '../protocol/upload';
import { createServiceClient, type ServiceClient } from '../service/client';
import { addUploaded, createAssetLibraryState, fillThumbnails, loadAssets, thumbnailFailed, type AssetClient, type LibraryAsset } from './asset-library';
import { UploadPanel, formatBytes, modelServiceUrl, useUpload } from './upload';

const parseAssetResult = (body: unknown) => AssetUploadResult.parse(body);

/** The browser's client: the configured model service, the signed-in user's token, thumbnails rendered with three.js (loaded on first use). */
function browserClient(): AssetClient {
  let service: Promise<ServiceClient> | null = null;
  return {
    service: () => (service ??= modelServiceUrl().then((baseUrl) => createServiceClient({ baseUrl, token: getToken }))),
    render: async (url, size) => (await import('../viewer/asset-thumbnail')).renderAssetThumbnail(url, size),
  };
}

/** The neutral tile of an asset without a picture: a cube outline. */
function NeutralTile({ note }: { note?: string }) {
  return (
    <div className="asset-thumb asset-thumb-none" title={note}>
      <svg viewBox="0 0 48 48" aria-hidden="true">
        <path d="M24 6 40 15v18L24 42 8 33V15z M8 15l16 9 16-9 M24 24v18" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
      </svg>
    </div>
  );
}

function Tile({ asset, onPlace, onImageError }: { asset: LibraryAsset; onPlace?: (assetId: string) => void; onImageError: () => void }) {
  const { thumbnail } = asset;
  return (
    <li className="asset-tile" data-asset-id={asset.id}>
      {thumbnail.kind === 'stored' ? (
        <img className="asset-thumb" src={thumbnail.url} alt={`Thumbnail of ${asset.name}`} width={128} height={128} loading="lazy" onError={onImageError} />
      ) : (
        <NeutralTile note={thumbnail.kind === 'rendering' ? 'Rendering a preview…' : thumbnail.reason} />
      )}
      <div className="asset-meta">
        <span className="asset-name" title={asset.name}>
          {asset.name}
        </span>
        <span className="muted">
          {formatBytes(asset.byteLength)}
          {thumbnail.kind === 'rendering' && ' · rendering preview…'}
          {thumbnail.kind === 'none' && thumbnail.reason && ' · no preview'}
        </span>
      </div>
      {onPlace && (
        <button type="button" className="asset-place" onClick={() => onPlace(asset.id)} aria-label={`Place ${asset.name}`}>
          Place
        </button>
      )}
    </li>
  );
}

/**
 * The signed-in user's assets (the asset CDN's reusable models for instanced asset groups) with
 * thumbnails, and their upload (the same drop zone, progress and validator report as a model's).
 * The editor passes `onPlace` to put an asset into the scene.
 */
export function AssetLibrary({ signedIn, onPlace, returnTo = '/' }: { signedIn: boolean; onPlace?: (assetId: string) => void; returnTo?: string }) {
  const state = useMemo(createAssetLibraryState, []);
  const client = useRef<AssetClient | null>(null);
  client.current ??= browserClient();
  const snap = useSnapshot(state);

  useEffect(() => {
    if (!signedIn) return;
    void loadAssets(state, client.current!).then(() => fillThumbnails(state, client.current!));
  }, [signedIn, state]);

  const upload = useUpload('/v1/assets', parseAssetResult, (result) => {
    addUploaded(state, result);
    void fillThumbnails(state, client.current!);
  });

  if (!signedIn) {
    return (
      <section className="asset-library" aria-label="Assets">
        <p>
          <a href={signInUrl(returnTo)}>Sign in</a> to see and upload your assets.
        </p>
      </section>
    );
  }

  return (
    <section className="asset-library" aria-label="Assets">
      <UploadPanel label="Upload an asset" inputLabel="Choose asset files" upload={upload} returnTo={returnTo} doneText={(fileName, result) => `${fileName} is in your assets as '${result.name}'.`}>
        {(choose) => (
          <>
            Add an asset: drop a <code>.glb</code>, or a <code>.gltf</code> with its files, here, or {choose}.
          </>
        )}
      </UploadPanel>
      {snap.status === 'failed' && (
        <p className="error" role="alert">
          {snap.error}{' '}
          <button type="button" onClick={() => void loadAssets(state, client.current!, snap.assets.length > 0).then(() => fillThumbnails(state, client.current!))}>
            Try again
          </button>
        </p>
      )}
      {snap.status === 'loading' && snap.assets.length === 0 && <p>Loading…</p>}
      {snap.status === 'ready' && snap.assets.length === 0 && <p>No assets yet.</p>}
      {snap.assets.length > 0 && (
        <ul className="asset-grid" aria-label="Your assets">
          {snap.assets.map((asset) => (
            <Tile key={asset.id} asset={asset as LibraryAsset} onPlace={onPlace} onImageError={() => thumbnailFailed(state, asset.id)} />
          ))}
        </ul>
      )}
      {snap.nextCursor !== null && snap.status !== 'failed' && (
        <button type="button" className="asset-more" disabled={snap.status === 'loading'} onClick={() => void loadAssets(state, client.current!, true).then(() => fillThumbnails(state, client.current!))}>
          More assets
        </button>
      )}
    </section>
  );
}
