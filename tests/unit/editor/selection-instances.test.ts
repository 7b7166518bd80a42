import { Box3, BoxGeometry, Group, Matrix4, MeshBasicMaterial, MeshStandardMaterial, type InstancedMesh } from 'three';
import { describe, expect, it } from 'vitest';
import { createInstanceProxies, MAX_BOXED_INSTANCES } from '../../../src/editor/selection-instances';
import { createInstanceGroup, type InstanceAsset } from '../../../src/engine/instances';
import { bindObject } from '../../../src/engine/registry';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';

function group(count: number, parts = 2) {
  const world = createViewerWorld();
  const eid = addViewerEntity(world);
  bindObject(world, eid, new Group());
  const asset: InstanceAsset = {
    assetId: 'a',
    parts: Array.from({ length: parts }, (_, i) => ({ name: `p${i}`, geometry: new BoxGeometry(1, 1, 1), material: new MeshStandardMaterial() })),
    box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
    placeholder: false,
  };
  const matrices = new Float32Array(count * 16);
  for (let i = 0; i < count; i++) new Matrix4().makeTranslation(i * 3, 0, 0).toArray(matrices, i * 16);
  return createInstanceGroup(world, eid, { uuid: 'g', asset, ids: Uint32Array.from({ length: count }, (_, i) => i), matrices });
}

describe('selected instances: the outline proxies', () => {
  it('holds one proxy per asset part with only the selected instances, and bounds them', () => {
    const target = group(3);
    const material = new MeshBasicMaterial();
    const proxies = createInstanceProxies(material);
    proxies.fit(target, 2);
    const bounds = new Box3();
    proxies.refresh(target, [2, 0], bounds);
    const meshes = proxies.scene.children as InstancedMesh[];
    expect(meshes).toHaveLength(2);
    expect(meshes.map((m) => [m.count, m.material === material, m.visible])).toEqual([
      [2, true, true],
      [2, true, true],
    ]);
    expect(meshes[0]!.instanceMatrix.array[12]).toBe(6); // instance 2 first, at x = 6
    expect(meshes[0]!.instanceMatrix.array[16 + 12]).toBe(0);
    expect([bounds.min.x, bounds.max.x]).toEqual([-0.5, 6.5]);
    // An id the group does not have is left out.
    proxies.refresh(target, [1, 99], bounds);
    expect(meshes[0]!.count).toBe(1);
    proxies.hide();
    expect(meshes.every((m) => !m.visible)).toBe(true);
    proxies.dispose();
    expect(proxies.scene.children).toHaveLength(0);
  });

  it("bounds a large selection by its group's box", () => {
    const target = group(MAX_BOXED_INSTANCES + 1, 1);
    const proxies = createInstanceProxies(new MeshBasicMaterial());
    const ids = Array.from({ length: 3 }, (_, i) => i);
    proxies.fit(target, MAX_BOXED_INSTANCES + 1);
    const bounds = new Box3();
    proxies.refresh(target, [...ids, ...Array.from({ length: MAX_BOXED_INSTANCES - 2 }, (_, i) => i + 3)], bounds);
    expect(bounds.max.x).toBeCloseTo(MAX_BOXED_INSTANCES * 3 + 0.5);
    expect((proxies.scene.children[0] as InstancedMesh).count).toBe(MAX_BOXED_INSTANCES + 1);
  });
});
