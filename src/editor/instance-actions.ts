import { Matrix4, Vector3 } from 'three';
import type { InstanceAsset, InstanceGroupRecord } from '../engine/instances';
import { viewFocus } from '../engine/view-pose';
import type { ViewerWorld } from '../engine/world';
import { defaultSceneObject, type SceneObject } from '../protocol/scene-objects';
import type { SceneObjects } from '../viewer/scene-objects';
import { MultiCommand } from './commands';
import type { History } from './history';
import { AddInstancesCommand, RemoveInstancesCommand, SetInstancesCommand, type InstanceApplier } from './instance-commands';
import { besideMatrices, groupOrThrow, readInstanceMatrices } from './instance-editing';
import { newUuid } from './mutation-queue';
import { SetObjectCommand } from './object-commands';
import type { SceneObjectEditing } from './scene-object-editing';

export interface InstanceActionsDeps {
  world: ViewerWorld;
  objects: SceneObjects;
  history: History;
  instances: InstanceApplier;
  sceneObjects: Pick<SceneObjectEditing, 'applier' | 'placed'>;
  describeInstances(groupId: string, ids: readonly number[]): string;
  loadAsset?: (assetId: string) => Promise<{ asset: InstanceAsset; error?: Error | null }>;
  notice(text: string): void;
}

export interface InstanceActions {
  /**
   * One instance of an asset where the view looks: into the scene's group of that asset, or a new
   * group (one undoable step); answers what to select, or null when the asset could not be loaded (told).
   */
  place(assetId: string, name?: string): Promise<{ groupId: string; ids: number[] } | null>;
  /** The removal of instances of a group as one undoable step ('Delete …'), for history.execute. */
  removal(groupId: string, ids: readonly number[]): RemoveInstancesCommand;
  /** Copies instances beside them (one undoable step); answers the copies' ids. */
  copy(groupId: string, ids: readonly number[]): number[];
  /** A gizmo drag of instances ended (it moved them): one step from their matrices before to after. */
  dragged(groupId: string, ids: readonly number[], before: Float32Array, after: Float32Array, verb: string): void;
}

/** The asset library's Place, and Delete and Ctrl+C on selected instances, as undoable steps. */
export function createInstanceActions(deps: InstanceActionsDeps): InstanceActions {
  const { world, objects, history, instances, describeInstances } = deps;
  return {
    async place(assetId, name) {
      const focus = viewFocus(world, new Vector3());
      const place = new Matrix4().makeTranslation(focus.x, focus.y, focus.z);
      let existing: InstanceGroupRecord | null = null;
      for (const g of world.instanceGroups.values()) if (g.asset.assetId === assetId && !g.asset.placeholder && objects.get(g.uuid)) existing = g;
      if (existing) {
        const local = new Matrix4().copy(existing.object.matrixWorld).invert().multiply(place);
        const id = existing.nextId;
        history.execute(
          new AddInstancesCommand(instances, existing.uuid, [id], new Float32Array(local.elements), `Place ${describeInstances(existing.uuid, [id])}`),
        );
        return { groupId: existing.uuid, ids: [id] };
      }
      const loaded = deps.loadAsset ? await deps.loadAsset(assetId) : null;
      if (!loaded || loaded.error || loaded.asset.placeholder) {
        deps.notice(`The asset "${name ?? assetId}" could not be placed: ${loaded?.error?.message ?? 'it could not be loaded'}`);
        return null;
      }
      deps.sceneObjects.placed(assetId, loaded.asset);
      const uuid = newUuid();
      const base = defaultSceneObject('InstancedAssetGroup', uuid, name ?? assetId);
      const data: SceneObject = { ...base, assetId };
      const create = new SetObjectCommand(deps.sceneObjects.applier, uuid, null, data);
      const first = new AddInstancesCommand(instances, uuid, [0], new Float32Array(place.elements), `Place ${data.name}`);
      history.execute(new MultiCommand([create, first], `Place ${data.name}`));
      return { groupId: uuid, ids: [0] };
    },
    removal(groupId, ids) {
      const matrices = readInstanceMatrices(groupOrThrow(world, groupId), ids);
      return new RemoveInstancesCommand(instances, groupId, ids, matrices, `Delete ${describeInstances(groupId, ids)}`);
    },
    copy(groupId, ids) {
      const group = groupOrThrow(world, groupId);
      const matrices = besideMatrices(group, ids);
      const copies = ids.map((_, i) => group.nextId + i);
      history.execute(new AddInstancesCommand(instances, groupId, copies, matrices, `Copy ${describeInstances(groupId, ids)}`));
      return copies;
    },
    dragged(groupId, ids, before, after, verb) {
      history.execute(new SetInstancesCommand(instances, groupId, [...ids], before, after, `${verb} ${describeInstances(groupId, ids)}`));
    },
  };
}
