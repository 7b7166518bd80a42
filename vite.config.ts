/// <reference types="vitest/config" />
import { build, defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { createReadStream, cpSync, existsSync, statSync } from 'node:fs';
import { join, normalize, resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { earlyBoot } from './scripts/early-boot';
import { generateAssets, writeAssets, type GeneratedAsset } from './scripts/generate-assets';

/**
 * Decoders for Draco and Basis/KTX2 are served from /libs/draco and /libs/basis. They are copied
 * from the installed three package at build time (and served from it in dev), never committed.
 */
const THREE_LIBS = resolve(import.meta.dirname, 'node_modules/three/examples/jsm/libs');
const DECODER_DIRS = ['draco', 'basis'] as const;

function decoderLibs(): Plugin {
  return {
    name: 'decoder-libs',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = (req.url ?? '').split('?')[0];
        const m = /^\/libs\/(draco|basis)\/(.+)$/.exec(url);
        if (!m) return next();
        const file = normalize(join(THREE_LIBS, m[1], m[2]));
        if (!file.startsWith(join(THREE_LIBS, m[1])) || !existsSync(file) || !statSync(file).isFile()) return next();
        res.setHeader('Content-Type', file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');
        createReadStream(file).pipe(res);
      });
    },
    writeBundle(options) {
      const out = options.dir ?? resolve(import.meta.dirname, 'dist');
      for (const dir of DECODER_DIRS) {
        cpSync(join(THREE_LIBS, dir), join(out, 'libs', dir), {
          recursive: true,
          filter: (src) => !src.endsWith('README.md'),
        });
      }
    },
  };
}

/**
 * Environments (procedural skies and a studio, as gain-map JPEG and Radiance HDR, with their
 * catalog) and the water normal map are made by our own code (scripts/generate-assets.ts): written
 * into dist/ at build time and served from memory in dev, never committed. Made once per process.
 */
function generatedAssets(): Plugin {
  let assets: Map<string, GeneratedAsset> | null = null;
  const all = () => (assets ??= new Map(generateAssets().map((a) => [a.path, a])));
  return {
    name: 'generated-assets',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = (req.url ?? '').split('?')[0];
        if (!url.startsWith('/assets/environments/') && !url.startsWith('/textures/')) return next();
        const asset = all().get(url);
        if (!asset) return next();
        res.setHeader('Content-Type', asset.contentType);
        res.setHeader('Content-Length', String(asset.bytes.length));
        res.end(Buffer.from(asset.bytes.buffer, asset.bytes.byteOffset, asset.bytes.byteLength));
      });
    },
    writeBundle(options) {
      writeAssets(options.dir ?? resolve(import.meta.dirname, 'dist'), [...all().values()]);
    },
  };
}

/**
 * A build plugin that rewrites the built index.html with the URL of one chunk of the bundle, found
 * by its file name (`what` names it in the error when it is missing).
 */
function withBuiltChunk(name: string, chunk: RegExp, what: string, rewrite: (html: string, url: string) => string): Plugin {
  let base = '/';
  return {
    name,
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const file = Object.keys(ctx.bundle ?? {}).find((f) => chunk.test(f));
        if (!file) throw new Error(`${name}: ${what} is not in the bundle.`);
        return rewrite(html, base + file);
      },
    },
  };
}

/**
 * The app's entry, imported by an inline module script instead of loaded by a `<script src>`.
 *
 * A document's module scripts hold back its load event until their whole graph has run. An
 * embed's document that has not loaded keeps its host page loading too, and meanwhile the browser
 * draws its loading state. On a software GPU each of those frames is a composite of the whole
 * window, taken from the viewer's own start (bench/LOAD-PROFILE.md, "the entry off the load event").
 * A modulepreload link still fetches the entry at once. A failed import (the entry or a chunk it needs not
 * fetched, or an error while it runs) says so on the page and is reported as an uncaught error.
 */
function entryOffTheLoadEvent(): Plugin {
  return {
    name: 'entry-off-the-load-event',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const tags = [...html.matchAll(/<script type="module" crossorigin src="([^"]+)"><\/script>/g)];
        if (tags.length !== 1) throw new Error(`entry-off-the-load-event: expected the one module script of the built index.html, found ${tags.length}.`);
        const [tag, src] = tags[0];
        const url = JSON.stringify(src);
        const loader =
          `<link rel="modulepreload" crossorigin href="${src}">\n` +
          `    <script type="module">import(${url}).catch(function (error) {\n` +
          `      console.error('The viewer could not be loaded:', error);\n` +
          // Also as an uncaught error: the page's error handlers (and the tests' pageerror) hear it.
          `      if (typeof reportError === 'function') reportError(error);\n` +
          `      var p = document.createElement('p');\n` +
          `      p.setAttribute('role', 'alert');\n` +
          `      p.style.cssText = 'margin:24px;font:14px system-ui,sans-serif;color:#e8eef6';\n` +
          `      p.textContent = 'The viewer could not be loaded (' + (error && error.message ? error.message : String(error)) + '). Reload the page to try again.';\n` +
          `      document.body.appendChild(p);\n` +
          `    });</script>`;
        return html.replace(tag, loader);
      },
    },
  };
}

