import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Which unit test files run in a worker of their own (vite.config.ts, the 'unit (own worker)'
 * project) and which share their workers' module cache with other files (the 'unit' project,
 * isolate: false).
 *
 * A file needs its own worker when it changes what other files would import or see: it replaces
 * a module (`vi.mock`, `vi.doMock`: a module another file already imported is not replaced), or a
 * global (`vi.stubGlobal`, `vi.stubEnv`, an assignment to `globalThis`). Sharing the rest saves a
 * worker start and a fresh import of three.js per file (~290 ms each, 30 s of the unit run on 2
 * cores). Read from the files themselves, so a new test that mocks is isolated without a list to
 * keep.
 */
const NEEDS_ISOLATION =
  /\bvi\s*\.\s*(mock|doMock|unmock|stubGlobal|stubEnv)\s*\(|\bglobalThis\s*(\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\])\s*=(?!=)|Object\.defineProperty\(\s*globalThis\b/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** The unit test files under `dir` split by whether they need a worker of their own (paths relative to `root`). */
export function splitByIsolation(root: string, dir: string): { shared: string[]; isolated: string[] } {
  const shared: string[] = [];
  const isolated: string[] = [];
  for (const file of testFiles(join(root, dir)).sort()) {
    const path = relative(root, file).replace(/\\/g, '/');
    (NEEDS_ISOLATION.test(readFileSync(file, 'utf8')) ? isolated : shared).push(path);
  }
  return { shared, isolated };
}
