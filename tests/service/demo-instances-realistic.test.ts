import { NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { INSTANCE_DEMO_ASSETS, countTriangles, createInstanceAssets } from '../../src/server/demo-instances.ts';
import { REALISTIC_TRIANGLE_TARGETS, createRealisticInstanceAssetDocuments, createRealisticInstanceAssets } from '../../src/server/demo-instances-realistic.ts';
import { INSTANCE_ASSET_SETS, demoAssetId } from '../../src/server/demo-instances-scene.ts';
import { validateModel } from '../../src/server/upload/validate.ts';
import { bounds, expectDemoAssetShape } from './demo-asset-shape.ts';

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
    for (const { key, doc } of createRealisticInstanceAssetDocuments()) expectDemoAssetShape(key, doc);
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
