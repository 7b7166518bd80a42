import { useCallback, useRef, useState } from 'react';
import type { DragEvent, ReactNode } from 'react';
import { getToken, hasTokenGenerator, signInUrl } from '../service/token';
import { ClientConfig } from '../protocol/config';
import { type ValidationMessage, type ValidationReport } from '../protocol/upload';
import { createServiceClient, trimBase } from '../service/client';

/**
 * Uploading a glTF model to the model service (POST /v1/models, POST /v1/assets): the one drop
 * zone, progress bar, validator report and error display of the home page's model upload and the
 * asset library.
 */

/** What an upload is doing, for the panel below the drop zone. */
export type UploadState<T> =
  | { phase: 'idle' }
  | { phase: 'sending'; fileName: string; loaded: number; total: number }
  | { phase: 'processing'; fileName: string }
  | { phase: 'done'; fileName: string; result: T }
  | { phase: 'refused'; fileName: string; status: number; message: string; validation?: ValidationReport };

export const MODEL_FILE = /\.(glb|gltf)$/i;
/** What the file pickers offer: a model, or a .gltf with its buffers and images. */
export const MODEL_ACCEPT = '.glb,.gltf,.bin,.png,.jpg,.jpeg,.webp,.ktx2,model/gltf-binary,model/gltf+json';

/** The model service's base URL from the server's configuration ('' = this origin). */
export async function modelServiceUrl(doFetch?: typeof fetch): Promise<string> {
  try {
    const config = await createServiceClient({ baseUrl: '', fetch: doFetch }).request('GET', '/v1/config', { schema: ClientConfig, auth: 'none', what: 'The client configuration' });
    return trimBase(config.endpoints.modelService);
  } catch {
    return '';
  }
}

/**
 * POSTs the files with XMLHttpRequest (fetch reports no upload progress): one .glb (or
 * self-contained .gltf) as the raw body, several files (a .gltf with its .bin and images) as
 * multipart/form-data.
 */
export function sendUpload(
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

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The validator's errors and warnings. */
export function Findings({ report }: { report: ValidationReport }) {
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

/**
 * One upload at a time to `path` of the model service (201 parsed by `parse`; anything else is
 * the server's error and report). `onDone` runs with the result once it is parsed.
 */
export function useUpload<T>(path: string, parse: (body: unknown) => T, onDone?: (result: T) => void) {
  const [state, setState] = useState<UploadState<T>>({ phase: 'idle' });
  const done = useRef(onDone);
  done.current = onDone;
  const upload = useCallback(
    async (list: FileList | File[]) => {
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
        const service = createServiceClient({ baseUrl: await modelServiceUrl(), token: () => token });
        const { status, body } = await sendUpload(
          service.url(path),
          files,
          token,
          (loaded, total) => setState((s) => (s.phase === 'sending' ? { ...s, loaded, total: total || s.total } : s)),
          () => setState({ phase: 'processing', fileName }),
        );
        if (status === 201) {
          const result = parse(body);
          setState({ phase: 'done', fileName, result });
          done.current?.(result);
          return;
        }
        // The service's refusal, as its error answer gives it (with the validator's report).
        const error = service.errorOf('POST', path, status, body);
        setState({ phase: 'refused', fileName, status, message: error.reason ?? `The upload failed (HTTP ${status}).`, validation: error.validation });
      } catch (error) {
        setState({ phase: 'refused', fileName, status: 0, message: (error as Error).message });
      }
    },
    [path, parse],
  );
  const busy = state.phase === 'sending' || state.phase === 'processing';
  return { state, upload, busy };
}

/**
 * The drop zone, file picker, progress and refusal of one upload. `children` is the drop zone's
 * text (it should hold the `choose` button it is given); `doneText` what the progress line says
 * once the upload is stored.
 */
export function UploadPanel<T>({
  label,
  inputLabel,
  upload,
  returnTo,
  doneText,
  children,
}: {
  label: string;
  inputLabel: string;
  upload: ReturnType<typeof useUpload<T>>;
  returnTo: string;
  doneText: (fileName: string, result: T) => string;
  children: (choose: ReactNode) => ReactNode;
}) {
  const { state, busy } = upload;
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (!busy) void upload.upload(event.dataTransfer.files);
  };
  const percent = state.phase === 'sending' && state.total > 0 ? Math.min(100, Math.round((state.loaded / state.total) * 100)) : state.phase === 'processing' || state.phase === 'done' ? 100 : 0;
  const choose = (
    <button type="button" disabled={busy} onClick={() => input.current?.click()}>
      choose files
    </button>
  );
  return (
    <section className="upload" aria-label={label}>
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}${busy ? ' busy' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>{children(choose)}</p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label={inputLabel}
          accept={MODEL_ACCEPT}
          onChange={(event) => {
            if (event.target.files) void upload.upload(event.target.files);
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
            {state.phase === 'done' && doneText(state.fileName, state.result)}
          </p>
        </div>
      )}
      {state.phase === 'refused' && (
        <div className="upload-refused" role="alert">
          <p className="error">{state.message}</p>
          {state.status === 401 && (
            <p>
              <a href={signInUrl(returnTo)}>Sign in to upload</a>
            </p>
          )}
          {state.validation && <Findings report={state.validation} />}
        </div>
      )}
    </section>
  );
}
