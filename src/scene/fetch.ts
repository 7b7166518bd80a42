/** Byte progress of one download. `total` is 0 when the server did not say. */
export type ProgressListener = (loaded: number, total: number) => void;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * The response of a download that index.html started before the app's code ran (the embed's
 * configuration, scene document, models, their saved edits' first page and the groups' assets),
 * taken once: a second call for the same URL, or a URL that was never started early, gives null
 * and the caller fetches it itself. An aborted caller gets its AbortError as with its own fetch.
 */
export function takeEarlyFetch(url: string, signal?: AbortSignal): Promise<Response> | null {
  const early = (globalThis as EarlyGlobals).__earlyFetches;
  const response = early?.[url];
  if (!early || !response) return null;
  delete early[url];
  return signal ? untilAborted(response, signal) : response;
}

type EarlyGlobals = { __earlyFetches?: Record<string, Promise<Response> | undefined>; __earlyFetchesStarted?: Promise<unknown> };

/**
 * The early download of `url` if index.html started one, else the app's own fetch. index.html
 * starts the scene's downloads only once its own copy of the configuration and the scene document
 * has been parsed; the app parses its copies at the same time and can get to a model or an asset
 * first. So a URL not (yet) started early waits until index.html's chain has started everything it
 * will start (`__earlyFetchesStarted`, which settles either way) and looks again: one download per
 * URL, and none started early for nothing (but a scene document asked for at an address the page
 * gave and the configuration then did not). Without the chain (other pages, tests) it fetches at
 * once.
 */
export async function earlyOrFetch(url: string, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  const now = takeEarlyFetch(url, signal);
  if (now) return now;
  const started = earlyDownloadsStarted(signal);
  if (started) {
    await started;
    const later = takeEarlyFetch(url, signal);
    if (later) return later;
  }
  return fetch(url, { ...init, signal });
}

/**
 * Resolves once index.html's chain has started every early download (and sent its loader worker the sets' requests), or
 * has failed; null on a page without the chain. An abort rejects it at once.
 */
export function earlyDownloadsStarted(signal?: AbortSignal): Promise<void> | null {
  const started = (globalThis as EarlyGlobals).__earlyFetchesStarted;
  if (!started) return null;
  const settled = started.then(
    () => undefined,
    () => undefined,
  );
  return signal ? untilAborted(settled, signal) : settled;
}

/**
 * `work` as seen by a caller with `signal`: it rejects with the signal's reason as soon as the
 * signal aborts (then `onAbort` runs, e.g. to stop work nobody else waits for), else settles as
 * `work` does; the listener goes either way.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort?: () => void): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const aborted = () => {
      onAbort?.();
      reject(signal.reason);
    };
    signal.addEventListener('abort', aborted, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

/** The `error` of a JSON error answer, else undefined (other bodies are not read). */
async function errorReason(response: Response): Promise<string | undefined> {
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return undefined;
  try {
    const body = (await response.json()) as { error?: unknown } | null;
    return body && typeof body.error === 'string' ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** GET a binary file with byte progress; a non-2xx answer is an HttpError naming the status. */
export async function fetchBinary(url: string, onProgress?: ProgressListener, signal?: AbortSignal): Promise<ArrayBuffer> {
  const response = await earlyOrFetch(url, {}, signal);
  if (!response.ok) {
    const failed = `The model file request failed: ${response.status} ${response.statusText || ''}`.trim() + '.';
    // The service says why in JSON (a private scene's model without a valid signed URL: 403).
    const reason = await errorReason(response);
    throw new HttpError(response.status, url, reason ? `${failed} ${reason}` : failed);
  }
  const total = Number(response.headers.get('Content-Length') ?? 0) || 0;
  if (!response.body) {
    const buffer = await response.arrayBuffer();
    onProgress?.(buffer.byteLength, total || buffer.byteLength);
    return buffer;
  }
  const reader = response.body.getReader();
  // With a known length, fill one buffer in place; otherwise collect chunks and join them once.
  let out = total > 0 ? new Uint8Array(total) : null;
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (out && loaded + value.byteLength <= out.byteLength) out.set(value, loaded);
    else {
      if (out) {
        chunks.push(out.subarray(0, loaded));
        out = null;
      }
      chunks.push(value);
    }
    loaded += value.byteLength;
    onProgress?.(loaded, total);
  }
  if (out) {
    if (loaded !== out.byteLength) throw new Error(`The model file download ended after ${loaded} of ${total} bytes.`);
    return out.buffer;
  }
  const joined = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined.buffer;
}

/** GET JSON; a non-2xx answer is an HttpError carrying the server's `error` text when it sent one. */
export async function fetchJson(url: string, signal?: AbortSignal): Promise<unknown> {
  const response = await earlyOrFetch(url, { headers: { Accept: 'application/json' } }, signal);
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    if (response.ok) throw new Error(`${url} did not answer with JSON.`);
  }
  if (!response.ok) {
    const reason = body && typeof body === 'object' && 'error' in body ? String((body as { error: unknown }).error) : response.statusText;
    throw new HttpError(response.status, url, `${url} answered ${response.status}: ${reason}`);
  }
  return body;
}
