import type { Document } from '@gltf-transform/core';
import { expect } from 'vitest';
import { countTriangles } from '../../src/server/demo-instances.ts';

/**
 * What the demo's instanced assets keep, whichever set (simple or realistic): real-world sizes, Y
 * up, the origin at the base and centred in the ground plane, a few materials. The realistic set is
 * held to the very sizes of the simple one, so the city's layout fits both.
 */
export const DEMO_ASSET_SIZES: Record<string, { height: [number, number]; footprint: [number, number] }> = {
  conifer: { height: [6, 12], footprint: [2.5, 5] },
  'broadleaf-tree': { height: [5, 9], footprint: [3, 7] },
  car: { height: [1.3, 1.7], footprint: [1.7, 4.6] },
  house: { height: [6, 11], footprint: [7, 10] },
  'street-lamp': { height: [5, 8], footprint: [0.3, 2.2] },
  bench: { height: [0.7, 1.1], footprint: [0.4, 2.2] },
};

/** Axis-aligned bounds of a document's positions (all nodes sit at the origin), and its triangles. */
export function bounds(doc: Document) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      const pos = prim.getAttribute('POSITION')!;
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k]!, pos.getMin([])[k]!);
        max[k] = Math.max(max[k]!, pos.getMax([])[k]!);
      }
    }
  }
  return { min, max, size: max.map((v, k) => v - min[k]!), triangles: countTriangles(doc) };
}

/** Asset `key`'s document has its kind's size, its origin at the base, centred, and 2 to 5 materials. */
export function expectDemoAssetShape(key: string, doc: Document): void {
  const b = bounds(doc);
  const materials = doc.getRoot().listMaterials().length;
  const want = DEMO_ASSET_SIZES[key]!;
  const footprint = Math.max(b.size[0]!, b.size[2]!);
  expect({ key, base: Math.abs(b.min[1]!) < 1e-6, materials: materials >= 2 && materials <= 5 }).toEqual({ key, base: true, materials: true });
  expect(b.size[1], `${key} height`).toBeGreaterThanOrEqual(want.height[0]);
  expect(b.size[1], `${key} height`).toBeLessThanOrEqual(want.height[1]);
  expect(footprint, `${key} footprint`).toBeGreaterThanOrEqual(want.footprint[0]);
  expect(footprint, `${key} footprint`).toBeLessThanOrEqual(want.footprint[1]);
  // Centred on the origin in the ground plane (within a quarter of the footprint; the lamp's arm reaches out).
  const tolerance = key === 'street-lamp' ? 1 : footprint / 4;
  expect(Math.abs((b.min[0]! + b.max[0]!) / 2), `${key} centre x`).toBeLessThanOrEqual(tolerance);
  expect(Math.abs((b.min[2]! + b.max[2]!) / 2), `${key} centre z`).toBeLessThanOrEqual(tolerance);
}
