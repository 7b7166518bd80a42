import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_TIMEOUTS, MAX_JSON_DEPTH, jsonDepth } from '../../src/server/app.ts';
import { CONFIG_DEFAULTS } from '../../src/server/config.ts';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * The app under abuse (issue 10): deeply nested JSON (item 3), slow clients (item 6), and the
 * cross-origin preflights of the upload and the CDN (item 8).
 */

/** `depth` arrays inside each other around `inner`. */
function nested(depth: number, inner = '0'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** Opens a connection, writes `head`, then the chunks one by one `gapMs` apart; resolves with all it read when the server closes. */
function trickle(port: number, head: string, chunks: string[], gapMs: number): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (data) => (text += data.toString()));
    socket.on('error', () => {}); // the server may reset while we write
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(head);
      let i = 0;
      const next = () => {
        if (i < chunks.length && !socket.destroyed) {
          socket.write(chunks[i++]);
          timer = setTimeout(next, gapMs);
        }
      };
      timer = setTimeout(next, gapMs);
    });
    setTimeout(() => reject(new Error(`the server kept the connection open for 20 s (read: ${text.slice(0, 200)})`)), 20_000).unref();
  });
}

describe('JSON nesting depth (item 3)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('counts nesting without recursion, ignoring brackets in strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[["}]}')).toBe(3);
    expect(jsonDepth('"\\"[["')).toBe(0);
    expect(jsonDepth(nested(100_000))).toBe(100_000);
  });

  it('answers 400 with the reason for a body nested 10,000 deep, signed in or not, instead of overflowing the stack', async () => {
    const { token } = await signTestToken(server.dataDir, { firstName: 'Deep', lastName: 'Nest' });
    const deep = `{"name":"x","viewerConfig":{"uiConfig":${nested(10_000)}}}`;
    expect(deep.length).toBeLessThan(25_000);
    for (const [label, headers, body] of [
      ['anonymous, with __proto__', {}, `{"a":${nested(10_000, '{"__proto__":{}}')}}`],
      ['anonymous, with NUL', {}, `{"a":${nested(10_000, '"\\u0000"')}}`],
      ['signed in, a deep viewerConfig', { authorization: `Bearer ${token}` }, deep],
    ] as const) {
      const res = await fetch(`${server.url}/v1/scenes`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect({ label, status: res.status }).toEqual({ label, status: 400 });
      expect(await res.json()).toEqual({ error: expect.stringMatching(new RegExp(`^The JSON body is nested 1000[0-9] levels deep; at most ${MAX_JSON_DEPTH} are allowed$`)) });
    }
    expect(await server.store.listScenes()).toEqual([]);
  });

  it(`accepts a body nested ${MAX_JSON_DEPTH} deep`, async () => {
    const { token } = await signTestToken(server.dataDir, { firstName: 'Deep', lastName: 'Nest' });
    const body = `{"name":"Deep enough","viewerConfig":{"uiConfig":{"x":${nested(MAX_JSON_DEPTH - 3)}}}}`;
    expect(jsonDepth(body)).toBe(MAX_JSON_DEPTH);
    const res = await fetch(`${server.url}/v1/scenes`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
    expect(res.status).toBeLessThan(500);
  });
});

describe('slow clients (item 6)', () => {
  it('has timeouts by default that a slow phone upload of MAX_ASSET_BYTES survives', async () => {
    const server = await startServer();
    try {
      expect(server.app.server.requestTimeout).toBe(HTTP_TIMEOUTS.requestMs);
      expect(server.app.server.timeout).toBe(HTTP_TIMEOUTS.idleMs);
      expect(server.app.server.headersTimeout).toBe(HTTP_TIMEOUTS.headersMs);
      for (const ms of [HTTP_TIMEOUTS.requestMs, HTTP_TIMEOUTS.idleMs, HTTP_TIMEOUTS.headersMs, HTTP_TIMEOUTS.bodyMs]) expect(ms).toBeGreaterThan(0);
      // A phone uploading the largest model at 300 kbit/s, and at the slowest accepted rate below that.
      const phoneSeconds = (CONFIG_DEFAULTS.MAX_ASSET_BYTES * 8) / 300_000;
      expect(HTTP_TIMEOUTS.requestMs / 1000).toBeGreaterThan(phoneSeconds);
      expect(HTTP_TIMEOUTS.uploadMinBytesPerS * 8).toBeLessThan(300_000 / 4);
    } finally {
      await server.close();
    }
  });

  describe('with short timeouts', () => {
    let server: TestServer;
    let token: string;
    beforeAll(async () => {
      server = await startServer({ app: { timeouts: { idleMs: 1500, headersMs: 1000, bodyMs: 1000, uploadMinBytesPerS: 64 * 1024, uploadGraceMs: 500 } } });
      ({ token } = await signTestToken(server.dataDir, { firstName: 'Slow', lastName: 'Client' }));
    });
    afterAll(() => server.close());

    it('cuts off a JSON body trickled a byte at a time with 408', async () => {
      const body = '{"name":"trickled"}';
      const head = `POST /v1/scenes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const { text } = await trickle(server.port, head, [...body], 300);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('{"error":"The request body did not arrive within 1 s"}');
      expect(await server.store.listScenes()).toEqual([]);
    });

    it('cuts off an upload that comes slower than the minimum rate with 408', async () => {
      const head = `POST /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: model/gltf-binary\r\nContent-Length: 100000\r\n\r\n`;
      const { text } = await trickle(server.port, head, Array.from({ length: 100 }, () => 'x'.repeat(1000)), 100);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('The upload came slower than 65536 bytes per second on average');
    });

    it('closes a connection whose headers never end', async () => {
      const { text, ms } = await trickle(server.port, 'GET /v1/config HTTP/1.1\r\nHost: x\r\n', Array.from({ length: 60 }, () => 'X-Slow: 1\r\n'), 200);
      expect(text === '' || /^HTTP\/1\.1 408 /.test(text)).toBe(true);
      expect(ms).toBeLessThan(12_000);
    });
  });
});

describe('CORS preflights (item 8)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('lets another origin send an upload with its X-File-Name (and Prefer) headers', async () => {
    const res = await fetch(`${server.url}/v1/models`, {
      method: 'OPTIONS',
      headers: { origin: 'https://host.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-file-name,prefer' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-file-name', 'prefer']));
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('allows every method the API has, DELETE included (issue 33, item 5: a cross-origin comment delete failed)', async () => {
    const res = await fetch(`${server.url}/v1/scenes/s/comments/c`, {
      method: 'OPTIONS',
      headers: { origin: 'https://host.example.com', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim());
    for (const method of ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']) expect(allowed).toContain(method);
    expect(server.app.hasRoute({ method: 'DELETE', url: '/v1/scenes/:id/comments/:commentId' })).toBe(true);
    // A cross-origin DELETE's answer is readable by the page.
    const { token } = await signTestToken(server.dataDir, { firstName: 'Cross', lastName: 'Origin' });
    const deleted = await fetch(`${server.url}/v1/scenes/nope/comments/c1`, { method: 'DELETE', headers: { origin: 'https://host.example.com', authorization: `Bearer ${token}` } });
    expect(deleted.status).toBe(404);
    expect(deleted.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers preflights under /cdn too', async () => {
    for (const path of ['/cdn/derivatives/m/v/model_file.binz', '/cdn/assets/a/model.3dxa', '/cdn/thumbnails/s/h.png']) {
      const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { origin: 'https://host.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' } });
      expect({ path, status: res.status, origin: res.headers.get('access-control-allow-origin') }).toEqual({ path, status: 204, origin: '*' });
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    }
  });
});

describe('requests the HTTP parser cannot read', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const exchange = (text: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write(text));
      let read = '';
      socket.on('data', (data) => (read += data.toString()));
      socket.on('error', () => {});
      socket.on('close', () => resolve(read));
    });

  it('answers in the { error } form with the reason, and closes', async () => {
    const garbage = await exchange('GET /v1/config HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.stringMatching(/^Malformed HTTP request \(HPE_[A-Z_]+\)/) });
    const huge = await exchange(`GET /v1/config HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('{"error":"The request headers are larger than this server accepts (16 KiB)"}');
    expect((await fetch(`${server.url}/v1/config`)).status).toBe(200);
  });
});
