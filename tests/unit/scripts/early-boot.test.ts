import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileEarlyBoot, EARLY_BOOT_MARKER, earlyBoot, withEarlyBoot } from '../../../scripts/early-boot';
import { indexPageHtml } from '../../../src/server/index-page';
import { inlineScriptHashes, scriptHash } from '../../../src/server/security-headers';

const SOURCE = readFileSync(new URL('../../../index.html', import.meta.url), 'utf8');
const WORKER = '/assets/container-worker-AbC_12-x.js';

/** The plugin's transformIndexHtml handler, as Vite calls it. */
function handlerOf(base = '/') {
  const plugin = earlyBoot();
  (plugin.configResolved as (config: { base: string }) => void)({ base });
  const hook = plugin.transformIndexHtml as { order: string; handler: (html: string, ctx: { bundle?: Record<string, unknown> }) => Promise<string> };
  expect(hook.order).toBe('post');
  return hook.handler;
}

describe("index.html's boot script, compiled", () => {
  it('is one small classic script: an IIFE with no imports or exports left, the worker URL in it', async () => {
    const code = await compileEarlyBoot(WORKER);
    expect(code.startsWith('(()=>{')).toBe(true);
    expect(code.endsWith('})();')).toBe(true);
    // A classic script's body: an import or export declaration would not even parse here.
    expect(() => new Function(code)).not.toThrow();
    expect(code).not.toMatch(/\bimport\s*\(|import\.meta/);
    expect(code).toContain(JSON.stringify(WORKER));
    // About 4 kB (the hand-written script was 11.4 kB with its comments): only pure helpers came in.
    expect(code.length).toBeLessThan(6000);
    expect(await compileEarlyBoot()).toContain('("")');
  });

  it('takes the place of the marker in index.html, in its head, before the entry module', async () => {
    const html = withEarlyBoot(SOURCE, 'boot("$&")');
    expect(html).not.toContain(EARLY_BOOT_MARKER);
    const at = html.indexOf('<script>boot("$&")</script>');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(html.indexOf('</head>'));
    expect(at).toBeLessThan(html.indexOf('<script type="module"'));
    expect(() => withEarlyBoot('<head></head>', 'x')).toThrow(/must hold/);
    expect(() => withEarlyBoot(`${EARLY_BOOT_MARKER}${EARLY_BOOT_MARKER}`, 'x')).toThrow(/must hold/);
  });
});

describe('the early-boot Vite plugin', () => {
  it("writes the script with the built loader worker's URL under the base", async () => {
    const html = await handlerOf('/viewer/')(SOURCE, { bundle: { 'assets/index-1.js': {}, 'assets/container-worker-AbC_12-x.js': {} } });
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([await compileEarlyBoot(`/viewer${WORKER}`)]);
  });

  it('on the dev server (no bundle) writes it without a worker URL; a build without the worker fails', async () => {
    expect(await handlerOf()(SOURCE, {})).toContain(`<script>${await compileEarlyBoot('')}</script>`);
    await expect(handlerOf()(SOURCE, { bundle: { 'assets/index-1.js': {} } })).rejects.toThrow(/loader worker/);
  });

  it("is allowed by the served page's CSP: the server hashes the script as written", async () => {
    const html = indexPageHtml(await handlerOf()(SOURCE, { bundle: { 'assets/container-worker-A.js': {} } }), 'https://ms.test');
    expect(inlineScriptHashes(html)).toEqual([scriptHash(await compileEarlyBoot('/assets/container-worker-A.js'))]);
  });
});
