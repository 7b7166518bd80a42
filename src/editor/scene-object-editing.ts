import { query } from 'bitecs';
import { Matrix4, Quaternion, Vector3 } from 'three';
import { Light } from '../../components';
import { createInstanceGroup, instanceGroupOf, instanceIds, type InstanceArrays, type InstanceAsset, type InstanceGroupOptionsBase } from '../engine/instances';
import { shadowCost } from '../engine/lights';
import type { ViewerWorld } from '../engine/world';
import { defaultSceneObject, shadowMapsOf, shadowMapWarning, type SceneObject, type SceneObjectChange, type SceneObjectType } from '../protocol/scene-objects';
import type { SceneObjects } from '../viewer/scene-objects';
import { MultiCommand } from './commands';
import type { History } from './history';
import { readInstanceMatrices } from './instance-editing';
import { newUuid, type MutationQueues } from './mutation-queue';
import { SetObjectCommand, type ObjectApplier } from './object-commands';
import { OBJECTS_QUEUE } from './saver';

export interface SceneObjectEditingDeps {
  world: ViewerWorld;
  objects: SceneObjects;
  queues: MutationQueues;
  history: History;
  notice(text: string): void;
  /** The object is about to be removed (the editor lets go of it if it is selected). */
  removing(uuid: string): void;
  /** The object was put (data) or removed (null), live and queued. */
  changed(uuid: string, data: SceneObject | null): void;
}

export interface SceneObjectEditing {
  /** Puts or removes an object live and queues the change (the object commands' applier). */
  readonly applier: ObjectApplier;
  /** Adds a light, camera or group (one undoable step, named 'Light 2' after the first); returns its uuid. */
  add(type: SceneObjectType, fields: Partial<SceneObject>): string;
  /** Changes fields of an object (one undoable step, merged within 500 ms). */
  set(uuid: string, fields: Partial<Omit<SceneObject, 'uuid' | 'type'>>, name?: string): void;
  /** Removes an object and everything under it (one undoable step). */
  remove(uuid: string): void;
  /** A gizmo drag of an object ended: one step from the matrix before to the one after. */
  dragged(uuid: string, before: number[], after: number[], verb: string): void;
  /** An asset placed from the library in this session: a new group of it is drawn with it. */
  placed(assetId: string, asset: InstanceAsset): void;
}

const dm = new Matrix4();
const dp = new Vector3();
const dq = new Quaternion();
const ds = new Vector3();

/**
 * The scene's lights, cameras and groups as the editor changes them: live (scene-objects.ts) and
 * queued as object changes; the shadow-map warning; an instanced group removed and put back by an
 * undo keeps its instances.
 */
