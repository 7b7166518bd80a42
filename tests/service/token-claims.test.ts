import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEETING_CLOSE } from '../../src/protocol/meeting.ts';
import { developmentSigningKey } from '../../src/server/auth/keys.ts';
import { CLOCK_TOLERANCE_S, TokenError, createTokenVerifier, signTestToken } from '../../src/server/auth/tokens.ts';
import { startServer, type TestServer } from './helpers.ts';
import { TestClient } from './meetings/ws-client.ts';

/**
 * Claims a valid signature does not make acceptable (issue 33, item 9): a token issued in the
 * future (beyond the clock tolerance) and a token whose subject is empty or blank are refused with
 * a 401 and the reason, on REST and on the meeting socket (both go through createTokenVerifier).
 */

const PERSON = { firstName: 'Ada', lastName: 'Lovelace' };
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ app: { meetings: { limits: { authTimeoutMs: 2000 } } } });
  await server.store.putScene({ _id: 'room1', name: 'Room', viewerConfig: {}, models: [] });
});
afterAll(() => server?.close());

async function me(token: string): Promise<{ status: number; error?: string }> {
  const res = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

async function createScene(token: string): Promise<{ status: number; error?: string }> {
  const res = await fetch(`${server.url}/v1/scenes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Mine' }),
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

/** A token signed with the development key, with exactly these claims (besides aud, iss, exp). */
async function rawToken(claims: Record<string, unknown>): Promise<string> {
  const key = await developmentSigningKey(server.dataDir);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ aud: 'parametricos', iss: server.config.identityProvider.issuer, exp: now + 600, iat: now, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .sign(key.privateKey);
}

async function meetingClose(token: string): Promise<{ code: number; reason: string }> {
  const client = new TestClient(`${server.url.replace('http', 'ws')}/meetings/room1`);
  try {
    await client.opened;
    client.send({ type: 'AUTH_REQUEST', token });
    return await client.waitClosed();
  } finally {
    client.ws.terminate();
  }
}

describe('the issue time (iat)', () => {
  it('refuses a token issued 60 s in the future, on REST and for meetings', async () => {
    const { token } = await signTestToken(server.dataDir, PERSON, { issuedIn: 60 });
    const reason = /^Invalid token: its issue time \(iat\) lies \d+ s in the future \(at most 5 s/;
    expect(await me(token)).toEqual({ status: 401, error: expect.stringMatching(reason) });
    const before = (await server.store.listScenes()).length;
    expect(await createScene(token)).toEqual({ status: 401, error: expect.stringMatching(reason) });
    expect((await server.store.listScenes()).length).toBe(before);
    const closed = await meetingClose(token);
    expect(closed.code).toBe(MEETING_CLOSE.AUTH_FAILED);
    expect(closed.reason).toMatch(reason);
  });

  it('accepts one within the clock tolerance, and one without iat', async () => {
    const { token, user } = await signTestToken(server.dataDir, PERSON, { issuedIn: CLOCK_TOLERANCE_S - 2 });
    expect(await me(token)).toMatchObject({ status: 200 });
    expect((await createScene(token)).status).toBe(201);
    const noIat = await rawToken({ sub: user.id, iat: undefined });
    expect((await me(noIat)).status).toBe(200);
  });
});

describe('the subject (sub)', () => {
  for (const [name, subject] of [
    ['empty', ''],
    ['whitespace', ' \t '],
  ] as const) {
    it(`refuses a validly signed token whose subject is ${name}: no scene is owned by it`, async () => {
      const { token } = await signTestToken(server.dataDir, PERSON, { subject });
      const reason = /^Invalid token: the subject \(sub\) is empty/;
      expect(await me(token)).toEqual({ status: 401, error: expect.stringMatching(reason) });
      expect(await createScene(token)).toEqual({ status: 401, error: expect.stringMatching(reason) });
      expect((await server.store.listScenes()).filter((scene) => scene.ownerId !== undefined && scene.ownerId.trim() === '')).toEqual([]);
      const closed = await meetingClose(token);
      expect(closed.code).toBe(MEETING_CLOSE.AUTH_FAILED);
      expect(closed.reason).toMatch(reason);
    });
  }

  it('refuses a subject that is not a string', async () => {
    const token = await rawToken({ sub: 42 });
    expect(await me(token)).toEqual({ status: 401, error: expect.stringMatching(/^Invalid token: the subject \(sub\) must be a string/) });
  });

  it('is checked by the one verifier REST and meetings share, cached tokens included', async () => {
    const verify = await createTokenVerifier(server.config);
    const good = await signTestToken(server.dataDir, PERSON);
    expect(await verify(good.token)).toEqual(good.user);
    for (const token of [(await signTestToken(server.dataDir, PERSON, { subject: '' })).token, (await signTestToken(server.dataDir, PERSON, { issuedIn: 60 })).token]) {
      await expect(verify(token)).rejects.toBeInstanceOf(TokenError);
      // A second try is not answered from a cache.
      await expect(verify(token)).rejects.toMatchObject({ statusCode: 401, message: expect.stringMatching(/^Invalid token: /) });
    }
  });
});
