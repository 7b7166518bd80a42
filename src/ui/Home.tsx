import { useEffect, useState } from 'react';
import { hasTokenGenerator, readStoredToken, setTokenGenerator, signInUrl, storedTokenGenerator } from '../service/token';
import { ModelUploadResult } from '../protocol/upload';
import { SceneList, type SceneSummary } from '../protocol/scene-api';
import { createServiceClient, ServiceError } from '../service/client';
import { AssetLibrary } from './AssetLibrary';
import { UploadPanel, useUpload } from './upload';

type SceneItem = SceneSummary;

/** The scene list of this site (GET /v1/scenes, as a visitor: the public scenes). */
export async function listScenes(doFetch?: typeof fetch): Promise<SceneItem[]> {
  try {
    return (await createServiceClient({ baseUrl: '', fetch: doFetch }).request('GET', '/v1/scenes', { schema: SceneList, auth: 'none', what: 'The scene list' })).scenes;
  } catch (error) {
    if (error instanceof ServiceError && error.kind === 'status') throw new Error(`The scene list request failed: ${error.status}.`);
    throw error;
  }
}

const parseModelResult = (body: unknown) => ModelUploadResult.parse(body);
const openScene = (result: ModelUploadResult) => {
  if (result.sceneId) window.location.assign(`/embed/${encodeURIComponent(result.sceneId)}`);
};

/** Upload of a GLB or glTF as a new scene: drop zone, file picker, progress bar, the validator's findings. */
function Upload({ signedIn }: { signedIn: boolean }) {
  const upload = useUpload('/v1/models', parseModelResult, openScene);
  if (!signedIn) {
    return (
      <section className="upload" aria-label="Upload a model">
        <p>
          <a href={signInUrl('/')}>Sign in to upload</a> a GLB or glTF model.
        </p>
      </section>
    );
  }
  return (
    <UploadPanel label="Upload a model" inputLabel="Choose model files" upload={upload} returnTo="/" doneText={(fileName) => `${fileName} is ready: opening the scene…`}>
      {(choose) => (
        <>
          Drop a <code>.glb</code>, or a <code>.gltf</code> with its <code>.bin</code> and image files, here, or {choose}.
        </>
      )}
    </UploadPanel>
  );
}

/** The home page: the upload of a model, the scenes (open in the viewer or the editor) and the asset library. */
export function Home() {
  const [scenes, setScenes] = useState<SceneItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [signedIn] = useState(() => {
    if (!hasTokenGenerator() && readStoredToken()) setTokenGenerator(storedTokenGenerator());
    return hasTokenGenerator();
  });
  useEffect(() => {
    listScenes()
      .then(setScenes)
      .catch((e: Error) => setError(e.message));
  }, []);
  return (
    <main className="home">
      <h1>
        <img src="/assets/images/logo.svg" alt="" /> Parametricos
      </h1>
      <Upload signedIn={signedIn} />
      <h2>Scenes</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!scenes && !error && <p>Loading…</p>}
      {scenes && scenes.length === 0 && <p>No scenes yet.</p>}
      {scenes && (
        <ul className="scene-list">
          {scenes.map((s) => (
            <li key={s.id}>
              <a href={`/embed/${encodeURIComponent(s.id)}`}>{s.name || s.id}</a>
              {typeof s.modelCount === 'number' && <span className="muted"> · {s.modelCount} model{s.modelCount === 1 ? '' : 's'}</span>}
              <span className="muted"> · </span>
              <a className="scene-edit" href={`/edit/${encodeURIComponent(s.id)}`} aria-label={`Edit ${s.name || s.id}`}>
                edit
              </a>
            </li>
          ))}
        </ul>
      )}
      <h2>Assets</h2>
      <AssetLibrary signedIn={signedIn} />
    </main>
  );
}
