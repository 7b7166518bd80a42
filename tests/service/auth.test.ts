import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, base64url, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../src/protocol/auth.ts';
import { developmentSigningKey } from '../../src/server/auth/keys.ts';
import { developmentUserId, signTestToken } from '../../src/server/auth/tokens.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * Identity: bearer JWTs checked against the provider's JWKS (audience 'parametricos'); every forged
 * or stale token is a 401 with the reason. The embedded development provider (JWKS, OpenID
 * configuration, sign-in page, callback) and a real OIDC provider configured by IDP_DOMAIN.
 */

const PERSON = { firstName: 'Ada', lastName: 'Lovelace' };

async function me(server: TestServer, authorization?: string): Promise<{ status: number; body: any; challenge: string | null }> {
  const res = await fetch(`${server.url}/v1/me`, { headers: authorization === undefined ? {} : { authorization } });
  return { status: res.status, body: await res.json(), challenge: res.headers.get('www-authenticate') };
}

function unsignedToken(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
}

describe('bearer tokens with the development provider', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('accepts a valid token and names the person', async () => {
    const { token, user } = await signTestToken(server.dataDir, PERSON);
    expect(user).toEqual({ id: developmentUserId('Ada', 'Lovelace'), firstName: 'Ada', lastName: 'Lovelace' });
    expect(developmentUserId(' ada ', 'LOVELACE')).toBe(user.id);
    const res = await me(server, `Bearer ${token}`);
    expect(res).toMatchObject({ status: 200, body: user });
    expect((await me(server, `bearer   ${token}`)).status).toBe(200);
    expect(await me(server)).toMatchObject({ status: 401, body: { error: expect.stringMatching(/Sign in required/) } });
  });

  it('refuses forged and stale tokens with a 401 naming the reason', async () => {
    const key = await developmentSigningKey(server.dataDir);
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'dev-someone', aud: 'parametricos', iss: server.config.identityProvider.issuer, exp: now + 600, iat: now };
    const otherKey = await generateKeyPair('ES256');
    const hmacKey = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    const cases: [string, string, RegExp][] = [
      ['wrong audience', (await signTestToken(server.dataDir, PERSON, { audience: 'someone-else' })).token, /audience \(aud\) must be 'parametricos'/],
      ['expired', (await signTestToken(server.dataDir, PERSON, { expiresIn: -3600 })).token, /has expired/],
      ['wrong issuer', (await signTestToken(server.dataDir, PERSON, { issuer: 'https://evil.example.com/' })).token, /issuer \(iss\) must be/],
      ['alg none', unsignedToken(claims), /algorithm \(alg\) is not allowed/],
      ['alg none, no signature part', unsignedToken(claims).slice(0, -1), /not a well-formed signed JWT/],
      [
        'HS256 with the public key as secret',
        await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(hmacKey),
        /algorithm \(alg\) is not allowed/,
      ],
      ['another key, same kid', await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(otherKey.privateKey), /signature does not verify/],
      ['another key, its own kid', await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'forged' }).sign(otherKey.privateKey), /not signed by one of the identity provider's keys/],
      ['no subject', await new SignJWT({ ...claims, sub: undefined }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(key.privateKey), /sub claim is missing/],
      ['tampered payload', await tamper((await signTestToken(server.dataDir, PERSON)).token), /signature does not verify/],
      ['garbage', 'not-a-token', /not a well-formed signed JWT/],
    ];
    for (const [name, token, reason] of cases) {
      const res = await me(server, `Bearer ${token}`);
      expect({ name, status: res.status, error: res.body.error }).toEqual({ name, status: 401, error: expect.stringMatching(reason) });
      expect(res.challenge).toMatch(/^Bearer error="invalid_token", error_description=".+"$/);
    }
    for (const header of ['Basic YWRhOmxvdmVsYWNl', 'Bearer', 'Bearer a b', 'token']) {
      const res = await me(server, header);
      expect({ header, status: res.status, error: res.body.error }).toEqual({ header, status: 401, error: expect.stringMatching(/Authorization header|Invalid token/) });
    }
    // An invalid token is refused on public endpoints too, before anything runs.
    const list = await fetch(`${server.url}/v1/scenes`, { headers: { authorization: `Bearer ${cases[1][1]}` } });
    expect(list.status).toBe(401);
  });

  it('publishes the key set and the OpenID configuration', async () => {
    const key = await developmentSigningKey(server.dataDir);
    const jwks = await (await fetch(`${server.url}/.well-known/jwks.json`)).json();
    expect(jwks).toEqual({ keys: [key.publicJwk] });
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: key.kid });
    expect(jwks.keys[0].d).toBeUndefined(); // never the private part
    const discovery = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer: server.config.identityProvider.issuer,
      jwks_uri: `${server.url}/.well-known/jwks.json`,
      authorization_endpoint: `${server.url}/auth/sign-in`,
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });

  it('keeps one signing key per DATA_DIR, private on disk, shared by every process', async () => {
    const { stat, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const file = join(server.dataDir, 'identity', 'signing-key.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as JWK;
    expect(stored.d).toBeTypeOf('string');
    // A second server on the same DATA_DIR accepts the first one's tokens.
    const second = await startServer({ env: { DATA_DIR: server.dataDir } });
    try {
      const { token } = await signTestToken(server.dataDir, PERSON);
      expect((await me(second, `Bearer ${token}`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('signs in with a first and last name: form -> callback with the token in the fragment', async () => {
    const page = await fetch(`${server.url}/auth/sign-in?returnTo=${encodeURIComponent('/edit/abc?x="1"')}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('name="firstName"');
    expect(html).toContain('name="lastName"');
    expect(html).toContain('value="/edit/abc?x=&quot;1&quot;"');

    const form = new URLSearchParams({ firstName: 'Grace', lastName: 'Hopper', returnTo: '/edit/abc' });
    const res = await fetch(`${server.url}/auth/sign-in`, { method: 'POST', body: form, redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '', server.url);
    expect(location.pathname).toBe('/auth/callback');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('state')).toBe('/edit/abc');
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(Number(fragment.get('expires_in'))).toBeGreaterThan(3600);
    const token = fragment.get('access_token') ?? '';
    expect(await me(server, `Bearer ${token}`)).toMatchObject({ status: 200, body: { firstName: 'Grace', lastName: 'Hopper', id: developmentUserId('Grace', 'Hopper') } });

    // Somewhere else than this site is never a place to return to.
    for (const returnTo of ['https://evil.example.com/', '//evil.example.com', '/\\evil.example.com', 'javascript:alert(1)']) {
      const elsewhere = await fetch(`${server.url}/auth/sign-in`, { method: 'POST', body: new URLSearchParams({ firstName: 'G', lastName: 'H', returnTo }), redirect: 'manual' });
      expect(new URLSearchParams(new URL(elsewhere.headers.get('location') ?? '', server.url).hash.slice(1)).get('state')).toBe('/');
    }

    const missing = await fetch(`${server.url}/auth/sign-in`, { method: 'POST', body: new URLSearchParams({ firstName: 'Grace', lastName: ' ' }), redirect: 'manual' });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('lastName must not be empty');
  });

  it('signs in with JSON for scripts and tests', async () => {
    const res = await fetch(`${server.url}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(PERSON) });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 43200, user: { firstName: 'Ada', lastName: 'Lovelace' } });
    expect((await me(server, `Bearer ${body.access_token}`)).status).toBe(200);
    const bad = await fetch(`${server.url}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ firstName: 'Ada' }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/lastName undefined/);
  });

  it('serves the callback page that keeps the token for the app', async () => {
    const res = await fetch(`${server.url}/auth/callback`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain(JSON.stringify(TOKEN_STORAGE_KEY));
    expect(html).toContain('access_token');
    expect(html).toContain('location.replace(state)');

    // Its script, run against stand-ins for the browser's objects.
    const script = html.split('<script>')[1].split('</script>')[0];
    const run = (hash: string) => {
      const stored: Record<string, string> = {};
      const status = { className: '', textContent: '' };
      let wentTo = '';
      new Function('location', 'localStorage', 'history', 'document', script)(
        { hash, pathname: '/auth/callback', replace: (url: string) => (wentTo = url) },
        { setItem: (key: string, value: string) => (stored[key] = value) },
        { replaceState: () => undefined },
        { getElementById: () => status },
      );
      return { stored, wentTo, status: status.textContent };
    };
    const ok = run('#access_token=abc.def.ghi&token_type=Bearer&expires_in=3600&state=%2Fedit%2Fdemo');
    expect(ok.wentTo).toBe('/edit/demo');
    const kept = JSON.parse(ok.stored[TOKEN_STORAGE_KEY]);
    expect(kept.token).toBe('abc.def.ghi');
    expect(kept.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(run('#access_token=abc&state=%2F%2Fevil.example.com').wentTo).toBe('/');
    const failed = run('#error=access_denied&error_description=The%20user%20said%20no');
    expect(failed).toEqual({ stored: {}, wentTo: '', status: 'Sign-in failed: The user said no.' });
  });
});

describe('a real OIDC provider by configuration', () => {
  let provider: Server;
  let providerUrl: string;
  let providerKey: CryptoKey;
  let server: TestServer;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    providerKey = pair.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'provider-key', alg: 'RS256', use: 'sig' };
    provider = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/jwks.json') res.end(JSON.stringify({ keys: [publicJwk] }));
      else if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: `${providerUrl}/`, authorization_endpoint: `${providerUrl}/authorize` }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    server = await startServer({ env: { IDP_DOMAIN: providerUrl, IDP_CLIENT_ID: 'viewer-client', IDP_CALLBACK_URL: 'https://viewer.example.com/auth/callback' } });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => provider?.close(resolve));
  });

  const providerToken = (claims: Record<string, unknown> = {}) =>
    new SignJWT({ given_name: 'Katherine', family_name: 'Johnson', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'provider-key' })
      .setIssuer(`${providerUrl}/`)
      .setAudience('parametricos')
      .setSubject('auth0|12345')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(providerKey);

  it('derives the issuer and the JWKS URL from IDP_DOMAIN', () => {
    expect(server.config.identityProvider).toMatchObject({ issuer: `${providerUrl}/`, jwksUrl: `${providerUrl}/.well-known/jwks.json` });
    const config = loadServerConfig({ IDP_DOMAIN: 'login.example.com' });
    expect(config.identityProvider).toMatchObject({ domain: 'login.example.com', issuer: 'https://login.example.com/', jwksUrl: 'https://login.example.com/.well-known/jwks.json' });
    expect(loadServerConfig({ IDP_DOMAIN: 'login.example.com', IDP_ISSUER: 'https://login.example.com', IDP_JWKS_URL: 'https://keys.example.com/jwks' }).identityProvider).toMatchObject({
      issuer: 'https://login.example.com',
      jwksUrl: 'https://keys.example.com/jwks',
    });
    expect(() => loadServerConfig({ IDP_JWKS_URL: 'https://keys.example.com/jwks' })).toThrow(/IDP_JWKS_URL is set without IDP_DOMAIN/);
  });

  it("accepts the provider's tokens and refuses development ones", async () => {
    expect(await me(server, `Bearer ${await providerToken()}`)).toMatchObject({ status: 200, body: { id: 'auth0|12345', firstName: 'Katherine', lastName: 'Johnson' } });
    expect((await me(server, `Bearer ${await providerToken({ given_name: undefined, family_name: undefined, name: 'Mary Jackson' })}`)).body).toMatchObject({
      firstName: 'Mary',
      lastName: 'Jackson',
    });
    const dev = await signTestToken(server.dataDir, PERSON);
    expect((await me(server, `Bearer ${dev.token}`)).status).toBe(401);
    const wrongAudience = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'provider-key' }).setIssuer(`${providerUrl}/`).setAudience('another-api').setSubject('x').setExpirationTime('5m').sign(providerKey);
    expect((await me(server, `Bearer ${wrongAudience}`)).body.error).toMatch(/audience/);
  });

  it('has no development provider; sign-in goes to the provider', async () => {
    expect((await fetch(`${server.url}/.well-known/jwks.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/auth/sign-in`, { method: 'POST', body: new URLSearchParams(PERSON) })).status).toBe(404);
    const res = await fetch(`${server.url}/auth/sign-in?returnTo=/edit/demo`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${providerUrl}/authorize`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      response_type: 'token',
      client_id: 'viewer-client',
      redirect_uri: 'https://viewer.example.com/auth/callback',
      audience: 'parametricos',
      state: '/edit/demo',
    });
  });

  it("answers 503, never 401, when the provider's key set answers with an error or with something that is not a key set", async () => {
    const broken = createServer((req, res) => {
      if (req.url === '/error/jwks.json') res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
      else if (req.url === '/html/jwks.json') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>maintenance</p>');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "none"}');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    try {
      for (const path of ['/error/jwks.json', '/html/jwks.json', '/invalid/jwks.json']) {
        const other = await startServer({ env: { IDP_DOMAIN: providerUrl, IDP_ISSUER: `${providerUrl}/`, IDP_JWKS_URL: `${brokenUrl}${path}` } });
        try {
          const res = await me(other, `Bearer ${await providerToken()}`);
          expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 503, error: "The identity provider's keys cannot be fetched right now; try again later" });
          expect(res.challenge).toBeNull();
        } finally {
          await other.close();
        }
      }
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });

  it("still answers 401 when the key set is there but has no key for the token", async () => {
    const other = await generateKeyPair('RS256');
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'unknown-key' }).setIssuer(`${providerUrl}/`).setAudience('parametricos').setSubject('x').setExpirationTime('5m').sign(other.privateKey);
    const res = await me(server, `Bearer ${token}`);
    expect(res).toMatchObject({ status: 401, body: { error: "Invalid token: it was not signed by one of the identity provider's keys" } });
  });

  it("answers 503 when the provider's keys cannot be fetched", async () => {
    const other = await startServer({ env: { IDP_DOMAIN: 'http://127.0.0.1:9', IDP_ISSUER: `${providerUrl}/` } });
    try {
      const res = await me(other, `Bearer ${await providerToken()}`);
      expect(res).toMatchObject({ status: 503, body: { error: expect.stringMatching(/identity provider's keys cannot be fetched/) } });
    } finally {
      await other.close();
    }
  });
});

/** The token with one character of its payload changed. */
async function tamper(token: string): Promise<string> {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
  claims.sub = 'dev-admin';
  return `${header}.${base64url.encode(JSON.stringify(claims))}.${signature}`;
}
