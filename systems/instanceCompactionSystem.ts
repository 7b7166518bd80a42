import { InstanceGroup } from '../components';
import { compactInstanceGroup, type InstanceGroupRecord } from '../src/engine/instances';
import type { ViewerWorld } from '../src/engine/world';
import { INSTANCE_COMPACTION_THRESHOLD } from '../src/protocol/instances';

/**
 * Packs the slots of instanced asset groups (editor specification section 4: removals are marked
 * and compacted in a batch): a group with at least INSTANCE_COMPACTION_THRESHOLD marked removals
 * has its last instances moved into the holes (src/engine/instances.ts), ids kept. A frame with no
 * group at the threshold costs one counter read per group; no per-instance work, no allocation.
 */
export function instanceCompactionSystem(world: ViewerWorld): ViewerWorld {
  if (world.instanceGroups.size > 0) world.instanceGroups.forEach(compactIfDue, world);
  return world;
}

/** Called with the world as `this` (Map.forEach's thisArg: no closure per frame). */
function compactIfDue(this: ViewerWorld, group: InstanceGroupRecord): void {
  if (InstanceGroup.removed[group.eid]! >= INSTANCE_COMPACTION_THRESHOLD) compactInstanceGroup(this, group);
}
