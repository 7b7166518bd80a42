import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * ARCHITECTURE.md's layers, held: imports point down. Reads every source file's import specifiers
 * (static, dynamic and type imports) and names each one that reaches a layer it must not.
 */

const ROOT = join(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Import specifiers of a file, resolved to repository paths for relative ones. */
function imports(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) {
    const spec = match[1] ?? match[2] ?? match[3]!;
    out.push(spec.startsWith('.') ? relative(ROOT, join(ROOT, file, '..', spec)) : spec);
  }
  return out;
}

function offending(dir: string, forbidden: (spec: string) => boolean): string[] {
  return files(dir).flatMap((file) => imports(file).filter(forbidden).map((spec) => `${file} -> ${spec}`));
}

describe('layers: imports point down', () => {
  it('the UI talks to the interfaces below only: no three.js, engine, components or systems', () => {
    expect(offending('src/ui', (s) => s === 'three' || s.startsWith('three/') || /^(src\/engine|components|systems)(\/|$)/.test(s))).toEqual([]);
  });

  it('the server imports src/protocol and itself only', () => {
    expect(offending('src/server', (s) => s.startsWith('src/') && !/^src\/(server|protocol)(\/|$)/.test(s))).toEqual([]);
  });

  it('the protocol imports nothing of ours above it', () => {
    expect(offending('src/protocol', (s) => (s.startsWith('src/') && !s.startsWith('src/protocol')) || /^(components|systems)(\/|$)/.test(s))).toEqual([]);
  });

  it('the engine never imports the viewer, systems, the editor, meetings or the UI', () => {
    expect(offending('src/engine', (s) => /^(systems|src\/(viewer|editor|meeting|ui|api|scene))(\/|$)/.test(s))).toEqual([]);
  });

  it('components import no three.js', () => {
    expect(offending('components', (s) => s === 'three' || s.startsWith('three/'))).toEqual([]);
  });

  it('finds imports at all (the check can fail)', () => {
    expect(imports('src/ui/editor/panels.tsx')).toContain('src/editor/outline');
  });
});
