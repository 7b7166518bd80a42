import { describe, expect, it, vi } from 'vitest';
import { createServiceClient } from '../../../src/service/client';
import { createHostApi, type Execute, type MessageTarget } from '../../../src/api/host-api';
import { createHostAuth, modelServiceWhoIs, tokenExpiry, withoutSecret } from '../../../src/api/host-auth';

/** A JWT-shaped token (not signed: the fake service decides) with the given claims. */
const jwt = (claims: Record<string, unknown>) =>
  ['{"alg":"RS256"}', JSON.stringify(claims), 'signature'].map((part, i) => (i < 2 ? Buffer.from(part).toString('base64url') : part)).join('.');

const NOW = Date.UTC(2030, 0, 1);
const good = jwt({ sub: 'u1', exp: NOW / 1000 + 3600 });
const other = jwt({ sub: 'u2', exp: NOW / 1000 + 7200 });

function service(valid: Record<string, { firstName: string; lastName: string }>) {
  return vi.fn(async (token: string) => {
    const person = valid[token];
    if (!person) throw new Error('The model service refused the token: Invalid token: the signature does not verify');
    return person;
  });
}

describe('host auth', () => {
  it('keeps a token the service accepts, and says whose it is and when it expires', async () => {
    const whoIs = service({ [good]: { firstName: 'Hana', lastName: 'Host' } });
    const auth = createHostAuth({ whoIs, now: () => NOW });
    const changed = vi.fn();
    auth.subscribe(changed);
    expect(auth.token()).toBeNull();
    expect(await auth.set(good)).toEqual({ signedIn: true, firstName: 'Hana', lastName: 'Host', expiresAt: NOW + 3600_000 });
    expect(auth.token()).toBe(good);
    expect(whoIs).toHaveBeenCalledWith(good);
    expect(changed).toHaveBeenCalledTimes(1);
    // null forgets it.
    expect(await auth.set(null)).toEqual({ signedIn: false, firstName: null, lastName: null, expiresAt: null });
    expect(auth.token()).toBeNull();
    expect(changed).toHaveBeenCalledTimes(2);
  });

  it('a refused or expired token is not kept, the one before stays, and no reason quotes the token', async () => {
    const auth = createHostAuth({ whoIs: service({ [good]: { firstName: 'Hana', lastName: 'Host' } }), now: () => NOW });
    await auth.set(good);
    const refused = auth.set(other);
    await expect(refused).rejects.toThrow('The model service refused the token: Invalid token: the signature does not verify (the viewer keeps the token it had)');
    expect(auth.token()).toBe(good);
    const expired = jwt({ sub: 'u1', exp: NOW / 1000 - 1 });
    await expect(auth.set(expired)).rejects.toThrow(`The token expired at ${new Date(NOW - 1000).toISOString()}`);
    expect(auth.token()).toBe(good);
    // A reason from elsewhere that quotes the token has it blotted out.
    const leaky = createHostAuth({ whoIs: async (t) => Promise.reject(new Error(`bad token ${t}!`)), now: () => NOW });
    const error = await leaky.set(good).catch((e: Error) => e);
    expect((error as Error).message).toBe('bad token [token]! (the viewer keeps the token it had)');
  });

  it('of two calls at once, the later one wins whichever answer comes first', async () => {
    let release: () => void = () => undefined;
    const slow = new Promise<void>((r) => (release = r));
    const auth = createHostAuth({
      whoIs: async (token) => {
        if (token === good) await slow;
        return { firstName: token === good ? 'First' : 'Second', lastName: 'X' };
      },
      now: () => NOW,
    });
    const first = auth.set(good);
    expect((await auth.set(other)).firstName).toBe('Second');
    release();
    await expect(first).rejects.toThrow('A later setAuthToken call replaced this one.');
    expect(auth.token()).toBe(other);
  });

  it('reads the expiry of a JWT, null for one without or an unreadable one', () => {
    expect(tokenExpiry(jwt({ exp: 1_900_000_000 }))).toBe(1_900_000_000_000);
    expect(tokenExpiry(jwt({ sub: 'x' }))).toBeNull();
    expect(tokenExpiry('a.%%%.c')).toBeNull();
    expect(withoutSecret('x SECRET y SECRET', 'SECRET')).toBe('x [token] y [token]');
  });

  it('asks the model service who the token names (GET /v1/me) and passes its refusal on', async () => {
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const header = (init.headers as Record<string, string>).authorization;
      if (header === `Bearer ${good}`) return new Response(JSON.stringify({ id: 'u1', firstName: 'Hana', lastName: 'Host' }), { status: 200 });
      return new Response(JSON.stringify({ error: 'Invalid token: the token has expired' }), { status: 401 });
    });
    const whoIs = modelServiceWhoIs('https://svc.example/', fetchMock as unknown as typeof fetch);
    expect(await whoIs(good)).toEqual({ firstName: 'Hana', lastName: 'Host' });
    expect(fetchMock.mock.calls[0][0]).toBe('https://svc.example/v1/me');
    await expect(whoIs(other)).rejects.toThrow('The model service refused the token: Invalid token: the token has expired');
    // Unreachable: GET /v1/me is tried three times (the client's retries), then the reason is given.
    const offline = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));
    const down = modelServiceWhoIs(createServiceClient({ baseUrl: 'https://svc.example', fetch: offline as unknown as typeof fetch, sleep: async () => undefined }));
    await expect(down(good)).rejects.toThrow('The model service could not be reached to check the token (Failed to fetch).');
    expect(offline).toHaveBeenCalledTimes(3);
    // A person the viewer cannot read.
    const odd = modelServiceWhoIs('https://svc.example', (async () => new Response(JSON.stringify({ id: 'u1', firstName: 7 }), { status: 200 })) as unknown as typeof fetch);
    await expect(odd(good)).rejects.toThrow("The model service described the token's person in a form the viewer cannot read.");
  });
});

