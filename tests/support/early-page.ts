import { readFileSync } from 'node:fs';
import { compileEarlyBoot, withEarlyBoot } from '../../scripts/early-boot';
import { indexPageHtml } from '../../src/server/index-page';

const SOURCE = readFileSync(new URL('../../index.html', import.meta.url), 'utf8');
const pages = new Map<string, Promise<string>>();

/** index.html as the build writes it (scripts/early-boot.ts), with the loader worker at `workerUrl` ('' as on the dev server). */
export function builtPage(workerUrl = ''): Promise<string> {
  let page = pages.get(workerUrl);
  if (!page) pages.set(workerUrl, (page = compileEarlyBoot(workerUrl).then((script) => withEarlyBoot(SOURCE, script))));
  return page;
}

/** The page's global object as the boot script leaves it. */
export interface EarlyGlobals {
  __earlyFetches?: Record<string, Promise<Response>>;
  __earlyFetchesStarted?: Promise<unknown>;
  __earlyLoader?: { worker: unknown; ids: Record<string, number>; replies: Record<number, unknown>; failed: boolean; adopted?: boolean };
  __earlyProbe?: unknown;
}

export interface EarlyPageOptions {
  /** The address the server wrote into the page (src/server/index-page.ts); null for a page served without it. */
  modelService?: string | null;
  /** The loader worker's built URL; '' (default) as on the dev server. */
  workerUrl?: string;
  /** The Worker constructor the page sees (none by default). */
  Worker?: unknown;
  /** What a probe canvas's getContext answers. */
  getContext?: (kind: string, attributes: unknown) => unknown;
  /** The page's setTimeout (the probe waits for one without the early downloads); the real one by default. */
  setTimeout?: (run: () => void, ms?: number) => void;
}

/**
 * The built page's inline script, run as the page runs it at `href`, against a fetch that records
 * each request and answers when the test says.
 */
export async function runEarlyPage(href: string, options: EarlyPageOptions = {}) {
  const built = await builtPage(options.workerUrl ?? '');
  const html = options.modelService === null || options.modelService === undefined ? built : indexPageHtml(built, options.modelService);
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
  if (scripts.length !== 1) throw new Error(`the page has ${scripts.length} classic inline scripts, not one`);
  const script = scripts[0];
  const meta = /<meta name="model-service" content="([^"]*)" \/>/.exec(html);
  const requests: string[] = [];
  const inits: (RequestInit | undefined)[] = [];
  const answers = new Map<string, (response: Response) => void>();
  const fetchStub = (url: string, init?: RequestInit) => {
    requests.push(url);
    inits.push(init);
    return new Promise<Response>((resolve) => answers.set(url, resolve));
  };
  const canvases: { width: number; height: number; asked: { kind: string; attributes: unknown }[] }[] = [];
  const page: EarlyGlobals = {};
  const documentStub = {
    createElement: (tag: string) => {
      if (tag !== 'canvas') throw new Error(`the boot script made a ${tag}`);
      const canvas = {
        width: 0,
        height: 0,
        asked: [] as { kind: string; attributes: unknown }[],
        getContext(kind: string, attributes: unknown) {
          canvas.asked.push({ kind, attributes });
          return options.getContext ? options.getContext(kind, attributes) : null;
        },
      };
      canvases.push(canvas);
      return canvas;
    },
    querySelector: (selector: string) =>
      selector === 'meta[name="model-service"]' && meta
        ? { getAttribute: (name: string) => (name === 'content' ? meta[1].replace(/&amp;/g, '&') : null) }
        : null,
  };
  new Function('window', 'location', 'fetch', 'Worker', 'document', 'setTimeout', 'performance', script[1])(
    page,
    new URL(href),
    fetchStub,
    options.Worker,
    documentStub,
    options.setTimeout ?? setTimeout,
    performance,
  );
  return {
    html,
    /** Where the script stands in the page. */
    scriptAt: script.index!,
    metaAt: meta ? meta.index : -1,
    page,
    requests,
    inits,
    canvases,
    answer(url: string, body: unknown) {
      const answer = answers.get(url);
      if (!answer) throw new Error(`${url} was not requested (requests: ${requests.join(', ')})`);
      answer(new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }));
    },
  };
}
