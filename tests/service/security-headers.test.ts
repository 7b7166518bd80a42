import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP_REPORT_MAX_BYTES, CSP_REPORTS_PER_MINUTE_PER_ADDRESS } from '../../src/server/app.ts';
import { inlineScriptHashes } from '../../src/server/security-headers.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * Security headers (issue 10, item 4): the editor, the home page and sign-in cannot be framed by
 * another site; the embedded viewer can; every page has a Content-Security-Policy that allows the
 * inline script of the built index.html by its hash; every answer has nosniff and a referrer policy.
 */

const INLINE = `
      (function () { window.__early = 1; })();
    `;
// As the built page: the early script, then the entry preloaded and imported by an inline module script.
const ENTRY = `import("/assets/index-AbCdEf12.js").catch(function (error) { console.error(error); });`;
const INDEX = `<!doctype html><html><head><script>${INLINE}</script><link rel="modulepreload" crossorigin href="/assets/index-AbCdEf12.js">\n<script type="module">${ENTRY}</script></head><body><div id="root"></div></body></html>\n`;

function directives(csp: string | null): Map<string, string[]> {
  return new Map((csp ?? '').split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name, values]));
}

describe('security headers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await writeFile(join(server.distDir, 'index.html'), INDEX);
  });
  afterAll(() => server.close());

  it('hashes inline scripts exactly as they stand between their tags, and only those without src', () => {
    const hash = `'sha256-${createHash('sha256').update(INLINE).digest('base64')}'`;
    expect(inlineScriptHashes(INDEX)).toEqual([hash, `'sha256-${createHash('sha256').update(ENTRY).digest('base64')}'`]);
    expect(inlineScriptHashes('<script src="/a.js"></script><SCRIPT type="module">b()</SCRIPT >')).toEqual([`'sha256-${createHash('sha256').update('b()').digest('base64')}'`]);
  });

  it('the home page and the editor cannot be framed; their policy allows the inline script by its hash (never any inline script), workers, wasm, eval and blobs', async () => {
    for (const path of ['/', '/edit/demo', '/edit/demo?x=1', '/index.html']) {
      const res = await fetch(`${server.url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const csp = directives(res.headers.get('content-security-policy'));
      expect({ path, frame: csp.get('frame-ancestors') }).toEqual({ path, frame: ["'none'"] });
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(csp.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'", "'unsafe-eval'", ...inlineScriptHashes(INDEX)]);
      expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
      expect(csp.get('worker-src')).toEqual(["'self'", 'blob:']);
      expect(csp.get('connect-src')).toEqual(expect.arrayContaining(["'self'", 'data:', 'blob:']));
      expect(csp.get('object-src')).toEqual(["'none'"]);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    }
  });

  it('the embedded viewer may be framed by any site, under the same policy otherwise', async () => {
    const res = await fetch(`${server.url}/embed/demo?autoPlay=false`);
    expect(res.status).toBe(200);
    const csp = directives(res.headers.get('content-security-policy'));
    expect(csp.has('frame-ancestors')).toBe(false);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(csp.get('script-src')).toContain(inlineScriptHashes(INDEX)[0]);
  });

  it('a new build is seen without a restart', async () => {
    const next = INDEX.replace('window.__early = 1', 'window.__early = 2');
    await writeFile(join(server.distDir, 'index.html'), next);
    try {
      const csp = directives((await fetch(`${server.url}/edit/demo`)).headers.get('content-security-policy'));
      expect(csp.get('script-src')).toContain(inlineScriptHashes(next)[0]);
      expect(csp.get('script-src')).not.toContain(inlineScriptHashes(INDEX)[0]);
    } finally {
      await writeFile(join(server.distDir, 'index.html'), INDEX);
    }
  });

  it('allows the configured endpoints on other hosts to be fetched (and their WebSocket)', async () => {
    const other = await startServer({ env: { MODEL_DERIVATIVE_CDN_URL: 'https://cdn.example.com/derivatives', MEETINGS_URL: 'wss://meet.example.com/m' } });
    try {
      const csp = directives((await fetch(`${other.url}/embed/demo`)).headers.get('content-security-policy'));
      expect(csp.get('connect-src')).toEqual(expect.arrayContaining(['https://cdn.example.com', 'wss://meet.example.com']));
    } finally {
      await other.close();
    }
  });

  it('the sign-in pages cannot be framed and run only their own script, by its hash', async () => {
    for (const path of ['/auth/sign-in?returnTo=/edit/demo', '/auth/callback']) {
      const res = await fetch(`${server.url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const csp = directives(res.headers.get('content-security-policy'));
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(csp.get('script-src')?.every((source) => /^'sha256-[A-Za-z0-9+/]+=*'$/.test(source))).toBe(true);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const callback = await (await fetch(`${server.url}/auth/callback`)).text();
    expect(directives((await fetch(`${server.url}/auth/callback`)).headers.get('content-security-policy')).get('script-src')).toEqual(inlineScriptHashes(callback));
  });

  it('every answer, JSON and files too, says nosniff', async () => {
    for (const path of ['/v1/config', '/v1/scenes/nope', '/libs/draco/draco_decoder.wasm']) {
      const res = await fetch(`${server.url}${path}`);
      expect({ path, nosniff: res.headers.get('x-content-type-options') }).toEqual({ path, nosniff: 'nosniff' });
    }
  });

  it('takes reports of policy violations (report-uri) and logs them', async () => {
    const csp = directives((await fetch(`${server.url}/`)).headers.get('content-security-policy'));
    const [reportUri] = csp.get('report-uri') ?? [];
    expect(reportUri).toBe('/csp-reports');
    const res = await fetch(`${server.url}${reportUri}`, {
      method: 'POST',
      headers: { 'content-type': 'application/csp-report' },
      body: JSON.stringify({ 'csp-report': { 'document-uri': `${server.url}/`, 'violated-directive': 'script-src-elem', 'blocked-uri': 'inline' } }),
    });
    expect(res.status).toBe(204);
  });

  it('bounds the report sink: a report over the size limit is 413, a flood from one address 429 with Retry-After (issue 33, item 11)', async () => {
    const send = (body: string) => fetch(`${server.url}/csp-reports`, { method: 'POST', headers: { 'content-type': 'application/csp-report' }, body });
    const big = await send(JSON.stringify({ 'csp-report': { 'blocked-uri': 'x'.repeat(CSP_REPORT_MAX_BYTES) } }));
    expect(big.status).toBe(413);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < CSP_REPORTS_PER_MINUTE_PER_ADDRESS + 5; i++) {
      last = await send('{"csp-report":{}}');
      statuses.push(last.status);
    }
    // The one before this test and the oversize one count too: at most the limit got through.
    expect(statuses.filter((s) => s === 204).length).toBeLessThanOrEqual(CSP_REPORTS_PER_MINUTE_PER_ADDRESS);
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await last!.json()) as { error: string }).error).toMatch(/^Too many policy reports: at most 30 a minute from one address; try again in \d+ s$/);
  });
});

describe('source maps (issue 33, item 11)', () => {
  for (const [env, status] of [[{}, 404], [{ SERVE_SOURCE_MAPS: 'true' }, 200]] as const) {
    it(`are ${status === 200 ? 'served with SERVE_SOURCE_MAPS=true' : 'not served by default'}`, async () => {
      const server = await startServer({ env });
      try {
        await writeFile(join(server.distDir, 'assets', 'index-AbCdEf12.js.map'), '{"version":3,"sources":["src/secret.ts"],"mappings":""}');
        const res = await fetch(`${server.url}/assets/index-AbCdEf12.js.map`);
        expect(res.status).toBe(status);
        if (status === 404) expect(await res.text()).not.toContain('secret');
        expect((await fetch(`${server.url}/assets/index-AbCdEf12.js`)).status).toBe(200);
      } finally {
        await server.close();
      }
    });
  }
});
