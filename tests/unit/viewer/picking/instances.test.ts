import { BoxGeometry, Group, Matrix4, MeshBasicMaterial, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { compactInstanceGroup, createInstanceGroup, removeInstances, setInstanceMatrix, type InstanceAsset } from '../../../../src/engine/instances';
import { bindObject } from '../../../../src/engine/registry';
import { addViewerEntity } from '../../../../src/engine/world';
import { fixture, perspective } from './fixture';

/** A 100 x 100 grid of unit crates 2 m apart on the ground, ids 1000 + slot, as one group. */
function gridGroup(f: ReturnType<typeof fixture>, side = 100) {
  const n = side * side;
  const eid = addViewerEntity(f.world);
  const object = new Group();
  bindObject(f.world, eid, object);
  f.scene.add(object);
  object.updateMatrixWorld(true);
  const geometry = new BoxGeometry(1, 1, 1);
  const asset: InstanceAsset = { assetId: 'crate', parts: [{ name: 'crate', geometry, material: new MeshBasicMaterial() }], box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]), placeholder: false };
  const ids = new Uint32Array(n).map((_, i) => 1000 + i);
  const matrices = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) new Matrix4().makeTranslation((i % side) * 2, 0.5, Math.floor(i / side) * 2).toArray(matrices, i * 16);
  const group = createInstanceGroup(f.world, eid, { uuid: 'grid', asset, ids, matrices });
  return { group, eid, object };
}

describe('picking instanced asset groups', () => {
  it('returns the instance under the point by its stable id, with the group, point and normal', () => {
    // Straight down onto the crate at x = 40, z = 60: slot 30 * 100 + 20 = 3020, id 4020.
    const f = fixture(perspective(new Vector3(40, 30, 60.001), new Vector3(40, 0, 60)));
    const { group } = gridGroup(f);
    const hit = f.picker.pick(0, 0)!;
    expect(hit).not.toBeNull();
    expect(hit.instanceId).toBe(4020);
    expect(hit.groupId).toBe('grid');
    expect(hit.object).toBe(group.meshes[0]);
    expect(hit.point.y).toBeCloseTo(1, 4);
    expect(hit.normal.y).toBeCloseTo(1, 4);
    expect(hit.eid).toBe(group.eid);
  });

  it('follows edits: a moved instance is hit where it went, a removed one is not, ids survive compaction', () => {
    const f = fixture(perspective(new Vector3(40, 30, 60.001), new Vector3(40, 0, 60)));
    const { group } = gridGroup(f);
    // Move id 4020 away: the ray now reaches the ground below it (nothing).
    setInstanceMatrix(f.world, group, 4020, new Matrix4().makeTranslation(-50, 0.5, -50));
    expect(f.picker.pick(0, 0)).toBeNull();
    // Move another instance under the ray.
    setInstanceMatrix(f.world, group, 1005, new Matrix4().makeTranslation(40, 3, 60));
    expect(f.picker.pick(0, 0)!.instanceId).toBe(1005);
    // Remove 150 instances including the first hit's replacement: compaction moves slots, not ids.
    const gone = Array.from({ length: 150 }, (_, i) => 1100 + i);
    removeInstances(f.world, group, gone);
    compactInstanceGroup(f.world, group);
    expect(f.picker.pick(0, 0)!.instanceId).toBe(1005);
    removeInstances(f.world, group, [1005]);
    expect(f.picker.pick(0, 0)).toBeNull();
  });

  it('picks through the group transform, and never through a hidden group', () => {
    const f = fixture(perspective(new Vector3(140, 30, 60.001), new Vector3(140, 0, 60)));
    const { object } = gridGroup(f);
    object.position.x = 100;
    object.updateMatrixWorld(true);
    expect(f.picker.pick(0, 0)!.instanceId).toBe(4020);
    object.visible = false;
    expect(f.picker.pick(0, 0)).toBeNull();
  });

  it('snaps to a vertex of the hit instance', () => {
    const f = fixture(perspective(new Vector3(40.3, 30, 60.3), new Vector3(40.3, 0, 60.3)));
    gridGroup(f);
    const hit = f.picker.pick(0, 0)!;
    const snapped = f.picker.snapToVertex(hit, new Vector3(), 0.5);
    expect(snapped).not.toBeNull();
    expect(snapped!.x).toBeCloseTo(40.5, 4);
    expect(snapped!.y).toBeCloseTo(1, 4);
    expect(snapped!.z).toBeCloseTo(60.5, 4);
  });

  it('reaches one instance among 250,000 through the bounds index, never instance by instance (its time is in npm run bench)', () => {
    const f = fixture(perspective(new Vector3(200, 80, 300), new Vector3(250, 0, 250)));
    const { group } = gridGroup(f, 500);
    f.picker.pick(0, 0); // trees of the asset
    // What each pick asks of the instances: whether a slot is live, and a precise cast of one.
    const counts = { live: 0, cast: 0 };
    const bvh = group.bvh;
    const raycast = bvh.raycast.bind(bvh);
    bvh.raycast = (ox, oy, oz, dx, dy, dz, far, count, visitor, result) =>
      raycast(ox, oy, oz, dx, dy, dz, far, count, { live: (slot) => (counts.live++, visitor.live(slot)), test: (slot, nearest) => (counts.cast++, visitor.test(slot, nearest)) }, result);
    let hits = 0;
    for (let i = 0; i < 200; i++) if (f.picker.pick(((i % 20) - 10) / 12, (Math.floor(i / 20) - 5) / 8)) hits++;
    expect(hits).toBeGreaterThan(100);
    // A few instances per pick: those whose boxes the ray reaches before the nearest hit.
    expect(counts.cast / 200).toBeGreaterThanOrEqual(hits / 200);
    expect(counts.cast / 200).toBeLessThan(4);
    expect(counts.live / 200).toBeLessThan(50);
  });
});
