import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createServiceClient, path, retryAfterMs, ServiceError, trimBase } from '../../../src/service/client';

/** A fake fetch answering from a list; it records each call's URL and init. */
function fakeFetch(...answers: (Response | Error)[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fn = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('the model service client', () => {
  it('trims the base URL once and encodes path values', async () => {
    const { fetch, calls } = fakeFetch(json({ ok: 1 }), json({ ok: 2 }));
    const client = createServiceClient({ baseUrl: 'https://models.example///', fetch });
    expect(client.base).toBe('https://models.example');
    expect(client.url('/v1/me')).toBe('https://models.example/v1/me');
    await client.request('GET', path`/v1/scenes/${'my scene'}/comments`);
    await client.request('GET', 'v1/config');
    expect(calls.map((c) => c.url)).toEqual(['https://models.example/v1/scenes/my%20scene/comments', 'https://models.example/v1/config']);
    expect(trimBase('')).toBe('');
    expect(createServiceClient({ baseUrl: '', fetch }).url('/v1/scenes')).toBe('/v1/scenes');
  });

  it('sends the token the getter gives at each request (a refreshed one at once), none without one', async () => {
    const { fetch, calls } = fakeFetch(json({}), json({}), json({}), json({}));
    let token: string | null = 'first';
    const client = createServiceClient({ baseUrl: 'https://m', fetch, token: () => token });
    await client.request('GET', '/a');
    token = 'refreshed';
    await client.request('POST', '/b', { json: { x: 1 } });
    token = null;
    await client.request('GET', '/c');
    token = 'again';
    await client.request('GET', '/d', { auth: 'none' });
    const auth = calls.map((c) => (c.init.headers as Record<string, string>).authorization);
    expect(auth).toEqual(['Bearer first', 'Bearer refreshed', undefined, undefined]);
    expect(calls[1]!.init).toMatchObject({ method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } });
  });

  it('a request that needs a token fails without one, and sends nothing', async () => {
    const { fetch, calls } = fakeFetch();
    const client = createServiceClient({
      baseUrl: 'https://m',
      fetch,
      token: () => {
        throw new Error('Sign in required.');
      },
    });
    const error = await client.request('POST', '/v1/models/m/apply-mutations', { json: {}, auth: 'required' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: 'sign-in', status: 401, message: 'Sign in required.' });
    expect(calls).toEqual([]);
  });

  it('retries an idempotent request on 503 after the Retry-After it asks for, and on a network failure', async () => {
    const { fetch, calls } = fakeFetch(json({ error: 'busy' }, 503, { 'retry-after': '3' }), new TypeError('Failed to fetch'), json({ fine: true }));
    const waits: number[] = [];
    const client = createServiceClient({ baseUrl: 'https://m', fetch, retryBaseMs: 100, sleep: async (ms) => void waits.push(ms) });
    expect(await client.request('GET', '/v1/scenes')).toEqual({ fine: true });
    expect(calls).toHaveLength(3);
    // Retry-After: 3 s; then the backoff's second step (100 ms doubled).
    expect(waits).toEqual([3000, 200]);
  });

  it('gives up after its retries, and does not wait for a Retry-After beyond its limit', async () => {
    const busy = () => json({ error: 'The upload queue is full' }, 503, { 'retry-after': '1' });
    const { fetch, calls } = fakeFetch(busy(), busy(), busy());
    const client = createServiceClient({ baseUrl: 'https://m', fetch, retries: 2, sleep: async () => undefined });
    const error = (await client.request('GET', '/x').catch((e: unknown) => e)) as ServiceError;
    expect(calls).toHaveLength(3);
    expect(error).toMatchObject({ kind: 'status', status: 503, reason: 'The upload queue is full', retryAfterMs: 1000 });

    const late = fakeFetch(json({ error: 'later' }, 503, { 'retry-after': '120' }));
    const slow = createServiceClient({ baseUrl: 'https://m', fetch: late.fetch, maxRetryAfterMs: 10_000, sleep: async () => undefined });
    await expect(slow.request('GET', '/x')).rejects.toMatchObject({ status: 503, retryAfterMs: 120_000 });
    expect(late.calls).toHaveLength(1);
  });

  it('does not retry a POST or PATCH that is not marked idempotent', async () => {
    const down = fakeFetch(new TypeError('Failed to fetch'));
    const sleep = vi.fn(async () => undefined);
    const client = createServiceClient({ baseUrl: 'https://m', fetch: down.fetch, sleep });
    await expect(client.request('POST', '/v1/meetings/s/guests', { json: { firstName: 'A', lastName: 'B' } })).rejects.toMatchObject({
      kind: 'network',
      status: 0,
      message: 'The model service could not be reached (Failed to fetch).',
    });
    const busy = fakeFetch(json({ error: 'busy' }, 503, { 'retry-after': '1' }));
    await expect(createServiceClient({ baseUrl: 'https://m', fetch: busy.fetch, sleep }).request('PATCH', '/v1/scenes/s', { json: {} })).rejects.toMatchObject({
      status: 503,
    });
    expect(down.calls).toHaveLength(1);
    expect(busy.calls).toHaveLength(1);
    expect(sleep).not.toHaveBeenCalled();
    // Marked idempotent (saving by uuid is): retried.
    const marked = fakeFetch(new TypeError('Failed to fetch'), json({ saved: [] }));
    expect(await createServiceClient({ baseUrl: 'https://m', fetch: marked.fetch, sleep }).request('POST', '/p', { json: {}, idempotent: true })).toEqual({
      saved: [],
    });
    expect(marked.calls).toHaveLength(2);
  });

  it('does not retry a DELETE (a lost answer to one that worked would come back 404)', async () => {
    const down = fakeFetch(new TypeError('Failed to fetch'));
    const sleep = vi.fn(async () => undefined);
    await expect(createServiceClient({ baseUrl: 'https://m', fetch: down.fetch, sleep }).request('DELETE', '/v1/comments/c')).rejects.toMatchObject({
      kind: 'network',
    });
    expect(down.calls).toHaveLength(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('says why the token could not be had instead of asking as a visitor', async () => {
    const { fetch, calls } = fakeFetch(json({ ok: 1 }));
    const client = createServiceClient({
      baseUrl: 'https://m',
      fetch,
      token: async () => {
        throw new Error('Your sign-in expired: sign in again.');
      },
    });
    await expect(client.request('GET', '/v1/scenes/s/comments')).rejects.toMatchObject({ kind: 'sign-in', message: 'Your sign-in expired: sign in again.' });
    expect(calls).toHaveLength(0);
    // No token at all (a visitor) still asks.
    const visitor = createServiceClient({ baseUrl: 'https://m', fetch, token: async () => null });
    expect(await visitor.request('GET', '/v1/scenes/s/comments')).toEqual({ ok: 1 });
  });

  it('takes a yes whose body broke off as a yes when nothing is read from it, and says so when something is', async () => {
    const broken = () => {
      const response = new Response('{}', { status: 200 });
      Object.defineProperty(response, 'text', { value: () => Promise.reject(new TypeError('network error')) });
      return response;
    };
    const { fetch, calls } = fakeFetch(broken(), broken());
    const client = createServiceClient({ baseUrl: 'https://m', fetch });
    expect(await client.request('POST', '/v1/models/m/mutations', { json: [] })).toBeUndefined();
    await expect(client.request('GET', '/v1/scenes/s', { schema: z.object({ _id: z.string() }) })).rejects.toMatchObject({
      kind: 'network',
      message: 'The answer to GET https://m/v1/scenes/s broke off (network error).',
    });
    expect(calls).toHaveLength(2);
  });

  it("a refusal is a ServiceError with the status and the service's own words (and an upload's report)", async () => {
    const validation = { validatorVersion: '2', errors: 1, warnings: 0, infos: 0, hints: 0, repaired: 0, truncated: false, messages: [] };
    const { fetch } = fakeFetch(
      json({ error: "Scene 's' not found" }, 404),
      json({ error: 'The file is not a glTF', validation }, 400),
      new Response('<html>', { status: 500, statusText: 'Internal Server Error' }),
    );
    const client = createServiceClient({ baseUrl: 'https://m/', fetch });
    const missing = (await client.request('GET', '/v1/scenes/s').catch((e: unknown) => e)) as ServiceError;
    expect(missing).toBeInstanceOf(ServiceError);
    expect(missing).toMatchObject({ kind: 'status', status: 404, reason: "Scene 's' not found", method: 'GET', url: 'https://m/v1/scenes/s' });
    expect(missing.message).toBe("GET https://m/v1/scenes/s answered 404: Scene 's' not found");
    const refused = (await client
      .request('POST', '/v1/models', { body: new Blob(['x']), contentType: 'model/gltf-binary' })
      .catch((e: unknown) => e)) as ServiceError;
    expect(refused).toMatchObject({ status: 400, reason: 'The file is not a glTF' });
    expect(refused.validation?.errors).toBe(1);
    const broken = (await client.request('GET', '/v1/assets').catch((e: unknown) => e)) as ServiceError;
    expect(broken).toMatchObject({ kind: 'status', status: 500, reason: null });
    expect(broken.message).toContain('answered 500: Internal Server Error');
    expect(client.errorOf('POST', '/v1/assets', 413, { error: 'Too large' })).toMatchObject({ status: 413, reason: 'Too large' });
  });

  it('parses answers with the schema; one that does not fit says what and where', async () => {
    const Thing = z.object({ name: z.string(), count: z.number() });
    const { fetch } = fakeFetch(
      json({ name: 'a', count: 2, extra: true }),
      json({ name: 'a', count: 'two' }),
      new Response('not json', { status: 200 }),
      new Response(null, { status: 204 }),
    );
    const client = createServiceClient({ baseUrl: 'https://m', fetch });
    const thing = await client.request('GET', '/t', { schema: Thing });
    expect(thing).toEqual({ name: 'a', count: 2 });
    const bad = (await client.request('GET', '/t', { schema: Thing, what: 'The thing' }).catch((e: unknown) => e)) as ServiceError;
    expect(bad).toMatchObject({ kind: 'invalid', status: 200 });
    expect(bad.message).toMatch(/^The thing is invalid: count: /);
    await expect(client.request('GET', '/t')).rejects.toThrow('https://m/t did not answer with JSON.');
    expect(await client.request('DELETE', '/t')).toBeUndefined();
  });

  it('reads an answer obtained elsewhere as its own', async () => {
    const client = createServiceClient({ baseUrl: 'https://m', fetch: fakeFetch().fetch });
    await expect(client.read(json({ error: 'Sign in required.' }, 401), 'GET', '/v1/scenes/p')).rejects.toMatchObject({
      status: 401,
      reason: 'Sign in required.',
    });
    expect(await client.read(json({ id: 'u' }), 'GET', '/v1/me', { schema: z.object({ id: z.string() }) })).toEqual({ id: 'u' });
  });

  it('GET /v1/me: the person, null without a token or for a refused one (unless strict)', async () => {
    const person = { id: 'u1', firstName: 'Ada', lastName: 'Lovelace' };
    const { fetch, calls } = fakeFetch(json(person), json({ error: 'Invalid token' }, 401), json({ error: 'Invalid token' }, 401), json({ id: 'u1' }));
    let token: string | null = null;
    const client = createServiceClient({ baseUrl: 'https://m', fetch, token: () => token });
    expect(await client.me()).toBeNull();
    expect(calls).toHaveLength(0);
    token = 'tok';
    expect(await client.me()).toEqual(person);
    expect(calls[0]!.init).toMatchObject({ cache: 'no-store', headers: { authorization: 'Bearer tok' } });
    expect(await client.me()).toBeNull();
    await expect(client.me({ token: 'other', strict: true })).rejects.toMatchObject({ status: 401, reason: 'Invalid token' });
    expect((calls[2]!.init.headers as Record<string, string>).authorization).toBe('Bearer other');
    await expect(client.me()).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('an aborted request rejects with the abort, unretried', async () => {
    const abort = new AbortController();
    abort.abort();
    const { fetch, calls } = fakeFetch(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    const client = createServiceClient({ baseUrl: 'https://m', fetch, sleep: async () => undefined });
    await expect(client.request('GET', '/x', { signal: abort.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(1);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});
