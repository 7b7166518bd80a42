import { Group, Matrix4 } from 'three';
import { createInstanceGroup, type InstanceAsset } from '../../../src/engine/instances';
import { bindObject } from '../../../src/engine/registry';
import { addViewerEntity, type ViewerWorld } from '../../../src/engine/world';

/** A group 'g1' of `n` instances of `asset` in a row along x, 2 m apart (instance i at x = 2 i), ids 0..n-1. */
export function instanceRow(world: ViewerWorld, n: number, asset: InstanceAsset, revision?: number) {
  const eid = addViewerEntity(world);
  const object = new Group();
  bindObject(world, eid, object);
  const ids = new Uint32Array(n).map((_, i) => i);
  const matrices = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) new Matrix4().makeTranslation(i * 2, 0, 0).toArray(matrices, i * 16);
  const group = createInstanceGroup(world, eid, { uuid: 'g1', asset, ids, matrices, revision });
  return { eid, object, group };
}
