import { readFile, stat } from 'node:fs/promises';
import { inlineScriptHashes } from './security-headers.ts';

/**
 * The app's page (the built index.html) as this server sends it: with the model service's address
 * the client configuration gives (`/v1/config`'s `endpoints.modelService`) in a meta element at the
 * top of its head. The page's boot script (src/viewer/early-boot.ts, inline in the built page)
 * reads it and asks for the scene document at once, beside the configuration, instead of one
 * round trip after it. A page served without it (another host, the dev server) waits for the
 * configuration, as before. Not a script: the page's CSP script hashes are unchanged.
 */
export function indexPageHtml(html: string, modelService: string): string {
  const meta = `<meta name="model-service" content="${escapeAttribute(modelService)}" />`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (!head) return html;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`;
}

/** The page as sent, and the hashes of its inline scripts (its CSP allows those). */
export interface IndexPage {
  html: string;
  scriptHashes: string[];
}

/**
 * indexPageHtml of the file at `indexHtml` and its script hashes, from one read, read again only
 * when the file changes (a new build while the server runs); null when it cannot be read (the app
 * answers 503 then).
 */
export function createIndexPage(indexHtml: string, modelService: string): () => Promise<IndexPage | null> {
  let cached: { key: string; page: IndexPage } | undefined;
  return async () => {
    let key: string;
    try {
      const info = await stat(indexHtml);
      if (!info.isFile()) return null;
      key = `${info.size}:${info.mtimeMs}`;
      if (cached?.key !== key) {
        const html = indexPageHtml(await readFile(indexHtml, 'utf8'), modelService);
        cached = { key, page: { html, scriptHashes: inlineScriptHashes(html) } };
      }
    } catch {
      return null;
    }
    return cached.page;
  };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
