import { useState } from 'react';
import { accessFor, HostOrigin, MAX_HOST_ORIGINS, normalizeHostOrigins } from '../../protocol/host-origins';
import { SceneDoc } from '../../protocol/scene';
import { causeOf, createServiceClient, path, ServiceError } from '../../service/client';

/**
 * The scene's `hostOrigins` (the host API's allowlist, src/protocol/host-api.ts), edited by the
 * scene's owner in the editor: a list of the origins of pages that may drive the embedded viewer,
 * with add and remove. Each change is saved at once with the scene's PATCH (owner only on the
 * service); a refused one keeps the list and what was typed, and says why. It is not an edit of the
 * scene's content, so it is not on the undo history. An empty list is the open default (any page
 * reads, only this site changes), as the viewer takes it (accessFor): the panel sends null for it
 * and the service stores no hostOrigins (src/protocol/host-origins.ts).
 */

/** What a typed origin becomes, or why it cannot be added. A trailing '/' of a bare origin is dropped. */
export function checkNewOrigin(input: string, list: readonly string[]): { origin: string } | { error: string } {
  let value = input.trim();
  if (!value) return { error: "Type the origin of a page, such as 'https://shop.example', or '*' for every page." };
  if (value !== '*') {
    try {
      const url = new URL(value);
      if (value.endsWith('/') && url.pathname === '/' && !url.search && !url.hash && value === `${url.origin}/`) value = url.origin;
    } catch {
      // Not a URL at all: the schema says what an origin is.
    }
  }
  const parsed = HostOrigin.safeParse(value);
  if (!parsed.success) return { error: `'${value.length > 80 ? `${value.slice(0, 80)}…` : value}': ${parsed.error.issues[0].message}.` };
  if (list.includes(value)) return { error: `${value} is listed already.` };
  if (list.length >= MAX_HOST_ORIGINS) return { error: `At most ${MAX_HOST_ORIGINS} origins may be listed: remove one first.` };
  return { origin: value };
}

/** A page of no listed origin (a sandboxed page's origin, never a valid entry of the list). */
const UNLISTED_PAGE = 'null';

/** What the list means for pages of other sites, in a sentence: what the viewer's accessFor gives them. */
export function describeHostOrigins(list: readonly string[]): string {
  const origins = normalizeHostOrigins(list);
  switch (accessFor(origins, UNLISTED_PAGE, '')) {
    case 'read':
      return 'None listed: any page may embed this scene, read it and hear its events through the host API; only this site may change it.';
    case 'all':
      return "'*': every page may drive the embedded viewer, changes included.";
    case 'none':
      return 'These pages (and this site) may drive the embedded viewer, changes included; pages of other origins get nothing.';
  }
}

/** What the scene PATCH answers that this panel reads: the list the service kept. */
const KeptOrigins = SceneDoc.pick({ hostOrigins: true });

/** PATCH /v1/scenes/{id} { hostOrigins } (null when the list is empty); the list the service kept. */
export async function saveHostOrigins(
  options: { modelService: string; sceneId: string; token: string | null; fetch?: typeof fetch },
  list: readonly string[],
): Promise<string[]> {
  const service = createServiceClient({ baseUrl: options.modelService, token: () => options.token, fetch: options.fetch });
  try {
    const kept = await service.request('PATCH', path`/v1/scenes/${options.sceneId}`, { json: { hostOrigins: normalizeHostOrigins(list) ?? null }, schema: KeptOrigins, what: 'The saved scene' });
    return kept.hostOrigins ?? [];
  } catch (error) {
    if (error instanceof ServiceError && error.kind === 'network') throw new Error(`The model service could not be reached (${causeOf(error)}): nothing was saved.`);
    if (error instanceof ServiceError && error.kind === 'status') throw new Error(`Not saved: ${error.reason ?? `the model service answered ${error.status}`}.`);
    throw error;
  }
}

export interface HostOriginsPanelProps {
  sceneId: string;
  modelService: string;
  /** The scene's hostOrigins as loaded (undefined: none). */
  initial: readonly string[] | undefined;
  /** Only the owner may change them (the service refuses others). */
  owner: boolean;
  token: () => Promise<string | null>;
}

export function HostOriginsPanel({ sceneId, modelService, initial, owner, token }: HostOriginsPanelProps) {
  const [list, setList] = useState<readonly string[]>(normalizeHostOrigins(initial) ?? []);
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async (next: readonly string[], done: string) => {
    setBusy(true);
    setError(null);
    setStatus('Saving…');
    try {
      const kept = await saveHostOrigins({ modelService, sceneId, token: await token() }, next);
      setList(kept);
      setStatus(done);
      return true;
    } catch (e) {
      setError((e as Error).message);
      setStatus(null);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const add = async () => {
    const checked = checkNewOrigin(input, list);
    if ('error' in checked) {
      setError(checked.error);
      return;
    }
    if (await save([...list, checked.origin], `Saved: ${checked.origin} may drive this scene.`)) setInput('');
  };

  return (
    <section className="editor-panel host-origins" aria-label="Host pages" data-testid="host-origins">
      <h2>Host pages</h2>
      <p className="hint">{describeHostOrigins(list)}</p>
      {list.length > 0 && (
        <ul>
          {list.map((origin) => (
            <li key={origin}>
              <code>{origin}</code>
              {owner && (
                <button type="button" disabled={busy} aria-label={`Remove ${origin}`} onClick={() => void save(list.filter((o) => o !== origin), `Saved: ${origin} removed.`)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {owner ? (
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            void add();
          }}
        >
          <input
            type="text"
            aria-label="Host page origin"
            placeholder="https://shop.example or *"
            value={input}
            maxLength={300}
            onChange={(event) => {
              setInput(event.target.value);
              setError(null);
            }}
          />
          <button type="submit" disabled={busy}>
            Add
          </button>
        </form>
      ) : (
        <p className="hint">Only the scene's owner may change which pages may drive it.</p>
      )}
      {error && (
        <p role="alert" className="error" data-testid="host-origins-error">
          {error}
        </p>
      )}
      {status && !error && (
        <p role="status" data-testid="host-origins-status">
          {status}
        </p>
      )}
    </section>
  );
}