/**
 * A prefetch link for the pages' React chunk (src/ui/app.tsx): the entry imports it only once the
 * embed's load has ended (src/ui/main.tsx), and on a slow network it should be in the cache by then.
 * A prefetch is the lowest priority and is neither parsed nor run; a modulepreload would compile it
 * while the scene loads.
 */
function panelsPrefetch(): Plugin {
  return withBuiltChunk('panels-prefetch', /(^|\/)app-[\w-]+\.js$/, "the pages' chunk (app)", (html, url) =>
    html.replace('</head>', `  <link rel="prefetch" as="script" crossorigin href="${url}">\n  </head>`),
  );
}

/**
 * The host API's typed client (src/api/client.ts) as a standalone ES module at
 * dist/api/viewer-client.js, a stable URL host pages import (CORS-enabled by the server). Built
 * after the app, in the same `vite build`, as a library: no hash, no shared chunks.
 */
function hostApiClient(): Plugin {
  let outDir = resolve(import.meta.dirname, 'dist');
  return {
    name: 'host-api-client',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await build({
        configFile: false,
        publicDir: false,
        logLevel: 'warn',
        build: {
          outDir: join(outDir, 'api'),
          emptyOutDir: false,
          sourcemap: true,
          minify: false,
          lib: { entry: resolve(import.meta.dirname, 'src/api/client.ts'), formats: ['es'], fileName: () => 'viewer-client.js' },
        },
      });
    },
  };
}

/** The vitest projects (see `test` below); read only when vitest loads this file. */
async function testProjects() {
  const { splitByIsolation } = await import('./tests/support/isolation');
  const unit = splitByIsolation(import.meta.dirname, 'tests/unit');
  return [
    { extends: true, test: { name: 'unit', include: unit.shared, isolate: false } },
    { extends: true, test: { name: 'unit (own worker)', include: unit.isolated } },
    { extends: true, test: { name: 'service', include: ['tests/service/**/*.test.ts'] } },
  ];
}

export default defineConfig({
  plugins: [react(), decoderLibs(), generatedAssets(), earlyBoot(), entryOffTheLoadEvent(), panelsPrefetch(), hostApiClient()],
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
    // The first load in two chunks: the libraries it imports and our code. Left to rolldown, each
    // module it shares with a later chunk (a constant, a schema, zod, the ECS components) was a
    // small chunk of its own: thirteen requests for the embed's first load, which on a weak device
    // cost 30-70 ms before the first picture (A/B, 10 pairs each, the demo warehouse detected and
    // `?quality=low`, DamagedHelmet). `$initial`: statically imported from the entry; the `viewer`
    // group's modules stay in the entry's own chunk (index). Checked by tests/e2e/viewer.spec.ts.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', tags: ['$initial'], test: /node_modules/, priority: 2 },
            { name: 'viewer', tags: ['$initial'], priority: 1 },
          ],
        },
      },
    },
  },
  worker: { format: 'es' },
  server: {
    proxy: {
      '/v1': 'http://localhost:8080',
      '/cdn': 'http://localhost:8080',
    },
  },
  test: {
    environment: 'node',
    // Three projects in one run. Most unit tests (pure modules and fakes) share their workers'
    // module caches from file to file (isolate: false): a fresh worker for each of 226 files cost
    // ~290 ms a file, 47 s of the run against 17 s shared. The unit tests that replace a module or
    // a global (tests/support/isolation.ts) and the service tests (servers, child processes,
    // databases, environment variables) have a worker per file, as before.
    ...(process.env.VITEST ? { projects: await testProjects() } : {}),
    // A loaded machine is slower, not stuck: with 2 cores shared by other work a service test that
    // takes 6 s alone took over 30 s (the asset list's, 2026-12-02). A test or hook that hangs still
    // fails, after a minute. 10 s (vitest's default for hooks) timed out once too.
    testTimeout: 60000,
    hookTimeout: 60000,
    // Vitest's default on 2 cores is one worker (cores - 1); most files here wait on servers,
    // child processes and disks rather than the CPU, so two per core keeps both cores busy.
    // VITEST_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_WORKERS) || Math.max(2, availableParallelism() * 2),
    // The service tests first (tests/support/sequencer.ts); loaded only when vitest reads this file.
    ...(process.env.VITEST ? { sequence: { sequencer: (await import('./tests/support/sequencer')).ServiceFirstSequencer } } : {}),
  },
});
