import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIndexPage, indexPageHtml } from '../../../src/server/index-page';
import { inlineScriptHashes } from '../../../src/server/security-headers';

describe('the page as the server sends it', () => {
  it("carries the model service's address at the top of its head, escaped", () => {
    const html = '<!doctype html><html><head><title>t</title><script>x()</script></head><body></body></html>';
    expect(indexPageHtml(html, '')).toBe('<!doctype html><html><head>\n    <meta name="model-service" content="" /><title>t</title><script>x()</script></head><body></body></html>');
    expect(indexPageHtml(html, 'https://m.test/a?b=1&c="<x>"')).toContain('<meta name="model-service" content="https://m.test/a?b=1&amp;c=&quot;&lt;x&gt;&quot;" />');
    // A head with attributes; a document without one is sent as it is.
    expect(indexPageHtml('<html><HEAD lang="en"><title>t</title></HEAD></html>', '/ms')).toBe('<html><HEAD lang="en">\n    <meta name="model-service" content="/ms" /><title>t</title></HEAD></html>');
    expect(indexPageHtml('<p>no head</p>', '/ms')).toBe('<p>no head</p>');
  });

  it('is read again, with its script hashes, when the file changes, and is null when there is none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'index-page-'));
    try {
      const file = join(dir, 'index.html');
      const page = createIndexPage(file, '');
      expect(await page()).toBeNull();
      await writeFile(file, '<head><script>one()</script></head>');
      expect((await page())?.html).toContain('one()');
      expect((await page())?.scriptHashes).toEqual(inlineScriptHashes('<script>one()</script>'));
      await writeFile(file, '<head><script>two(), longer()</script></head>');
      await utimes(file, new Date(), new Date(Date.now() + 5000));
      expect((await page())?.html).toContain('two(), longer()');
      expect((await page())?.scriptHashes).toEqual(inlineScriptHashes('<script>two(), longer()</script>'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
