import { describe, expect, it } from 'vitest';
import { FLOATS_PER_INSTANCE } from '../../src/protocol/instances.ts';
import { decodeInstanceSet, encodeInstanceSet } from '../../src/protocol/instance-set.ts';
import { CITY, INSTANCE_DEMO_ASSETS, cityGrid, createInstanceAssetDocuments, createInstanceAssets, generateInstanceLayout, instanceCounts } from '../../src/server/demo-instances.ts';
import { validateModel } from '../../src/server/upload/validate.ts';
import { bounds, expectDemoAssetShape } from './demo-asset-shape.ts';

describe('instanced demo assets', () => {
  it('are at least five valid glTF models (the upload path\'s validator: no errors, no warnings)', async () => {
    const assets = await createInstanceAssets();
    expect(assets.length).toBeGreaterThanOrEqual(5);
    expect(new Set(assets.map((a) => a.key)).size).toBe(assets.length);
    for (const asset of assets) {
      const report = await validateModel(asset.glb, { fileName: `${asset.key}.glb` });
      expect({ key: asset.key, errors: report.errors, warnings: report.warnings, messages: report.messages.filter((m) => m.severity === 'error' || m.severity === 'warning') }).toEqual({
        key: asset.key,
        errors: 0,
        warnings: 0,
        messages: [],
      });
    }
  });

  it('are low-poly, with a few materials, real-world sizes, Y up and the origin at the base', () => {
    for (const { key, doc } of createInstanceAssetDocuments()) {
      const triangles = bounds(doc).triangles;
      expect({ key, triangles: triangles >= 50 && triangles <= 800 }).toEqual({ key, triangles: true });
      expectDemoAssetShape(key, doc);
    }
  });
});

describe('instanced demo layout', () => {
  function checkLayout(n: number, seed = 1) {
    const groups = generateInstanceLayout(n, seed);
    let total = 0;
    for (const { key, set } of groups) {
      const count = set.ids.length;
      total += count;
      expect(count, key).toBeGreaterThan(0);
      expect(set.nextId).toBe(count);
      expect(set.revision).toBe(0);
      expect(set.matrices.length).toBe(count * FLOATS_PER_INSTANCE);
      let idsInOrder = true;
      for (let i = 0; i < count; i++) if (set.ids[i] !== i) idsInOrder = false;
      expect(idsInOrder, `${key} ids 0..k-1`).toBe(true);
      const m = set.matrices;
      let bad = -1;
      for (let i = 0; i < count && bad < 0; i++) {
        const o = i * FLOATS_PER_INSTANCE;
        for (let k = 0; k < FLOATS_PER_INSTANCE; k++) if (!Number.isFinite(m[o + k]!)) bad = i;
        // On the ground (y = 0), upright (Y column vertical, X and Z columns horizontal), scaled > 0.
        if (m[o + 10] !== 0 || m[o + 1] !== 0 || m[o + 7] !== 0 || m[o + 3] !== 0 || m[o + 5] !== 0 || !(m[o + 4]! > 0.3 && m[o + 4]! < 2)) bad = i;
        const sx = Math.hypot(m[o]!, m[o + 2]!);
        if (!(sx > 0.3 && sx < 2)) bad = i;
      }
      expect(bad, `${key}: instance ${bad} is not finite, upright and on the ground`).toBe(-1);
    }
    expect(total).toBe(n);
    return groups;
  }

  it.each([1, 2, 7, 1000, 12_345])('places exactly n = %i instances, each finite, upright and on the ground', (n) => {
    checkLayout(n);
  });

  it('shares the instances among all six assets for larger n (sums to n, none empty)', () => {
    const counts = instanceCounts(1000);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1000);
    expect(Object.keys(counts)).toEqual(INSTANCE_DEMO_ASSETS.map((a) => a.key));
    expect(generateInstanceLayout(1000).map((g) => g.key)).toEqual(INSTANCE_DEMO_ASSETS.map((a) => a.key));
    expect(generateInstanceLayout(1).map((g) => g.key)).toEqual(['conifer']);
    expect(() => instanceCounts(-1)).toThrow(RangeError);
    expect(() => instanceCounts(1.5)).toThrow(RangeError);
    expect(generateInstanceLayout(0)).toEqual([]);
  });

  it('is the same for the same seed and different for another', () => {
    const bytes = (seed: number) => generateInstanceLayout(5000, seed).map(({ key, set }) => [key, Buffer.from(encodeInstanceSet(set)).toString('base64')]);
    expect(bytes(7)).toEqual(bytes(7));
    expect(bytes(7)).not.toEqual(bytes(8));
  });

  it('puts houses in the city grid, cars on the streets, lamps on the kerbs, the forest around the city', () => {
    const groups = Object.fromEntries(generateInstanceLayout(20_000).map((g) => [g.key, g.set]));
    const { half } = cityGrid(groups.house!.ids.length);
    const within = (set: (typeof groups)[string], test: (x: number, z: number) => boolean) => {
      for (let i = 0; i < set.ids.length; i++) if (!test(set.matrices[i * FLOATS_PER_INSTANCE + 9]!, set.matrices[i * FLOATS_PER_INSTANCE + 11]!)) return i;
      return -1;
    };
    // Position modulo the block pitch from the city's corner: 0..12 is a street, 12..80 a block.
    const local = (v: number) => (((v + half) % CITY.pitch) + CITY.pitch) % CITY.pitch;
    const onStreet = (v: number) => local(v) < CITY.street;
    expect(within(groups.house!, (x, z) => Math.abs(x) < half && Math.abs(z) < half && !onStreet(x) && !onStreet(z))).toBe(-1);
    expect(within(groups.car!, (x, z) => Math.abs(x) <= half && Math.abs(z) <= half && (onStreet(x) || onStreet(z)))).toBe(-1);
    expect(within(groups['street-lamp']!, (x, z) => Math.abs(x) <= half && Math.abs(z) <= half && (onStreet(x) || onStreet(z)))).toBe(-1);
    expect(within(groups.conifer!, (x, z) => Math.max(Math.abs(x), Math.abs(z)) > half)).toBe(-1);
    // The area grows with n: density stays about the same.
    const extent = (n: number) => {
      const sets = generateInstanceLayout(n);
      let r = 0;
      for (const { set } of sets) for (let i = 0; i < set.ids.length; i++) r = Math.max(r, Math.abs(set.matrices[i * 12 + 9]!), Math.abs(set.matrices[i * 12 + 11]!));
      return (2 * r) ** 2 / n;
    };
    const small = extent(10_000);
    const large = extent(160_000);
    expect(large / small).toBeGreaterThan(0.6);
    expect(large / small).toBeLessThan(1.6);
    // Plausible: between 20 and 200 square metres per instance.
    expect(large).toBeGreaterThan(20);
    expect(large).toBeLessThan(200);
  });

  // How long generating takes is the benchmark's business (bench/instances.bench.ts), not a test's.
  it('generates 1,000,000 instances, and they round-trip through the binary set', () => {
    const groups = generateInstanceLayout(1_000_000);
    expect(groups.reduce((n, g) => n + g.set.ids.length, 0)).toBe(1_000_000);
    checkLayout(1_000_000);
    const house = groups.find((g) => g.key === 'house')!.set;
    const back = decodeInstanceSet(encodeInstanceSet(house));
    expect(back.ids).toEqual(house.ids);
    expect(back.matrices).toEqual(house.matrices);
  });
});
