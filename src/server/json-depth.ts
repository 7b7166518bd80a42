/**
 * The nesting depth of JSON, counted without parsing and without recursion: brackets outside
 * strings. For request bodies (app.ts MAX_JSON_DEPTH) and glTF JSON (upload/validate.ts), whose
 * consumers recurse and would overflow their stack on JSON nested 100,000 deep (a 500, not a 400).
 */

/** The deepest nesting of `text` (a string, or UTF-8 bytes: brackets, quotes and backslashes are ASCII either way). */
export function jsonDepth(text: string | Uint8Array): number {
  const bytes = typeof text !== 'string';
  const length = text.length;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < length; i++) {
    const c = bytes ? (text as Uint8Array)[i] : (text as string).charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
