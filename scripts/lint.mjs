#!/usr/bin/env node
// `npm run lint`: ESLint (eslint.config.js: typescript-eslint's recommended rules) and
// dependency-cruiser (.dependency-cruiser.cjs: ARCHITECTURE.md's layers, no import cycles), side
// by side, one on each core. Prints each one's report and time, then one line: `lint: passed` or
// `lint: failed (...)`; exits non-zero if either found a problem or could not run. Both keep a
// cache under node_modules/.cache, so a second run looks again only at what changed.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

const CHECKS = [
  {
    name: 'eslint',
    cmd: bin('eslint'),
    args: ['--cache', '--cache-strategy', 'content', '--cache-location', 'node_modules/.cache/eslint/', '.'],
  },
  {
    name: 'layers (dependency-cruiser)',
    cmd: bin('depcruise'),
    args: ['--config', '.dependency-cruiser.cjs', 'src', 'systems', 'components'],
  },
];

/** Runs one check with its output held (printed whole afterwards, not interleaved); never rejects. */
function run({ name, cmd, args }) {
  return new Promise((done) => {
    const t0 = Date.now();
    let output = '';
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => done({ name, code: null, output: `${output}${error.message}\n`, seconds: (Date.now() - t0) / 1000 }));
    child.on('close', (code, signal) => done({ name, code: signal ? `signal ${signal}` : code, output, seconds: (Date.now() - t0) / 1000 }));
  });
}

const results = await Promise.all(CHECKS.map(run));
const failed = [];
for (const { name, code, output, seconds } of results) {
  console.log(`=== ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds.toFixed(1)} s`);
  if (output.trim()) console.log(output.trimEnd());
  if (code !== 0) failed.push(name);
}
if (failed.length) {
  console.log(`lint: failed (${failed.join(', ')}): see the report above; the rules and their reasons are in eslint.config.js and .dependency-cruiser.cjs`);
  process.exit(1);
}
console.log('lint: passed');
