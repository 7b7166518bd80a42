import { describe, expect, it, vi } from 'vitest';
import { checkNewOrigin, describeHostOrigins, saveHostOrigins } from '../../../../src/ui/editor/host-origins';
import { accessFor, MAX_HOST_ORIGINS } from '../../../../src/protocol/host-api';

describe('host pages of the editor (hostOrigins)', () => {
  it('accepts an origin or *, dropping a bare trailing slash', () => {
    expect(checkNewOrigin('  https://shop.example ', [])).toEqual({ origin: 'https://shop.example' });
    expect(checkNewOrigin('https://shop.example/', [])).toEqual({ origin: 'https://shop.example' });
    expect(checkNewOrigin('http://localhost:8080', [])).toEqual({ origin: 'http://localhost:8080' });
    expect(checkNewOrigin('*', ['https://a.example'])).toEqual({ origin: '*' });
  });

  it('refuses what is not an origin, saying why, and what is listed already or too many', () => {
    expect(checkNewOrigin('', [])).toEqual({ error: "Type the origin of a page, such as 'https://shop.example', or '*' for every page." });
    expect(checkNewOrigin('https://shop.example/cart', [])).toEqual({
      error: "'https://shop.example/cart': a host origin must be '*' or an origin such as 'https://example.com' (scheme, host and port; no path, no trailing slash).",
    });
    expect(checkNewOrigin('shop.example', [])).toMatchObject({ error: expect.stringContaining("'shop.example': a host origin must be") });
    expect(checkNewOrigin('ftp://shop.example', [])).toMatchObject({ error: expect.stringContaining('a host origin must be') });
    expect(checkNewOrigin('https://shop.example', ['https://shop.example'])).toEqual({ error: 'https://shop.example is listed already.' });
    const full = Array.from({ length: MAX_HOST_ORIGINS }, (_, i) => `https://s${i}.example`);
    expect(checkNewOrigin('https://one-more.example', full)).toEqual({ error: `At most ${MAX_HOST_ORIGINS} origins may be listed: remove one first.` });
  });

  it('says what the list means', () => {
    expect(describeHostOrigins([])).toMatch(/^None listed: any page may embed this scene, read it/);
    expect(describeHostOrigins(['*', 'https://a.example'])).toMatch(/every page may drive/);
    expect(describeHostOrigins(['https://a.example'])).toMatch(/pages of other origins get nothing/);
  });

  it('says what the viewer does: each list described as accessFor treats a page of another origin', () => {
    const sentence = { read: /^None listed: any page may embed this scene, read it and hear its events/, all: /every page may drive/, none: /pages of other origins get nothing/ } as const;
    const self = 'https://viewer.example';
    for (const list of [[], ['*'], ['https://a.example'], ['https://a.example', '*'], [self]]) {
      const viewer = accessFor(list, 'https://unlisted.example', self);
      expect({ list, text: describeHostOrigins(list) }).toEqual({ list, text: expect.stringMatching(sentence[viewer]) });
    }
    // What the panel shows for the empty list is the viewer's open default.
    expect(accessFor([], 'https://unlisted.example', self)).toBe(accessFor(undefined, 'https://unlisted.example', self));
  });

  it('saves with the scene PATCH (null for an empty list) and returns what the service kept', async () => {
    const fetch = vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body));
      return new Response(JSON.stringify(body.hostOrigins ? { _id: 's', hostOrigins: body.hostOrigins } : { _id: 's' }), { status: 200 });
    });
    const options = { modelService: 'https://models.example/', sceneId: 'my scene', token: 'tok', fetch: fetch as unknown as typeof globalThis.fetch };
    expect(await saveHostOrigins(options, ['https://a.example'])).toEqual(['https://a.example']);
    expect(fetch.mock.calls[0][0]).toBe('https://models.example/v1/scenes/my%20scene');
    expect(fetch.mock.calls[0][1]).toMatchObject({ method: 'PATCH', headers: { authorization: 'Bearer tok', 'content-type': 'application/json' }, body: '{"hostOrigins":["https://a.example"]}' });
    expect(await saveHostOrigins(options, [])).toEqual([]);
    expect(fetch.mock.calls[1][1].body).toBe('{"hostOrigins":null}');
  });

  it("rejects with the service's reason, or says it could not be reached", async () => {
    const refused = vi.fn(async () => new Response(JSON.stringify({ error: "Only the owner of scene 's' may change ... (hostOrigins)" }), { status: 403 }));
    await expect(saveHostOrigins({ modelService: 'https://m.example', sceneId: 's', token: 'tok', fetch: refused as unknown as typeof fetch }, ['*'])).rejects.toThrow(
      "Not saved: Only the owner of scene 's' may change ... (hostOrigins).",
    );
    const offline = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(saveHostOrigins({ modelService: 'https://m.example', sceneId: 's', token: null, fetch: offline as unknown as typeof fetch }, ['*'])).rejects.toThrow(
      'The model service could not be reached (Failed to fetch): nothing was saved.',
    );
  });
});
