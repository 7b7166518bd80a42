import secureJson from 'secure-json-parse';

/**
 * Keys that would change an object's prototype if a document were merged into another object:
 * `__proto__`, and `constructor` holding an object with a `prototype` (issue 33, item 2). They are
 * looked for in the keys of parsed values, never in the text, where `"\u005f_proto__"` spells the
 * same key. secure-json-parse (the parser Fastify ships) does the walk, without recursion.
 */

const FORBID = { protoAction: 'error', constructorAction: 'error' } as const;
const REMOVE = { protoAction: 'remove', constructorAction: 'remove' } as const;

/** True when `value` has a prototype key anywhere inside. */
export function hasPrototypeKeys(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    secureJson.scan(value, FORBID);
    return false;
  } catch {
    return true;
  }
}

/** Removes every prototype key from `value` in place; true when there was one. */
export function removePrototypeKeys(value: unknown): boolean {
  if (!hasPrototypeKeys(value)) return false;
  secureJson.scan(value as object, REMOVE);
  return true;
}
