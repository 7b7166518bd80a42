import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Which unit test files run in a worker of their own (vite.config.ts, the 'unit (own worker)'
 * project) and which share their workers' module cache with other files (the 'unit' project,
 * isolate: false).
 *
 * A file needs its own worker when it changes what other files would import or see: it replaces
 * a module (`vi.mock`, `vi.doMock`: a module another file already imported is not replaced), or a
 * global (`vi.stubGlobal`, `vi.stubEnv`, an assignment to `globalThis` or a property of it, cast or
 * not, `Object.assign(globalThis, …)`, `Object.defineProperty(globalThis, …)`, `globalThis` kept in a
 * variable, `process.env.X = …`), itself or through a
 * helper module of tests/ it imports (followed through their own relative imports). Sharing the
 * rest saves a worker start and a fresh import of three.js per file (~290 ms each on 2 cores).
 * Read from the files themselves, so a new test that mocks is isolated without a list to keep.
 */
const NEEDS_ISOLATION =
  /\bvi\s*\.\s*(mock|doMock|unmock|stubGlobal|stubEnv)\s*\(|\bglobalThis\b[^;\n=]*?\)?\s*(\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\])\s*=(?![=>])|Object\.(assign|defineProperty|defineProperties)\(\s*globalThis\b|\bprocess\.env\.[\w$]+\s*=(?!=)|\b(const|let|var)\s+[\w$]+\s*=\s*\(?\s*globalThis\b/;
const RELATIVE_IMPORT = /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Whether `file`, or a module of `testsRoot` it imports (transitively), touches a module or a global. */
function touchesShared(file: string, testsRoot: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (NEEDS_ISOLATION.test(text)) return true;
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(file), match[1] ?? match[2]!);
    const path = [target, `${target}.ts`, join(target, 'index.ts')].find((p) => existsSync(p) && p.endsWith('.ts'));
    // Only the tests' own helpers: the modules under test are what the tests share.
    if (path && path.startsWith(testsRoot) && touchesShared(path, testsRoot, seen)) return true;
  }
  return false;
}

/** The unit test files under `dir` split by whether they need a worker of their own (paths relative to `root`). */
export function splitByIsolation(root: string, dir: string): { shared: string[]; isolated: string[] } {
  const shared: string[] = [];
  const isolated: string[] = [];
  const testsRoot = join(root, 'tests');
  for (const file of testFiles(join(root, dir)).sort()) {
    const path = relative(root, file).replace(/\\/g, '/');
    (touchesShared(file, testsRoot) ? isolated : shared).push(path);
  }
  return { shared, isolated };
}
