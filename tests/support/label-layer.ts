/**
 * A stand-in for src/viewer/tools/labels in Node tests: the pins' DOM layer is a browser matter
 * (the browser tests check it). Use as `vi.mock('.../src/viewer/tools/labels', () => import('.../support/label-layer'))`.
 */
export const createLabelLayer = () => ({
  element: {},
  add: () => ({ element: { dataset: {} }, point: { set() {} }, offsetY: 0, setText() {}, setClass() {} }),
  remove() {},
  update() {},
  dispose() {},
});
