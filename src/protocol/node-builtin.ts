/** Node built-ins, reached at run time: browser bundles never import them. */

const builtins = new Map<string, unknown>();

/** A Node built-in module through process.getBuiltinModule (Node >= 20.16), or null elsewhere. */
export function nodeBuiltin<T>(id: string): T | null {
  if (!builtins.has(id)) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    builtins.set(id, proc?.getBuiltinModule?.(id) ?? null);
  }
  return builtins.get(id) as T | null;
}
