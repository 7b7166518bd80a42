import { NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { INSTANCE_DEMO_ASSETS, countTriangles, createInstanceAssets } from '../../src/server/demo-instances.ts';
import { REALISTIC_TRIANGLE_TARGETS, createRealisticInstanceAssetDocuments, createRealisticInstanceAssets } from '../../src/server/demo-instances-realistic.ts';
import { INSTANCE_ASSET_SETS, demoAssetId } from '../../src/server/demo-instances-scene.ts';
import { validateModel } from '../../src/server/upload/validate.ts';

/** Axis-aligned bounds of a document's positions (one node at the origin). */
function bounds(doc: import('@gltf-transform/core').Document) {
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
  return { min, max, size: max.map((v, k) => v - min[k]!) };
}

describe('realistic instanced demo assets', () => {
  it("have the targets' triangle counts within 20 % (a tree ~5,000, a car ~10,000, a house ~3,000), counted from the written GLBs", async () => {
    expect(REALISTIC_TRIANGLE_TARGETS).toMatchObject({ conifer: 5000, 'broadleaf-tree': 5000, car: 10_000, house: 3000 });
    const io = new NodeIO();
    const assets = await createRealisticInstanceAssets();
    expect(assets.map((a) => a.key)).toEqual(INSTANCE_DEMO_ASSETS.map((a) => a.key));
    for (const asset of assets) {
      // Parsed back with gltf-transform: the GLB's own index accessors give the count.
      const doc = await io.readBinary(asset.glb);
      const triangles = countTriangles(doc);
      expect(triangles, asset.key).toBe(asset.triangles);
      const target = REALISTIC_TRIANGLE_TARGETS[asset.key];
      expect(triangles, `${asset.key}: ${triangles} triangles, target ${target}`).toBeGreaterThanOrEqual(target * 0.8);
      expect(triangles, `${asset.key}: ${triangles} triangles, target ${target}`).toBeLessThanOrEqual(target * 1.2);
      // Others at plausible densities, and all well above the simple set's.
      expect(triangles).toBeGreaterThanOrEqual(1000);
    }
    const simple = await createInstanceAssets();
    for (const [i, a] of simple.entries()) expect(assets[i]!.triangles, a.key).toBeGreaterThan(5 * a.triangles);
  });

  it("are valid glTF models (the upload path's validator: no errors, no warnings)", async () => {
    for (const asset of await createRealisticInstanceAssets()) {
      const report = await validateModel(asset.glb, { fileName: `${asset.key}-realistic.glb` });
      expect({
        key: asset.key,
        errors: report.errors,
        warnings: report.warnings,
        messages: report.messages.filter((m) => m.severity === 'error' || m.severity === 'warning'),
      }).toEqual({
        key: asset.key,
        errors: 0,
        warnings: 0,
        messages: [],
      });
    }
  });

  it('are the same bytes on every run', async () => {
    const a = await createRealisticInstanceAssets();
    const b = await createRealisticInstanceAssets();
    for (const [i, asset] of a.entries()) expect(Buffer.from(asset.glb).equals(Buffer.from(b[i]!.glb)), asset.key).toBe(true);
  });

  it("keep the simple set's sizes, origin at the base and facing, with 2 to 5 materials", () => {
    const expected: Record<string, { height: [number, number]; footprint: [number, number] }> = {
      conifer: { height: [6, 12], footprint: [2.5, 5] },
      'broadleaf-tree': { height: [5, 9], footprint: [3, 7] },
      car: { height: [1.3, 1.7], footprint: [1.7, 4.6] },
      house: { height: [6, 11], footprint: [7, 10] },
      'street-lamp': { height: [5, 8], footprint: [0.3, 2.2] },
      bench: { height: [0.7, 1.1], footprint: [0.4, 2.2] },
    };
    for (const { key, doc } of createRealisticInstanceAssetDocuments()) {
      const b = bounds(doc);
      const materials = doc.getRoot().listMaterials().length;
      const want = expected[key]!;
      const footprint = Math.max(b.size[0]!, b.size[2]!);
      expect({ key, base: Math.abs(b.min[1]!) < 1e-6, materials: materials >= 2 && materials <= 5 }).toEqual({ key, base: true, materials: true });
      expect(b.size[1], `${key} height`).toBeGreaterThanOrEqual(want.height[0]);
      expect(b.size[1], `${key} height`).toBeLessThanOrEqual(want.height[1]);
      expect(footprint, `${key} footprint`).toBeGreaterThanOrEqual(want.footprint[0]);
      expect(footprint, `${key} footprint`).toBeLessThanOrEqual(want.footprint[1]);
      const tolerance = key === 'street-lamp' ? 1 : footprint / 4;
      expect(Math.abs((b.min[0]! + b.max[0]!) / 2), `${key} centre x`).toBeLessThanOrEqual(tolerance);
      expect(Math.abs((b.min[2]! + b.max[2]!) / 2), `${key} centre z`).toBeLessThanOrEqual(tolerance);
    }
    // The long axes as in the simple set: a car along Z (its front to +Z), a bench and a lamp's arm along X.
    const size = Object.fromEntries(createRealisticInstanceAssetDocuments().map(({ key, doc }) => [key, bounds(doc)]));
    expect(size.car!.size[2]).toBeGreaterThan(2 * size.car!.size[0]!);
    expect(size.bench!.size[0]).toBeGreaterThan(2 * size.bench!.size[2]!);
    expect(size['street-lamp']!.max[0]).toBeGreaterThan(1.4);
  });

  it('have their own asset ids, next to the simple ones on one asset CDN', () => {
    expect(INSTANCE_ASSET_SETS).toEqual(['simple', 'realistic']);
    for (const { key } of INSTANCE_DEMO_ASSETS) {
      expect(demoAssetId(key)).toBe(`demo-${key}`);
      expect(demoAssetId(key, 'realistic')).toBe(`demo-${key}-realistic`);
    }
  });
});
