// index.html's boot script (src/viewer/early-boot.ts) compiled into the page: one classic inline
// script, minified, no imports at run time, written where index.html has EARLY_BOOT_MARKER. Used by
// vite.config.ts (earlyBoot: the build and the dev server) and by the tests that run the page's script.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const ENTRY = fileURLToPath(new URL('../src/viewer/early-boot.ts', import.meta.url));

/** Where index.html's boot script goes (in its head, before the app's entry). */
export const EARLY_BOOT_MARKER = '<!-- early-boot: src/viewer/early-boot.ts, compiled in by vite.config.ts -->';

/**
 * The boot script's text: earlyBoot(loaderWorkerUrl) and what it imports as one IIFE. An empty
 * `loaderWorkerUrl` (the dev server) leaves the loader worker to the app.
 */
export async function compileEarlyBoot(loaderWorkerUrl = ''): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import { earlyBoot } from ${JSON.stringify(ENTRY)};\nearlyBoot(${JSON.stringify(loaderWorkerUrl)});\n`,
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      sourcefile: 'early-boot-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text.trim();
  // Inline in the page: nothing in it may end its element or open a comment there.
  if (/<\/script|<!--/i.test(code)) throw new Error('early-boot: the compiled script contains </script or <!--.');
  return code;
}

/** `html` with its EARLY_BOOT_MARKER replaced by the inline `<script>` of `script`. */
export function withEarlyBoot(html: string, script: string): string {
  const at = html.indexOf(EARLY_BOOT_MARKER);
  if (at < 0 || html.indexOf(EARLY_BOOT_MARKER, at + 1) >= 0) throw new Error(`early-boot: index.html must hold ${EARLY_BOOT_MARKER} once.`);
  return `${html.slice(0, at)}<script>${script}</script>${html.slice(at + EARLY_BOOT_MARKER.length)}`;
}

/** The loader worker's chunk in the build. */
const WORKER_CHUNK = /(^|\/)container-worker-[\w-]+\.js$/;

/**
 * The Vite plugin that writes the boot script into index.html, in the build and on the dev server.
 * The built page's script starts the loader worker at its built URL (src/scene/container-client.ts
 * adopts it); on the dev server the URL is empty and the app starts the worker itself.
 */
export function earlyBoot(): Plugin {
  let base = '/';
  return {
    name: 'early-boot',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, ctx) {
        let worker = '';
        if (ctx.bundle) {
          const file = Object.keys(ctx.bundle).find((name) => WORKER_CHUNK.test(name));
          if (!file) throw new Error('early-boot: the loader worker (container-worker) is not in the bundle.');
          worker = base + file;
        }
        return withEarlyBoot(html, await compileEarlyBoot(worker));
      },
    },
  };
}
