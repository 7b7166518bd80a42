import { Matrix4, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { InstanceBVH, type InstanceRayVisitor } from '../../../src/engine/instance-bvh';

const UNIT = new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]);

function grid(n: number, spacing = 2): Float32Array {
  const side = Math.ceil(Math.sqrt(n));
  const out = new Float32Array(n * 16);
  const m = new Matrix4();
  for (let i = 0; i < n; i++) {
    m.compose(new Vector3((i % side) * spacing, 0, Math.floor(i / side) * spacing), new Quaternion(), new Vector3(1, 1, 1));
    m.toArray(out, i * 16);
  }
  return out;
}

/** A visitor that accepts the box hit as the precise hit and counts the tests. */
function boxVisitor(bvh: InstanceBVH, live: (slot: number) => boolean, ray: { o: Vector3; d: Vector3 }) {
  let tests = 0;
  const box = new Float32Array(6);
  const visitor: InstanceRayVisitor = {
    live,
    test(slot) {
      tests++;
      bvh.instanceBox(null, slot, box);
      const { o, d } = ray;
      let tmin = 0;
      let tmax = Infinity;
      for (let a = 0; a < 3; a++) {
        const oa = o.getComponent(a);
        const da = d.getComponent(a);
        const t1 = (box[a]! - oa) / da;
        const t2 = (box[a + 3]! - oa) / da;
        tmin = Math.max(tmin, Math.min(t1, t2));
        tmax = Math.min(tmax, Math.max(t1, t2));
      }
      return tmax >= tmin ? tmin : Infinity;
    },
  };
  return { visitor, tests: () => tests };
}

function cast(bvh: InstanceBVH, count: number, live: (slot: number) => boolean, o: Vector3, d: Vector3) {
  const v = boxVisitor(bvh, live, { o, d });
  const result = { distance: 0 };
  const slot = bvh.raycast(o.x, o.y, o.z, d.x, d.y, d.z, Infinity, count, v.visitor, result);
  return { slot, distance: result.distance, tests: v.tests() };
}

describe('InstanceBVH', () => {
  it('finds the instance under a vertical ray among 10,000, testing only a few', () => {
    const n = 10_000;
    const matrices = grid(n);
    const bvh = new InstanceBVH(UNIT);
    bvh.matrices = matrices;
    bvh.build(matrices, n, () => true);
    // Slot 4321 sits at x = (4321 % 100) * 2, z = floor(4321 / 100) * 2.
    const hit = cast(bvh, n, () => true, new Vector3(42, 10, 86), new Vector3(0, -1, 0));
    expect(hit.slot).toBe(4321);
    expect(hit.distance).toBeCloseTo(9.5, 5);
    expect(hit.tests).toBeLessThan(10);
    expect(cast(bvh, n, () => true, new Vector3(43, 10, 86), new Vector3(0, -1, 0)).slot).toBe(-1);
  });

  it('returns the nearest of several instances along the ray', () => {
    const n = 100;
    const matrices = grid(n);
    const bvh = new InstanceBVH(UNIT);
    bvh.matrices = matrices;
    bvh.build(matrices, n, () => true);
    // Along +x at z = 0: slots 0..9 at x = 0, 2, ..., 18; from x = -5 the first is slot 0, from the far end slot 9.
    expect(cast(bvh, n, () => true, new Vector3(-5, 0, 0), new Vector3(1, 0, 0)).slot).toBe(0);
    expect(cast(bvh, n, () => true, new Vector3(25, 0, 0), new Vector3(-1, 0, 0)).slot).toBe(9);
    // A dead slot is skipped: the next one behind it is hit.
    expect(cast(bvh, n, (s) => s !== 0, new Vector3(-5, 0, 0), new Vector3(1, 0, 0)).slot).toBe(1);
  });

  it('follows a moved instance (refit) and finds pending slots added after the build', () => {
    const n = 1000;
    const matrices = grid(n + 1);
    const bvh = new InstanceBVH(UNIT);
    bvh.matrices = matrices;
    bvh.build(matrices, n, () => true);
    // Move slot 10 far away.
    new Matrix4().makeTranslation(500, 0, 500).toArray(matrices, 10 * 16);
    bvh.moved(matrices, 10);
    expect(cast(bvh, n, () => true, new Vector3(500, 10, 500), new Vector3(0, -1, 0)).slot).toBe(10);
    // Slot n was never built: it is pending.
    new Matrix4().makeTranslation(-300, 0, 0).toArray(matrices, n * 16);
    expect(cast(bvh, n + 1, () => true, new Vector3(-300, 10, 0), new Vector3(0, -1, 0)).slot).toBe(n);
    expect(bvh.needsRebuild(n + 1)).toBe(false);
    expect(bvh.needsRebuild(n + 5000)).toBe(true);
  });

  it('follows relocations and truncation (compaction)', () => {
    const n = 200;
    const matrices = grid(n);
    const bvh = new InstanceBVH(UNIT);
    bvh.matrices = matrices;
    bvh.build(matrices, n, () => true);
    const far = new Vector3(1000, 0, 0);
    new Matrix4().makeTranslation(far.x, far.y, far.z).toArray(matrices, 199 * 16);
    bvh.moved(matrices, 199);
    // Compaction moves slot 199 into slot 5.
    matrices.copyWithin(5 * 16, 199 * 16, 200 * 16);
    bvh.relocated(matrices, 199, 5);
    bvh.truncated(199);
    const hit = cast(bvh, 199, () => true, new Vector3(1000, 10, 0), new Vector3(0, -1, 0));
    expect(hit.slot).toBe(5);
  });

  it('carries the asset box by rotation and scale', () => {
    const bvh = new InstanceBVH(new Float32Array([0, 0, 0, 2, 1, 1]));
    const m = new Matrix4().compose(new Vector3(10, 0, 0), new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), Math.PI / 2), new Vector3(3, 3, 3));
    const matrices = new Float32Array(16);
    m.toArray(matrices);
    const box = bvh.instanceBox(matrices, 0, new Float32Array(6));
    // x in [0,2] rotated about y by 90 degrees goes to z in [-2,0]; scaled 3: z in [-6, 0].
    expect([...box].map((v) => Math.round(v * 1e5) / 1e5)).toEqual([10, 0, -6, 13, 3, 0]);
  });
});