export function createSceneObjectEditing(deps: SceneObjectEditingDeps): SceneObjectEditing {
  const { world, objects, queues, history } = deps;
  /** Assets placed from the library in this session, by id (a new group of one is drawn with it). */
  const placedAssets = new Map<string, InstanceAsset>();
  /** Instanced groups removed by an edit, kept for its undo (their asset, ids and matrices). */
  const removedGroups = new Map<string, Pick<InstanceGroupOptionsBase, 'asset' | 'revision'> & Omit<InstanceArrays, 'prepared'>>();

  /** Shadow maps every casting light other than `except` needs (the sun, model lights, scene objects). */
  const otherShadowMaps = (exceptEid: number): number => {
    let total = 0;
    for (const eid of query(world, [Light])) {
      if (eid === exceptEid || Light.wantsShadow[eid] === 0) continue;
      const object = world.objects[eid];
      if (object && !object.visible) continue;
      total += shadowCost(Light.type[eid]);
    }
    return total;
  };

  const applier: ObjectApplier = {
    applyObject(uuid, data) {
      // The shadow-map check: warned before the change that would pass 12, naming the light.
      if (data && shadowMapsOf(data) > 0) {
        const warning = shadowMapWarning(otherShadowMaps(objects.get(uuid)?.eid ?? 0), data);
        if (warning) deps.notice(warning);
      }
      if (data) {
        const entry = objects.put(data);
        // A removed instanced group put back (an undo): its instances as they were. The server
        // keeps a removed group's set, so the saved put finds them there too.
        const kept = removedGroups.get(uuid);
        if (kept && data.type === 'InstancedAssetGroup' && !instanceGroupOf(world, entry.eid)) {
          removedGroups.delete(uuid);
          createInstanceGroup(world, entry.eid, { uuid, ...kept, castShadow: data.castShadow ?? true, receiveShadow: true });
        } else if (data.type === 'InstancedAssetGroup' && !instanceGroupOf(world, entry.eid) && placedAssets.has(data.assetId!)) {
          // A group made in this editor (Place): empty until its first instance is added.
          createInstanceGroup(world, entry.eid, {
            uuid,
            asset: placedAssets.get(data.assetId!)!,
            ids: new Uint32Array(0),
            matrices: new Float32Array(0),
            castShadow: data.castShadow ?? true,
            receiveShadow: true,
          });
        }
      } else {
        deps.removing(uuid);
        const entry = objects.get(uuid);
        const group = entry ? instanceGroupOf(world, entry.eid) : null;
        if (group) {
          const ids = Array.from(instanceIds(group));
          removedGroups.set(uuid, {
            asset: group.asset,
            ids: Uint32Array.from(ids),
            matrices: readInstanceMatrices(group, ids),
            nextId: group.nextId,
            revision: group.revision,
          });
        }
        objects.remove(uuid);
      }
      const change: SceneObjectChange = data
        ? { key: `object/${uuid}`, uuid: newUuid(), createdAt: Date.now(), type: 'putObject', objectId: uuid, object: data }
        : { key: `object/${uuid}`, uuid: newUuid(), createdAt: Date.now(), type: 'removeObject', objectId: uuid };
      queues.add(OBJECTS_QUEUE, change);
      deps.changed(uuid, data);
    },
  };

  return {
    applier,
    add(type, fields) {
      const uuid = newUuid();
      const count = objects.list().filter((o) => o.type === type).length;
      const base = defaultSceneObject(type, uuid);
      const data: SceneObject = { ...base, name: count ? `${base.name} ${count + 1}` : base.name, ...fields, uuid, type };
      history.execute(new SetObjectCommand(applier, uuid, null, data));
      return uuid;
    },
    set(uuid, fields, name) {
      const before = objects.get(uuid)?.data;
      if (!before) throw new Error(`The scene has no object '${uuid}'.`);
      const after = { ...before, ...fields, uuid, type: before.type } as SceneObject;
      history.execute(new SetObjectCommand(applier, uuid, before, after, { name }));
    },
    remove(uuid) {
      const data = objects.get(uuid)?.data;
      if (!data) return;
      // The object and its descendants, deepest first; undo puts them back parents first.
      const order: SceneObject[] = [];
      const visit = (id: string) => {
        for (const child of objects.children(id)) visit(child);
        order.push(objects.get(id)!.data);
      };
      visit(uuid);
      const commands = order.map((o) => new SetObjectCommand(applier, o.uuid, o, null));
      history.execute(commands.length === 1 ? commands[0] : new MultiCommand(commands, `Remove ${data.name}`));
    },
    dragged(uuid, before, after, verb) {
      const data = objects.get(uuid)!.data;
      const trs = (matrix: number[]) => {
        dm.fromArray(matrix).decompose(dp, dq, ds);
        return {
          position: dp.toArray() as [number, number, number],
          quaternion: dq.toArray() as [number, number, number, number],
          scale: ds.toArray() as [number, number, number],
        };
      };
      history.execute(
        new SetObjectCommand(applier, uuid, { ...data, ...trs(before) }, { ...data, ...trs(after) }, { name: `${verb} ${data.name}`, updatable: false }),
      );
    },
    placed(assetId, asset) {
      placedAssets.set(assetId, asset);
    },
  };
}
