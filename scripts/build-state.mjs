// Whether dist/ (the Vite build of the browser app) is older than what it is built from. Shared
// by `npm start` (scripts/start.mjs), the browser tests (tests/e2e/global-setup.ts) and the
// benchmarks (bench/server.ts), so that none of them serves a stale app.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the Vite build reads (src/server is not bundled). */
export const BUILD_INPUTS = ['index.html', 'vite.config.ts', 'package.json', 'package-lock.json', 'tsconfig.json', 'src', 'public', 'systems', 'components', 'scripts/generate-assets.ts', 'scripts/early-boot.ts', 'scripts/assets'];

/** The newest modification time under `path` (a file or a folder; a folder's own time counts, since deleting a file bumps it), 0 when absent. */
function newestMtime(path, ignore) {
  if (ignore.has(path)) return 0;
  let info;
  try {
    info = statSync(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name), ignore));
  }
  return newest;
}

/**
 * Why dist/ under `root` needs a build ('dist/index.html is missing', 'src changed since the last
 * build'), or undefined when it is up to date.
 */
export function staleReason(root) {
  const index = join(root, 'dist', 'index.html');
  if (!existsSync(index)) return 'dist/index.html is missing';
  const built = statSync(index).mtimeMs;
  const ignore = new Set([join(root, 'src/server')]);
  const changed = BUILD_INPUTS.find((input) => newestMtime(join(root, input), ignore) > built);
  return changed ? `${changed} changed since the last build` : undefined;
}
