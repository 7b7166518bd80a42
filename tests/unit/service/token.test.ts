import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../../src/protocol/auth';
import {
  TOKEN_GENERATOR_NOT_SET,
  authorizationHeader,
  getToken,
  hasTokenGenerator,
  pageToken,
  readStoredToken,
  setTokenGenerator,
  signInUrl,
  storedTokenGenerator,
} from '../../../src/service/token.ts';

function storage(entries: Record<string, string>): Pick<Storage, 'getItem'> {
  return { getItem: (key: string) => entries[key] ?? null };
}

describe('token generator', () => {
  afterEach(() => setTokenGenerator(null));

  it("throws exactly 'Token generator has not been set.' without one", async () => {
    expect(TOKEN_GENERATOR_NOT_SET).toBe('Token generator has not been set.');
    expect(hasTokenGenerator()).toBe(false);
    expect(() => getToken()).toThrow(new Error('Token generator has not been set.'));
    await expect(authorizationHeader()).rejects.toThrow('Token generator has not been set.');
    await expect((async () => getToken())()).rejects.toThrow(/^Token generator has not been set\.$/);
  });

  it("pageToken: the generator's token, else the stored one, else null; never throws", async () => {
    const stored = storage({ [TOKEN_STORAGE_KEY]: JSON.stringify({ token: 'stored', expiresAt: Date.now() + 3_600_000 }) });
    expect(await pageToken(storage({}))).toBeNull();
    expect(await pageToken(stored)).toBe('stored');
    setTokenGenerator(() => 'generated');
    expect(await pageToken(stored)).toBe('generated');
    setTokenGenerator(() => {
      throw new Error('Sign in required.');
    });
    expect(await pageToken(stored)).toBeNull();
  });

  it('returns what a synchronous or asynchronous generator gives, on every call', async () => {
    let calls = 0;
    setTokenGenerator(() => `sync-${++calls}`);
    expect(hasTokenGenerator()).toBe(true);
    expect(await getToken()).toBe('sync-1');
    expect(await getToken()).toBe('sync-2');
    setTokenGenerator(async () => 'async-token');
    expect(await getToken()).toBe('async-token');
    expect(await authorizationHeader()).toEqual({ authorization: 'Bearer async-token' });
  });

  it("passes on the generator's failure and refuses an empty token", async () => {
    setTokenGenerator(() => Promise.reject(new Error('session expired')));
    await expect(getToken()).rejects.toThrow('session expired');
    setTokenGenerator(() => '');
    await expect(getToken()).rejects.toThrow('The token generator returned no token.');
    setTokenGenerator(null);
    expect(() => getToken()).toThrow(TOKEN_GENERATOR_NOT_SET);
  });
});

describe('the token the sign-in callback stored', () => {
  const now = 1_800_000_000_000;

  it('reads a fresh token and ignores expired, malformed or missing ones', () => {
    expect(readStoredToken(storage({ [TOKEN_STORAGE_KEY]: JSON.stringify({ token: 'abc', expiresAt: now + 3_600_000 }) }), now)).toBe('abc');
    expect(readStoredToken(storage({ [TOKEN_STORAGE_KEY]: JSON.stringify({ token: 'abc', expiresAt: now + 30_000 }) }), now)).toBeUndefined();
    expect(readStoredToken(storage({ [TOKEN_STORAGE_KEY]: '{ nope' }), now)).toBeUndefined();
    expect(readStoredToken(storage({ [TOKEN_STORAGE_KEY]: JSON.stringify({ token: 5 }) }), now)).toBeUndefined();
    expect(readStoredToken(storage({}), now)).toBeUndefined();
    expect(readStoredToken(undefined, now)).toBeUndefined();
    const blocked = { getItem: () => { throw new Error('SecurityError'); } };
    expect(readStoredToken(blocked, now)).toBeUndefined();
  });

  it('where reading localStorage itself throws (storage blocked in an iframe), there is no token', () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      get() {
        throw new Error("Failed to read the 'localStorage' property from 'Window': Access is denied for this document.");
      },
    });
    try {
      expect(readStoredToken()).toBeUndefined();
      expect(() => storedTokenGenerator()()).toThrow('Sign in required.');
    } finally {
      if (descriptor) Object.defineProperty(globalThis, 'localStorage', descriptor);
      else delete (globalThis as { localStorage?: unknown }).localStorage;
    }
  });

  it('makes a generator that asks for sign-in when there is no token', async () => {
    setTokenGenerator(storedTokenGenerator(storage({ [TOKEN_STORAGE_KEY]: JSON.stringify({ token: 'stored', expiresAt: Date.now() + 3_600_000 }) })));
    expect(await getToken()).toBe('stored');
    setTokenGenerator(storedTokenGenerator(storage({})));
    await expect(getToken()).rejects.toThrow('Sign in required.');
    setTokenGenerator(null);
  });

  it('links to the sign-in page with the way back', () => {
    expect(signInUrl('/edit/demo?x=1')).toBe('/auth/sign-in?returnTo=%2Fedit%2Fdemo%3Fx%3D1');
  });
});