describe('setAuthToken through the transport', () => {
  const SELF = 'https://viewer.example';
  const HOST = 'https://host.example';
  const STRANGER = 'https://stranger.example';

  function setup(origins: string[] | undefined) {
    const listeners = new Set<(event: MessageEvent) => void>();
    const self = { addEventListener: (_t: 'message', l: (e: MessageEvent) => void) => void listeners.add(l), removeEventListener: () => undefined };
    const parent: MessageTarget = { postMessage: () => undefined };
    const api = createHostApi({ self, parent, selfOrigin: SELF, sceneId: 's', instanceId: 'v', report: vi.fn() });
    const auth = createHostAuth({ whoIs: service({ [good]: { firstName: 'Hana', lastName: 'Host' } }), now: () => NOW });
    const execute: Execute = async (func, args) => {
      if (func !== 'setAuthToken') throw new Error(`unexpected ${func}`);
      return auth.set((args as { token: string | null }).token);
    };
    api.setOrigins(origins);
    api.ready(execute);
    const posted: { message: any; origin: string }[] = [];
    const send = (data: unknown, origin: string) => {
      const source: MessageTarget = { postMessage: (message, target) => void posted.push({ message: structuredClone(message), origin: target }) };
      for (const l of listeners) l({ data, origin, source } as unknown as MessageEvent);
    };
    const answer = async (requestId: string) => {
      await vi.waitFor(() => expect(posted.some((p) => p.message.requestId === requestId)).toBe(true));
      return posted.find((p) => p.message.requestId === requestId)!.message;
    };
    return { auth, send, answer, posted };
  }

  it('an allowed page hands a token over: kept, answered without it', async () => {
    const { auth, send, answer, posted } = setup([HOST]);
    send({ type: 'api.request', requestId: 'r1', func: 'setAuthToken', arguments: { token: good } }, HOST);
    const reply = await answer('r1');
    expect(reply.response).toEqual({ signedIn: true, firstName: 'Hana', lastName: 'Host', expiresAt: NOW + 3600_000 });
    expect(auth.token()).toBe(good);
    // A refused one: an error answer, without the token in it.
    send({ type: 'api.request', requestId: 'r2', func: 'setAuthToken', arguments: { token: other } }, HOST);
    expect((await answer('r2')).error).toMatch(/^setAuthToken failed: The model service refused the token/);
    // A malformed one: the schema's error names the argument, never the value.
    send({ type: 'api.request', requestId: 'r3', func: 'setAuthToken', arguments: { token: `${good}!` } }, HOST);
    expect((await answer('r3')).error).toBe('setAuthToken: arguments.token: token must be a JWT: three base64url parts joined by dots');
    expect(auth.token()).toBe(good);
    for (const p of posted) {
      expect(JSON.stringify(p.message)).not.toContain(good);
      expect(JSON.stringify(p.message)).not.toContain(other);
    }
  });

  it('a page that may only read (the open default) or may not use the API is refused, and nothing is kept', async () => {
    const open = setup(undefined);
    open.send({ type: 'api.request', requestId: 'r1', func: 'setAuthToken', arguments: { token: good } }, STRANGER);
    expect((await open.answer('r1')).error).toMatch(/'setAuthToken' changes the scene, and the page at https:\/\/stranger\.example may only read/);
    expect(open.auth.token()).toBeNull();
    const listed = setup([HOST]);
    listed.send({ type: 'api.request', requestId: 'r2', func: 'setAuthToken', arguments: { token: good } }, STRANGER);
    expect((await listed.answer('r2')).error).toMatch(/may not use this viewer's API/);
    expect(listed.auth.token()).toBeNull();
  });
});
