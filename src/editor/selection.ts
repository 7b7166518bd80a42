import type { Object3D } from 'three';
import { instanceGroupByUuid } from '../engine/instances';
import { nodeEid } from '../engine/stable-ids';
import type { ViewerWorld } from '../engine/world';
import type { Emitter } from '../viewer/events';
import type { SceneObjects } from '../viewer/scene-objects';
import type { EditorEventMap, Selection } from './editor';
import type { NodeGizmo } from './gizmo';
import type { ObjectHelpers } from './helpers';
import { recordOf } from './model-edits';
import { materialOfNode } from './read-properties';
import type { SelectionOutline } from './selection-outline';

export interface Selecting {
  /** A node of a model (the gizmo only for a node with a nodeId), or nothing (null). */
  select(modelId: string | null, nodeId?: string | null): void;
  /** A scene object; an unknown uuid or null selects nothing. */
  selectObject(uuid: string | null): void;
  /** Instances of one group (those it still has); none selects nothing. */
  selectInstances(groupId: string, ids: readonly number[]): void;
  /** Instances an edit removed leave the selection. */
  instancesRemoved(groupId: string, removed: readonly number[]): void;
  /** 'Conifers #12' or '240 Conifers'. */
  describeInstances(groupId: string, ids: readonly number[]): string;
  dispose(): void;
}

export interface SelectingDeps {
  world: ViewerWorld;
  objects: SceneObjects;
  helpers: ObjectHelpers;
  gizmo: NodeGizmo;
  outline: SelectionOutline;
  events: Emitter<EditorEventMap>;
  state: { selection: Selection | null };
}

/** What is selected (state.selection), with the gizmo on it, its outline, and a 'selection' event. */
export function createSelecting(deps: SelectingDeps): Selecting {
  const { world, objects, helpers, gizmo, outline, events, state } = deps;

  /** What a scene object's outline follows: an instanced group's meshes, else the helpers of it and of what is under it. */
  const objectOutline = (uuid: string): Object3D[] => {
    const entry = objects.get(uuid);
    if (!entry) return [];
    if (entry.data.type === 'InstancedAssetGroup') return [entry.object];
    const out: Object3D[] = [];
    const visit = (id: string) => {
      const helper = helpers.helperOf(id);
      if (helper) out.push(helper);
      for (const child of objects.children(id)) visit(child);
    };
    visit(uuid);
    return out;
  };
  // A change of scene objects may replace a helper: the outline follows the selection's new ones.
  const off = objects.onChange(() => {
    if (state.selection?.objectId && !state.selection.instances) outline.showObjects(objectOutline(state.selection.objectId));
  });

  const describeInstances = (groupId: string, ids: readonly number[]): string => {
    const name = objects.get(groupId)?.data.name ?? groupId;
    return ids.length === 1 ? `${name} #${ids[0]}` : `${ids.length} ${name}`;
  };

  const select = (modelId: string | null, nodeId: string | null = null) => {
    if (!modelId) {
      state.selection = null;
      outline.clear();
      gizmo.attach(0);
      events.emit('selection', null);
      return;
    }
    const record = recordOf(world, modelId);
    const eid = nodeId ? nodeEid(record, nodeId) : 0;
    const object = eid ? world.objects[eid] : undefined;
    state.selection = {
      modelId,
      objectId: null,
      nodeId: object ? nodeId : null,
      name: object?.name || nodeId || record.name,
      materialId: object ? materialOfNode(record, object) : null,
    };
    // The gizmo only for objects with a nodeId.
    gizmo.attach(object ? eid : 0);
    outline.showObjects(object ? [object] : []);
    events.emit('selection', state.selection);
  };

  const selectInstances = (groupId: string, ids: readonly number[]) => {
    const group = instanceGroupByUuid(world, groupId);
    const live = group ? ids.filter((id) => group.index.get(id) >= 0) : [];
    if (!group || live.length === 0) return select(null);
    state.selection = {
      modelId: '',
      objectId: groupId,
      nodeId: null,
      name: describeInstances(groupId, live),
      materialId: null,
      instances: { groupId, ids: [...live] },
    };
    gizmo.attachInstances({ groupId, ids: live });
    outline.showInstances(groupId, live);
    events.emit('selection', state.selection);
  };

  return {
    select,
    selectObject(uuid) {
      const entry = uuid ? objects.get(uuid) : undefined;
      if (!entry) return select(null);
      state.selection = { modelId: '', objectId: entry.data.uuid, nodeId: null, name: entry.data.name, materialId: null };
      // An ambient light has no place: no gizmo (and no helper to outline).
      gizmo.attach(entry.data.type === 'AmbientLight' ? 0 : entry.eid);
      outline.showObjects(objectOutline(entry.data.uuid));
      events.emit('selection', state.selection);
    },
    selectInstances,
    instancesRemoved(groupId, removed) {
      const current = state.selection?.instances;
      if (!current || current.groupId !== groupId) return;
      const gone = new Set(removed);
      const left = current.ids.filter((id) => !gone.has(id));
      if (left.length !== current.ids.length) selectInstances(groupId, left);
    },
    describeInstances,
    dispose: off,
  };
}
