// Preloaded by scripts/test.mjs into vitest (NODE_OPTIONS=--import) when Node is older than 22.
//
// Vitest 5 declares engines.node ^22.12 but the project runs on Node 20. On Node 20 its default
// reporter throws `TypeError: Map.groupBy is not a function` as soon as a test FAILS (when printing
// the error summary), which also aborts the json reporter: no report, no honest count. These are
// the ES2024 built-ins that vitest 5.1's main process uses; each is defined only where missing.
// Remove this file once the project runs on Node >= 22.

if (typeof Map.groupBy !== 'function') {
  Object.defineProperty(Map, 'groupBy', {
    configurable: true,
    writable: true,
    value: function groupBy(items, keyFn) {
      const map = new Map();
      let i = 0;
      for (const item of items) {
        const key = keyFn(item, i++);
        const group = map.get(key);
        if (group) group.push(item);
        else map.set(key, [item]);
      }
      return map;
    },
  });
}

if (typeof Object.groupBy !== 'function') {
  Object.defineProperty(Object, 'groupBy', {
    configurable: true,
    writable: true,
    value: function groupBy(items, keyFn) {
      const out = Object.create(null);
      let i = 0;
      for (const item of items) {
        const key = keyFn(item, i++);
        (out[key] ??= []).push(item);
      }
      return out;
    },
  });
}

if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve;
      let reject;
      const promise = new this((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
