import { useCallback, useEffect, useRef, useState } from 'react';
import type { DragEvent } from 'react';
import { getToken, hasTokenGenerator, readStoredToken, setTokenGenerator, signInUrl, storedTokenGenerator } from '../api/token';
import { ClientConfig } from '../protocol/config';
import { ModelUploadResult, UploadError, type ValidationMessage, type ValidationReport } from '../protocol/upload';

interface SceneItem {
  id: string;
  name: string;
  modelCount?: number;
}

/** What an upload is doing, for the panel below the drop zone. */
type UploadState =
  | { phase: 'idle' }
  | { phase: 'sending'; fileName: string; loaded: number; total: number }
  | { phase: 'processing'; fileName: string }
  | { phase: 'done'; fileName: string; result: ModelUploadResult }
  | { phase: 'refused'; fileName: string; status: number; message: string; validation?: ValidationReport };

const MODEL_FILE = /\.(glb|gltf)$/i;

/** The model service's base URL from the server's configuration ('' = this origin). */
async function modelServiceUrl(): Promise<string> {
  try {
    const response = await fetch('/v1/config');
    if (!response.ok) return '';
    return ClientConfig.parse(await response.json()).endpoints.modelService.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * POSTs the files to /v1/models with XMLHttpRequest (fetch reports no upload progress): one .glb
 * (or self-contained .gltf) as the raw body, several files (a .gltf with its .bin and images) as
 * multipart/form-data.
 */
function sendUpload(
  url: string,
  files: File[],
  token: string,
  onProgress: (loaded: number, total: number) => void,
  onSent: () => void,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : 0);
    xhr.upload.onload = onSent;
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new Error('The upload was cancelled.'));
    if (files.length === 1) {
      const [file] = files;
      xhr.setRequestHeader('content-type', /\.gltf$/i.test(file.name) ? 'model/gltf+json' : 'model/gltf-binary');
      xhr.setRequestHeader('x-file-name', encodeURIComponent(file.name));
      xhr.send(file);
    } else {
      const form = new FormData();
      // The model first: the server takes the first .glb/.gltf part as the model.
      const ordered = [...files.filter((f) => MODEL_FILE.test(f.name)), ...files.filter((f) => !MODEL_FILE.test(f.name))];
      for (const file of ordered) form.append('file', file, file.name);
      xhr.send(form);
    }
  });
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function Findings({ report }: { report: ValidationReport }) {
  const refusing = report.errors - report.repaired;
  const shown = report.messages.filter((m) => m.severity === 'error' || m.severity === 'warning');
  return (
    <div className="findings">
      <p>
        glTF-Validator {report.validatorVersion}: {refusing} error{refusing === 1 ? '' : 's'}
        {report.repaired > 0 && `, ${report.repaired} repaired`}, {report.warnings} warning{report.warnings === 1 ? '' : 's'}
        {report.truncated && ' (not all listed)'}.
      </p>
      <ul aria-label="Validator findings">
        {shown.slice(0, 50).map((m: ValidationMessage, i) => (
          <li key={i} className={`finding finding-${m.repaired ? 'repaired' : m.severity}`}>
            <span className="finding-severity">{m.repaired ? 'repaired' : m.severity}</span> <code>{m.code}</code>
            {m.pointer ? (
              <>
                {' '}
                at <code>{m.pointer}</code>
              </>
            ) : null}
            : {m.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Upload of a GLB or glTF: drop zone, file picker, progress bar, the validator's findings. */
function Upload({ signedIn }: { signedIn: boolean }) {
  const [state, setState] = useState<UploadState>({ phase: 'idle' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const busy = state.phase === 'sending' || state.phase === 'processing';

  const upload = useCallback(async (list: FileList | File[]) => {
    const files = [...list];
    if (files.length === 0) return;
    const model = files.find((f) => MODEL_FILE.test(f.name)) ?? files[0];
    const fileName = model.name;
    if (!hasTokenGenerator()) {
      setState({ phase: 'refused', fileName, status: 401, message: 'Sign in to upload.' });
      return;
    }
    setState({ phase: 'sending', fileName, loaded: 0, total: files.reduce((n, f) => n + f.size, 0) });
    try {
      const token = await getToken();
      const base = await modelServiceUrl();
      const { status, body } = await sendUpload(
        `${base}/v1/models`,
        files,
        token,
        (loaded, total) => setState((s) => (s.phase === 'sending' ? { ...s, loaded, total: total || s.total } : s)),
        () => setState({ phase: 'processing', fileName }),
      );
      if (status === 201) {
        const result = ModelUploadResult.parse(body);
        setState({ phase: 'done', fileName, result });
        if (result.sceneId) window.location.assign(`/embed/${encodeURIComponent(result.sceneId)}`);
        return;
      }
      const error = UploadError.safeParse(body);
      setState({
        phase: 'refused',
        fileName,
        status,
        message: error.success ? error.data.error : `The upload failed (HTTP ${status}).`,
        validation: error.success ? error.data.validation : undefined,
      });
    } catch (error) {
      setState({ phase: 'refused', fileName, status: 0, message: (error as Error).message });
    }
  }, []);

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (!busy && signedIn) void upload(event.dataTransfer.files);
  };

  if (!signedIn) {
    return (
      <section className="upload" aria-label="Upload a model">
        <p>
          <a href={signInUrl('/')}>Sign in to upload</a> a GLB or glTF model.
        </p>
      </section>
    );
  }

  const percent = state.phase === 'sending' && state.total > 0 ? Math.min(100, Math.round((state.loaded / state.total) * 100)) : state.phase === 'processing' || state.phase === 'done' ? 100 : 0;
  return (
    <section className="upload" aria-label="Upload a model">
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}${busy ? ' busy' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>
          Drop a <code>.glb</code>, or a <code>.gltf</code> with its <code>.bin</code> and image files, here, or{' '}
          <button type="button" disabled={busy} onClick={() => input.current?.click()}>
            choose files
          </button>
          .
        </p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label="Choose model files"
          accept=".glb,.gltf,.bin,.png,.jpg,.jpeg,.webp,.ktx2,model/gltf-binary,model/gltf+json"
          onChange={(event) => {
            if (event.target.files) void upload(event.target.files);
            event.target.value = '';
          }}
        />
      </div>
      {(state.phase === 'sending' || state.phase === 'processing' || state.phase === 'done') && (
        <div className="upload-status">
          <div className="progress" role="progressbar" aria-label={`Uploading ${state.fileName}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
            <div className="progress-bar" style={{ width: `${percent}%` }} />
          </div>
          <p className="progress-text" aria-live="polite">
            {state.phase === 'sending' && `Uploading ${state.fileName}: ${formatBytes(state.loaded)} of ${formatBytes(state.total)} (${percent}%)`}
            {state.phase === 'processing' && `Validating and optimising ${state.fileName}…`}
            {state.phase === 'done' && `${state.fileName} is ready: opening the scene…`}
          </p>
        </div>
      )}
      {state.phase === 'refused' && (
        <div className="upload-refused" role="alert">
          <p className="error">{state.message}</p>
          {state.status === 401 && (
            <p>
              <a href={signInUrl('/')}>Sign in to upload</a>
            </p>
          )}
          {state.validation && <Findings report={state.validation} />}
        </div>
      )}
    </section>
  );
}

/** The home page: the scenes (open in the viewer or the editor) and the upload of a model. */
export function Home() {
  const [scenes, setScenes] = useState<SceneItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [signedIn] = useState(() => {
    if (!hasTokenGenerator() && readStoredToken()) setTokenGenerator(storedTokenGenerator());
    return hasTokenGenerator();
  });
  useEffect(() => {
    fetch('/v1/scenes')
      .then(async (r) => {
        if (!r.ok) throw new Error(`The scene list request failed: ${r.status}.`);
        return (await r.json()) as { scenes: SceneItem[] };
      })
      .then((body) => setScenes(body.scenes))
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
    </main>
  );
}
