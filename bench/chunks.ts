import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';

/**
 * The JavaScript chunks of the built app (dist/assets) and which of them the embed page needs
 * before any of its code runs: the module scripts and modulepreloads of dist/index.html and,
 * transitively, their static imports (`import ... from`, `export ... from`, side-effect imports).
 * Dynamic imports (`import()`) and workers (`new Worker(new URL(...))`) load later and are listed
 * with how they are reached. Sizes: raw bytes, and gzip at zlib's default level (what a server
 * compressing on the fly sends).
 */

export type ChunkRole = 'entry' | 'static import' | 'dynamic import' | 'worker' | 'other';

export interface Chunk {
  /** Path under dist/, with '/' separators: 'assets/index-CcKda9s5.js'. */
  file: string;
  /** The file name without Vite's content hash: 'index.js'. */
  name: string;
  raw: number;
  gzip: number;
  /** Whether the embed page loads it before its code runs (entry + static import graph). */
  firstLoad: boolean;
  role: ChunkRole;
}

export interface ChunkReport {
  chunks: Chunk[];
  /** The first-load chunks, entry first. */
  firstLoad: string[];
  firstLoadRaw: number;
  firstLoadGzip: number;
}

interface References {
  staticImports: string[];
  dynamicImports: string[];
  workers: string[];
}

function listJs(dir: string, under = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJs(path, under));
    else if (/\.m?js$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** 'index-CcKda9s5.js' -> 'index.js' (Vite's hash is 8 characters of [A-Za-z0-9_-]). */
export function withoutHash(file: string): string {
  return posix.basename(file).replace(/-[A-Za-z0-9_-]{8}(\.m?js)$/, '$1');
}

const DYNAMIC_IMPORT = /\bimport\(\s*["'`]([^"'`$]+)["'`]\s*\)/g;
const WORKER = /\bnew\s+(?:Shared)?Worker\(\s*new\s+URL\(\s*["'`]([^"'`$]+)["'`]/g;

/**
 * What a chunk refers to. TypeScript's import scanner (preProcessFile: a tokenizer, not a full
 * parse, so it takes well under a second on the 1.8 MB entry) lists static and dynamic imports
 * and skips strings and comments; the import() calls, found by their shape in the bundler's
 * output, are taken out again, leaving the static imports. Workers by the `new Worker(new URL(...))`
 * shape Vite emits.
 */
function references(source: string): References {
  const all = ts.preProcessFile(source, true, false).importedFiles.map((f) => f.fileName);
  const dynamicImports = [...source.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]).filter((spec) => all.includes(spec));
  const staticImports = [...all];
  for (const spec of dynamicImports) staticImports.splice(staticImports.indexOf(spec), 1);
  const workers = [...source.matchAll(WORKER)].map((m) => m[1]);
  return { staticImports, dynamicImports, workers };
}

/** A specifier in `fromFile` (a dist-relative path) as a dist-relative path, or undefined for bare/remote ones. */
function resolveSpecifier(fromFile: string, spec: string): string | undefined {
  if (spec.startsWith('/')) return spec.slice(1);
  if (spec.startsWith('./') || spec.startsWith('../')) return posix.normalize(posix.join(posix.dirname(fromFile), spec));
  return undefined;
}

/** The scripts dist/index.html loads at once: module scripts and modulepreloads, as dist-relative paths. */
export function htmlEntries(html: string): string[] {
  const out: string[] = [];
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(tag)?.[1];
    const isModule = /^<script/i.test(tag) && attr('type') === 'module' && attr('src');
    const isPreload = /^<link/i.test(tag) && attr('rel') === 'modulepreload' && attr('href');
    const url = isModule ? attr('src') : isPreload ? attr('href') : undefined;
    if (url && !/^[a-z]+:/i.test(url)) out.push(url.replace(/^\//, ''));
  }
  return out;
}

export function analyseChunks(distDir: string): ChunkReport {
  const assets = join(distDir, 'assets');
  const files = listJs(assets).map((path) => relative(distDir, path).split('\\').join('/'));
  const sources = new Map(files.map((file) => [file, readFileSync(join(distDir, file), 'utf8')]));
  const refs = new Map([...sources].map(([file, source]) => [file, references(source)]));

  const entries = htmlEntries(readFileSync(join(distDir, 'index.html'), 'utf8'));
  const firstLoad: string[] = [];
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift()!;
    if (firstLoad.includes(file)) continue;
    firstLoad.push(file);
    for (const spec of refs.get(file)?.staticImports ?? []) {
      const target = resolveSpecifier(file, spec);
      if (target && !firstLoad.includes(target)) queue.push(target);
    }
  }

  const roleOf = new Map<string, ChunkRole>();
  for (const file of firstLoad) roleOf.set(file, entries.includes(file) ? 'entry' : 'static import');
  for (const [from, r] of refs) {
    for (const spec of r.dynamicImports) {
      const target = resolveSpecifier(from, spec);
      if (target && !roleOf.has(target)) roleOf.set(target, 'dynamic import');
    }
    for (const spec of r.workers) {
      const target = resolveSpecifier(from, spec);
      if (target && !roleOf.has(target)) roleOf.set(target, 'worker');
    }
  }

  const chunks: Chunk[] = files.map((file) => {
    const bytes = Buffer.from(sources.get(file)!, 'utf8');
    return {
      file,
      name: withoutHash(file),
      raw: statSync(join(distDir, file)).size,
      gzip: gzipSync(bytes).length,
      firstLoad: firstLoad.includes(file),
      role: roleOf.get(file) ?? 'other',
    };
  });
  const order: ChunkRole[] = ['entry', 'static import', 'dynamic import', 'worker', 'other'];
  chunks.sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role) || b.gzip - a.gzip);
  const first = chunks.filter((c) => c.firstLoad);
  return {
    chunks,
    firstLoad,
    firstLoadRaw: first.reduce((s, c) => s + c.raw, 0),
    firstLoadGzip: first.reduce((s, c) => s + c.gzip, 0),
  };
}
