import { TOKEN_STORAGE_KEY } from '../protocol/auth';

/**
 * The client's bearer token (editor specification sections 7 and 8): requests that need a token
 * (saving mutations, changing a scene) get one from the configured token generator. A host page
 * or the app sets the generator once; without one, such a request fails with the catalogue's
 * error 'Token generator has not been set.'.
 */

/** Returns a bearer token (a JWT for the audience 'parametricos'), fresh enough to use now. */
export type TokenGenerator = () => string | Promise<string>;

/** The exact error text of the specification's catalogue. */
export const TOKEN_GENERATOR_NOT_SET = 'Token generator has not been set.';

let generator: TokenGenerator | null = null;

/** Sets (or with null removes) the token generator. */
export function setTokenGenerator(fn: TokenGenerator | null): void {
  generator = fn;
}

/** True when a token generator is set. */
export function hasTokenGenerator(): boolean {
  return generator !== null;
}

/**
 * A token from the generator. Throws Error('Token generator has not been set.') at once when none
 * is set (so `await getToken()` rejects with it); otherwise resolves to the generator's token.
 */
export function getToken(): Promise<string> {
  const fn = generator;
  if (!fn) throw new Error(TOKEN_GENERATOR_NOT_SET);
  // A generator that throws rejects the promise, like one that rejects.
  return new Promise<string>((resolve) => resolve(fn())).then((token) => {
    if (typeof token !== 'string' || token === '') throw new Error('The token generator returned no token.');
    return token;
  });
}

/**
 * The token this page has, if any, for a request that works without one too (a public scene's
 * document, read with the person's token so a private one opens): the generator's, else the one the
 * sign-in stored; null when there is none or the generator fails. Never throws.
 */
export async function pageToken(storage?: Pick<Storage, 'getItem'>): Promise<string | null> {
  if (generator) {
    try {
      return await getToken();
    } catch {
      return null;
    }
  }
  return readStoredToken(storage) ?? null;
}

/** The Authorization header for a request that needs a token. */
export async function authorizationHeader(): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await getToken()}` };
}

/** What /auth/callback stored, if it is there and not expired (with `marginMs` to spare). */
export function readStoredToken(storage?: Pick<Storage, 'getItem'>, now = Date.now(), marginMs = 60_000): string | undefined {
  let text: string | null | undefined;
  try {
    // Reading `localStorage` itself throws where storage is blocked (a cross-origin iframe with
    // third-party storage off, a sandboxed frame): inside the try, like the read.
    text = (storage ?? globalThis.localStorage)?.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return undefined; // storage blocked (privacy settings, sandboxed iframe)
  }
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as { token?: unknown; expiresAt?: unknown };
    if (typeof value.token !== 'string' || value.token === '') return undefined;
    if (typeof value.expiresAt === 'number' && value.expiresAt - marginMs <= now) return undefined;
    return value.token;
  } catch {
    return undefined;
  }
}

/**
 * A generator for the app's own pages: the token the sign-in callback stored. Throws
 * 'Sign in required.' when there is none (or it expired), so the caller can send the person to
 * `/auth/sign-in?returnTo=...`.
 */
export function storedTokenGenerator(storage?: Pick<Storage, 'getItem'>): TokenGenerator {
  return () => {
    const token = readStoredToken(storage);
    if (!token) throw new Error('Sign in required.');
    return token;
  };
}

/** The sign-in page that returns to `returnTo` (a path on this site) afterwards. */
export function signInUrl(returnTo: string = typeof location === 'undefined' ? '/' : location.pathname + location.search): string {
  return `/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`;
}
