#!/usr/bin/env node
// `npm start`: builds the browser app when dist/index.html is missing or older than any source
// file, then runs the server (src/server/main.ts) with tsx, forwarding signals and the exit code.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const distIndex = join(root, 'dist', 'index.html');
/** What the Vite build reads. */
const SOURCES = ['src', 'systems', 'components', 'public', 'index.html', 'vite.config.ts', 'package.json', 'scripts/generate-assets.ts', 'scripts/assets'];

/** The newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newestMtime(path) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

function buildReason() {
  if (process.env.SKIP_BUILD === '1') return undefined;
  if (!existsSync(distIndex)) return 'dist/index.html is missing';
  const built = statSync(distIndex).mtimeMs;
  const changed = SOURCES.find((source) => newestMtime(join(root, source)) > built);
  return changed ? `${changed} changed since the last build` : undefined;
}

/** Runs a child with inherited stdio; SIGINT/SIGTERM go to it while it runs. Resolves its exit code. */
function run(command, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: process.env });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolvePromise(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1) : 1));
    });
  });
}

function bin(name) {
  const file = join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
  if (!existsSync(file)) {
    console.error(`error: ${name} is not installed (${file} is missing): run \`npm install\` first`);
    process.exit(1);
  }
  return file;
}

async function main() {
  const reason = buildReason();
  if (reason) {
    console.log(`Building the viewer app (${reason})...`);
    const code = await run(bin('vite'), ['build']);
    if (code !== 0) {
      console.error(`error: \`vite build\` failed (exit code ${code}); fix the errors above, or run \`npm run serve\` to start the server with the last build`);
      process.exit(code || 1);
    }
  }
  // node with tsx's loader: one process, which gets the signals directly.
  bin('tsx');
  process.exit(await run(process.execPath, ['--import', 'tsx', join(root, 'src', 'server', 'main.ts')]));
}

main().catch((error) => {
  console.error(`error: ${error.message}`);
  process.exit(1);
});
