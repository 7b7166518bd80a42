import { materialById, modelById, nodeIdOf } from '../engine/stable-ids';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import type { MaterialProperties, Mutation } from '../protocol/mutation';
import { applyMutations } from '../scene/apply-mutations';
import type { Emitter } from '../viewer/events';
import { SetNodeCommand, type EditApplier } from './commands';
import type { EditorEventMap, Selection } from './editor';
import { materialMutation, newUuid, nodeMutation, pickListed, type MutationQueues } from './mutation-queue';

/** The model `modelId` of the scene; throws when the scene has none. */
export function recordOf(world: ViewerWorld, modelId: string): ModelRecord {
  const record = modelById(world, modelId);
  if (!record) throw new Error(`The scene has no model '${modelId}'.`);
  return record;
}

/**
 * The node and material commands' applier: each change applied live through the code that replays
 * the saved log (src/scene/apply-mutations.ts, its problems told) and queued as a mutation; a
 * material assigned to the selected node updates the selection.
 */
export function createModelEdits(
  world: ViewerWorld,
  queues: MutationQueues,
  events: Emitter<EditorEventMap>,
  state: { selection: Selection | null },
): EditApplier {
  const apply = (modelId: string, mutation: Mutation) => {
    const { problems } = applyMutations(world, recordOf(world, modelId), [mutation]);
    for (const text of problems) events.emit('notice', { text });
    queues.add(modelId, mutation);
  };
  return {
    applyNode(modelId, nodeId, properties) {
      const mutation = nodeMutation(modelId, nodeId, properties as Record<string, unknown>);
      if (!mutation) return;
      const { modelId: _m, ...wire } = mutation;
      apply(modelId, wire as Mutation);
      const selection = state.selection;
      if (properties.material !== undefined && selection?.modelId === modelId && selection.nodeId === nodeId) {
        state.selection = { ...selection, materialId: properties.material };
        events.emit('selection', state.selection);
      }
      if (properties.name !== undefined || properties.visible !== undefined) events.emit('scene', { outline: true });
      else if (properties.material !== undefined) events.emit('scene', { outline: false });
    },
    applyMaterial(modelId, materialId, properties) {
      const mutation = materialMutation(modelId, materialId, properties as Record<string, unknown>);
      if (!mutation) return;
      const { modelId: _m, ...wire } = mutation;
      apply(modelId, wire as Mutation);
      events.emit('scene', { outline: false });
    },
    createMaterial(modelId, materialId, name, properties) {
      if (materialById(recordOf(world, modelId), materialId)) return;
      const listed = pickListed('material', properties as Record<string, unknown>);
      apply(modelId, {
        key: `material/${materialId}/create`,
        uuid: newUuid(),
        createdAt: Date.now(),
        type: 'createMaterial',
        materialId,
        name,
        properties: listed as MaterialProperties,
      });
      events.emit('scene', { outline: false });
    },
  };
}

/** A gizmo drag of a model's node ended: the step from the matrix before to the one after (null: not a node with an id). */
export function nodeDragStep(world: ViewerWorld, applier: EditApplier, eid: number, before: number[], after: number[], verb: string): SetNodeCommand | null {
  const model = [...world.models.values()].find((r) => r.nodeIds.has(eid));
  const nodeId = model ? nodeIdOf(model, eid) : null;
  if (!model || !nodeId) return null;
  return new SetNodeCommand(
    applier,
    model.modelId,
    nodeId,
    { matrix: before },
    { matrix: after },
    { name: `${verb} ${world.objects[eid]?.name || nodeId}`, updatable: false },
  );
}
