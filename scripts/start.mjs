#!/usr/bin/env node
// `npm start`: builds the browser app when dist/index.html is missing or older than any source
// file, then runs the server (src/server/main.ts) with tsx, forwarding signals and the exit code.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleReason } from './build-state.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function buildReason() {
  if (process.env.SKIP_BUILD === '1') return undefined;
  return staleReason(root);
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
