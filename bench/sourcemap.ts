import { existsSync, readFileSync } from 'node:fs';

/**
 * A minimal reader of source maps (version 3, `mappings` in base64 VLQ) for the profiler: from a
 * position in a built chunk to the original file, line and column. Our own, small: enough for
 * Vite's one-file maps (no index maps, no `sourcesContent` needed).
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

export interface OriginalPosition {
  source: string;
  /** 0-based, like the generated position. */
  line: number;
  column: number;
  name?: string;
}

export interface SourceMap {
  sources: string[];
  sourcesContent?: (string | null)[];
  /** The original position of a 0-based generated line and column (the segment at or before it). */
  lookup(line: number, column: number): OriginalPosition | undefined;
}

export function parseSourceMap(json: { sources: string[]; names?: string[]; mappings: string; sourcesContent?: (string | null)[] }): SourceMap {
  const names = json.names ?? [];
  // Per generated line: flat [genColumn, source, line, column, name(-1)] groups, sorted by column.
  const lines: Int32Array[] = [];
  let source = 0;
  let origLine = 0;
  let origColumn = 0;
  let name = 0;
  let i = 0;
  const m = json.mappings;
  let current: number[] = [];
  let genColumn = 0;
  const finishLine = () => {
    lines.push(Int32Array.from(current));
    current = [];
    genColumn = 0;
  };
  const fields: number[] = [];
  while (i <= m.length) {
    const c = i < m.length ? m[i] : ';';
    if (c === ';' || c === ',') {
      if (fields.length >= 4) {
        genColumn += fields[0];
        source += fields[1];
        origLine += fields[2];
        origColumn += fields[3];
        let n = -1;
        if (fields.length >= 5) {
          name += fields[4];
          n = name;
        }
        current.push(genColumn, source, origLine, origColumn, n);
      } else if (fields.length >= 1) {
        genColumn += fields[0];
      }
      fields.length = 0;
      if (c === ';') finishLine();
      i++;
      continue;
    }
    // One VLQ value.
    let value = 0;
    let shift = 0;
    for (;;) {
      const digit = DIGIT[m.charCodeAt(i++)];
      if (digit < 0) throw new Error(`bad VLQ digit at ${i - 1}`);
      value += (digit & 31) << shift;
      if ((digit & 32) === 0) break;
      shift += 5;
    }
    fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
  }
  return {
    sources: json.sources,
    sourcesContent: json.sourcesContent,
    lookup(line, column) {
      const segs = lines[line];
      if (!segs || segs.length === 0) return undefined;
      let lo = 0;
      let hi = segs.length / 5 - 1;
      if (segs[0] > column) return undefined;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (segs[mid * 5] <= column) lo = mid;
        else hi = mid - 1;
      }
      const o = lo * 5;
      return { source: json.sources[segs[o + 1]], line: segs[o + 2], column: segs[o + 3], name: segs[o + 4] >= 0 ? names[segs[o + 4]] : undefined };
    },
  };
}

/** The map next to a built file (`file.js.map`), or undefined. */
export function readSourceMap(file: string): SourceMap | undefined {
  const path = `${file}.map`;
  if (!existsSync(path)) return undefined;
  return parseSourceMap(JSON.parse(readFileSync(path, 'utf8')));
}
