import { MAX_ENTITIES } from './constants';

/**
 * An instanced asset group (editor specification section 3): the entity of the scene object, whose
 * instances live in the group's typed arrays (src/engine/instances.ts), never as entities or
 * Object3Ds of their own. `removed` counts removals marked since the last compaction; the instance
 * compaction system packs a group's slots once it reaches INSTANCE_COMPACTION_THRESHOLD.
 * `count` is the group's live instances (informative: lists, stats).
 */
export const InstanceGroup = {
  removed: new Uint32Array(MAX_ENTITIES),
  count: new Uint32Array(MAX_ENTITIES),
};
