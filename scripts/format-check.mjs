#!/usr/bin/env node
// `npm run format:check [-- BASE]` and `npm run format [-- BASE]`: Prettier (.prettierrc.json) on
// the files changed since BASE (a commit; default HEAD: what is not committed yet, untracked files
// included). The code base predates the formatter and is not reformatted at once (several people
// edit it): a file is held to Prettier when it is new or was already formatted at BASE, so a
// formatted file stays formatted; a changed file that was not formatted yet is named and left
// alone (`npx prettier --write FILE` formats one whole, in a commit of its own). `format` writes
// the held files; `format:check` lists those that are not formatted and exits 1.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2).filter((a) => a !== '--');
const write = args.includes('--write');
const positional = args.filter((a) => !a.startsWith('--'));
if (positional.length > 1 || args.some((a) => a.startsWith('--') && a !== '--write')) {
  console.error('usage: node scripts/format-check.mjs [--write] [BASE]');
  process.exit(2);
}
const base = positional[0] ?? 'HEAD';

const git = (...gitArgs) => execFileSync('git', gitArgs, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** Changed files (path now, path at BASE or null when new). */
const changed = new Map();
for (const line of git('diff', '--name-status', '-M', '--diff-filter=ACMR', base).split('\n').filter(Boolean)) {
  const [status, ...paths] = line.split('\t');
  const now = paths.at(-1);
  changed.set(now, status.startsWith('A') ? null : paths[0]);
}
for (const path of git('ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean)) changed.set(path, null);

const held = [];
const legacy = [];
for (const [path, before] of changed) {
  const file = join(ROOT, path);
  if (!existsSync(file)) continue;
  const info = await prettier.getFileInfo(file, { ignorePath: join(ROOT, '.prettierignore') });
  if (info.ignored || !info.inferredParser) continue;
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  if (before !== null) {
    const old = git('show', `${base}:${before}`);
    if (!(await prettier.check(old, options))) {
      legacy.push(path);
      continue;
    }
  }
  held.push({ path, file, options });
}

const unformatted = [];
for (const { path, file, options } of held) {
  const source = readFileSync(file, 'utf8');
  if (await prettier.check(source, options)) continue;
  if (write) {
    writeFileSync(file, await prettier.format(source, options));
    console.log(`formatted ${path}`);
  } else unformatted.push(path);
}

if (legacy.length) {
  console.log(`not formatted before ${base}, left alone (${legacy.length}): ${legacy.join(', ')}`);
}
if (unformatted.length) {
  console.log(`format: ${unformatted.length} of ${held.length} files changed since ${base} are not formatted (npm run format -- ${base} formats them):`);
  for (const path of unformatted) console.log(`  ${path}`);
  process.exit(1);
}
console.log(`format: ${held.length} files changed since ${base} ${write ? 'are' : 'checked,'} formatted`);
