import type { AuthInfo } from '../protocol/host-api';
import { causeOf, createServiceClient, ServiceError, type ServiceClient } from '../service/client';

/**
 * A person's bearer token handed over by the host page (the host API's `setAuthToken`): how a
 * viewer framed by another site saves as a person. The viewer's own sign-in is kept by its own
 * site's pages (/auth/callback writes it to localStorage), which an iframe under another top-level
 * site cannot read (browsers partition a third-party frame's storage), so the host page, which
 * signed the person in with the same identity provider, passes their token on.
 *
 * - The token is kept in this object's memory only: never written to storage, gone with the page.
 * - It is checked with the model service (GET /v1/me, the service's usual token check) before it is
 *   kept; a refused token is not kept, and the one before stays.
 * - It goes only to the viewer's own model service (the comments client asks `token()`), and never
 *   into an answer, an event or an error message.
 * Which pages may call it is the transport's rule (src/api/host-api.ts): only those the scene's
 * `hostOrigins` lets change the scene.
 */

export interface HostAuthPerson {
  firstName: string;
  lastName: string;
}

export interface HostAuth {
  /** The host's token, or null when none was handed over (or it was forgotten). */
  token(): string | null;
  /** Checks and keeps `token`, or with null forgets the one kept. Rejects with the reason; never with the token in it. */
  set(token: string | null): Promise<AuthInfo>;
  /** Called after each change of the kept token (the comments refetch what their user may do). */
  subscribe(listener: () => void): () => void;
}

export interface HostAuthOptions {
  /** Who the token names (the model service's GET /v1/me); rejects with the service's reason. */
  whoIs(token: string): Promise<HostAuthPerson>;
  now?: () => number;
}

const SIGNED_OUT: AuthInfo = { signedIn: false, firstName: null, lastName: null, expiresAt: null };

/** A JWT's `exp` in milliseconds since 1970, or null when it has none or is not readable (the service decides). */
export function tokenExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const json = JSON.parse(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))) as { exp?: unknown };
    return typeof json.exp === 'number' && Number.isFinite(json.exp) ? json.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** `text` with every occurrence of `secret` blotted out (a reason quoted from elsewhere never carries the token). */
export function withoutSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('[token]') : text;
}

export function createHostAuth(options: HostAuthOptions): HostAuth {
  const now = options.now ?? Date.now;
  let kept: { token: string; person: HostAuthPerson; expiresAt: number | null } | null = null;
  let calls = 0;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  return {
    token: () => kept?.token ?? null,
    async set(token) {
      const call = ++calls;
      if (token === null) {
        const had = kept !== null;
        kept = null;
        if (had) changed();
        return { ...SIGNED_OUT };
      }
      const expiresAt = tokenExpiry(token);
      if (expiresAt !== null && expiresAt <= now()) {
        throw new Error(`The token expired at ${new Date(expiresAt).toISOString()}: hand over a fresh one (the viewer keeps the one it had).`);
      }
      let person: HostAuthPerson;
      try {
        person = await options.whoIs(token);
      } catch (error) {
        const reason = withoutSecret(error instanceof Error ? error.message : String(error), token);
        throw new Error(`${reason} (the viewer keeps the token it had)`);
      }
      // Two calls at once: the later one wins, whichever check answers first.
      if (call !== calls) throw new Error('A later setAuthToken call replaced this one.');
      kept = { token, person, expiresAt };
      changed();
      return { signedIn: true, firstName: person.firstName, lastName: person.lastName, expiresAt };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Who a token names, asked of the model service at `modelService` (GET /v1/me, through its client). */
export function modelServiceWhoIs(modelService: string | ServiceClient, doFetch?: typeof fetch): (token: string) => Promise<HostAuthPerson> {
  const service = typeof modelService === 'string' ? createServiceClient({ baseUrl: modelService, fetch: doFetch }) : modelService;
  return async (token) => {
    let person: HostAuthPerson | null;
    try {
      person = await service.me({ token, strict: true });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.kind === 'network') throw new Error(`The model service could not be reached to check the token (${causeOf(error)}).`);
      if (error.kind === 'invalid') throw new Error("The model service described the token's person in a form the viewer cannot read.");
      const reason = error.reason ?? `HTTP ${error.status}`;
      throw new Error(error.status === 401 || error.status === 403 ? `The model service refused the token: ${reason}` : `The model service could not check the token: ${reason}`);
    }
    if (!person) throw new Error('The model service refused the token.');
    return { firstName: person.firstName, lastName: person.lastName };
  };
}
