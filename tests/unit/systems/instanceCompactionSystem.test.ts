import { BoxGeometry, Group, Matrix4, MeshBasicMaterial } from 'three';
import { describe, expect, it } from 'vitest';
import { InstanceGroup } from '../../../components';
import { createInstanceGroup, getInstanceMatrix, removeInstances } from '../../../src/engine/instances';
import { bindObject } from '../../../src/engine/registry';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';
import { INSTANCE_COMPACTION_THRESHOLD } from '../../../src/protocol/instances';
import { PIPELINE } from '../../../systems';
import { avatarSmoothingSystem } from '../../../systems/avatarSmoothingSystem';
import { instanceCompactionSystem } from '../../../systems/instanceCompactionSystem';
import { shadowBudgetSystem } from '../../../systems/shadowBudgetSystem';

function setup(n: number) {
  const world = createViewerWorld();
  const eid = addViewerEntity(world);
  bindObject(world, eid, new Group());
  const matrices = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) new Matrix4().makeTranslation(i, 0, 0).toArray(matrices, i * 16);
  const asset = { assetId: 'a', parts: [{ name: 'p', geometry: new BoxGeometry(), material: new MeshBasicMaterial() }], box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]), placeholder: false };
  const group = createInstanceGroup(world, eid, { uuid: 'g', asset, ids: new Uint32Array(n).map((_, i) => i), matrices });
  return { world, eid, group };
}

describe('instanceCompactionSystem', () => {
  it('sits after avatar smoothing and before the shadow budget', () => {
    const at = PIPELINE.indexOf(instanceCompactionSystem);
    expect(at).toBeGreaterThan(PIPELINE.indexOf(avatarSmoothingSystem));
    expect(at).toBeLessThan(PIPELINE.indexOf(shadowBudgetSystem));
  });

  it(`leaves marked removals below ${INSTANCE_COMPACTION_THRESHOLD} alone and packs at the threshold, keeping ids`, () => {
    const { world, eid, group } = setup(500);
    removeInstances(world, group, Array.from({ length: INSTANCE_COMPACTION_THRESHOLD - 1 }, (_, i) => i * 2));
    instanceCompactionSystem(world);
    expect(group.count).toBe(500);
    expect(InstanceGroup.removed[eid]).toBe(INSTANCE_COMPACTION_THRESHOLD - 1);
    removeInstances(world, group, [401]);
    instanceCompactionSystem(world);
    expect(group.count).toBe(500 - INSTANCE_COMPACTION_THRESHOLD);
    expect(InstanceGroup.removed[eid]).toBe(0);
    expect(getInstanceMatrix(group, 499, new Matrix4()).elements[12]).toBe(499);
    expect(getInstanceMatrix(group, 1, new Matrix4()).elements[12]).toBe(1);
    expect(() => getInstanceMatrix(group, 401, new Matrix4())).toThrow('No instance found with id 401');
  });

  it('does nothing without groups', () => {
    const world = createViewerWorld();
    expect(instanceCompactionSystem(world)).toBe(world);
  });
});
