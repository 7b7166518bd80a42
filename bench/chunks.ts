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

/**
 * What a built chunk is made of, by its source map: generated bytes per package (node_modules/x,
 * or the top folder of our own code: src/viewer, systems, ...), and the gzip size of each group's
 * code compressed on its own (a rough share: compressing the groups apart loses some matches).
 */
export function chunkComposition(distDir: string, file: string): { group: string; raw: number; gzip: number }[] {
  const code = readFileSync(join(distDir, file), 'utf8');
  const map = JSON.parse(readFileSync(join(distDir, `${file}.map`), 'utf8')) as { sources: string[]; mappings: string };
  const groupOf = (source: string) => {
    const s = source.replace(/^(\.\.\/)+/, '');
    // three's examples are added one by one (loaders, controls, ...): each is its own group.
    const example = /node_modules\/three\/examples\/jsm\/(.+)$/.exec(s);
    if (example) return `three/examples/${example[1].replace(/^libs\/.*$/, (lib) => lib)}`;
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s);
    if (nm) return nm[1];
    const parts = s.split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
  };
  const lines = code.split('\n');
  const pieces = new Map<string, string[]>();
  const add = (group: string, text: string) => {
    const list = pieces.get(group) ?? [];
    list.push(text);
    pieces.set(group, list);
  };
  // Walk the mappings: each segment owns the generated text up to the next segment on its line.
  const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let source = 0;
  let last = '(unmapped)';
  const m = map.mappings;
  let i = 0;
  for (let line = 0; line < lines.length && i <= m.length; line++) {
    const segments: [number, number][] = [];
    let column = 0;
    while (i < m.length && m[i] !== ';') {
      const fields: number[] = [];
      while (i < m.length && m[i] !== ',' && m[i] !== ';') {
        let value = 0;
        let shift = 0;
        for (;;) {
          const digit = DIGITS.indexOf(m[i++]);
          value += (digit & 31) << shift;
          if ((digit & 32) === 0) break;
          shift += 5;
        }
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
      }
      column += fields[0];
      if (fields.length >= 4) {
        source += fields[1];
        segments.push([column, source]);
      } else segments.push([column, -1]);
      if (m[i] === ',') i++;
    }
    i++; // ';'
    const text = lines[line] + (line + 1 < lines.length ? '\n' : '');
    // Text without a source of its own (a shader in a template literal that spans lines, a long
    // base64 string the bundler inlined) belongs to the code before it.
    if (segments.length === 0 || segments[0][0] > 0) add(last, text.slice(0, segments[0]?.[0] ?? text.length));
    segments.forEach(([col, src], k) => {
      const end = k + 1 < segments.length ? segments[k + 1][0] : text.length;
      if (src >= 0) last = groupOf(map.sources[src]);
      add(last, text.slice(col, end));
    });
  }
  return [...pieces]
    .map(([group, parts]) => {
      const text = parts.join('');
      return { group, raw: Buffer.byteLength(text), gzip: gzipSync(text).length };
    })
    .sort((a, b) => b.raw - a.raw);
}
