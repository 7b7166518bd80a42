import type { Object3D, Scene } from 'three';
import { createInstanceGroup, type InstanceGroupRecord } from '../engine/instances';
import type { ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import type { SceneObject } from '../protocol/scene-objects';
import type { AssetCache, LoadedAsset, LoadedInstances } from '../scene/instance-assets';
import { fetchGroupInstances } from '../scene/instance-assets';
import { mark } from '../scene/load-scene';
import { sceneObjectsOf } from './scene-objects';

/**
 * Loads the instanced asset groups of a scene into their scene objects' entities (put by the load
 * before): each group's asset (through the viewer's asset cache: one download per asset) and its
 * instances in parallel, then the engine's group (src/engine/instances.ts). An asset that failed
 * draws the red placeholder cube at each instance, with one notice naming it; a group whose
 * instances could not be loaded stays empty, with a notice naming it. The rest of the scene loads.
 */
export interface InstanceGroupsLoad {
  groups: InstanceGroupRecord[];
  /** Asset ids drawn as the placeholder cube. */
  failedAssets: string[];
  /** Group uuids whose instances could not be loaded. */
  failedGroups: string[];
}

/** Each group's asset and instances, downloading: started by the load before anything else. */
export type InstanceGroupDownloads = Map<string, Promise<[LoadedAsset, LoadedInstances | Error]>>;

/**
 * Starts the downloads of the groups' assets (through the cache: one per asset) and instance sets
 * at once, so that they overlap the rest of the load (models, environment, the first picture).
 */
export function startInstanceGroupDownloads(config: ClientConfig, sceneId: string, objects: readonly SceneObject[], assets: AssetCache, signal?: AbortSignal): InstanceGroupDownloads {
  const downloads: InstanceGroupDownloads = new Map();
  for (const object of objects) {
    if (object.type !== 'InstancedAssetGroup' || !object.assetId) continue;
    const both = Promise.all([
      assets.get(object.assetId),
      fetchGroupInstances(config, sceneId, object, signal).catch((error: unknown) => (signal?.aborted ? Promise.reject(error) : (error as Error))),
    ]);
    both.catch(() => undefined);
    downloads.set(object.uuid, both);
  }
  return downloads;
}

export async function loadInstanceGroups(
  world: ViewerWorld,
  scene: Scene,
  config: ClientConfig,
  sceneId: string,
  objects: readonly SceneObject[],
  assets: AssetCache,
  options: { onNotice?: (text: string) => void; signal?: AbortSignal; downloads?: InstanceGroupDownloads } = {},
): Promise<InstanceGroupsLoad> {
  const result: InstanceGroupsLoad = { groups: [], failedAssets: [], failedGroups: [] };
  const registry = sceneObjectsOf(world, scene);
  const told = new Set<string>();
  let sets = 0;
  let assetsLoaded = 0;
  const total = objects.filter((o) => o.type === 'InstancedAssetGroup' && o.assetId).length;
  await Promise.all(
    objects
      .filter((o) => o.type === 'InstancedAssetGroup' && o.assetId)
      .map(async (object) => {
        const entry = registry.get(object.uuid);
        if (!entry) return;
        const started = options.downloads?.get(object.uuid);
        const [loaded, instances] = await Promise.all([
          (started ? started.then(([a]) => a) : assets.get(object.assetId!)).then((a) => {
            if (++assetsLoaded === total) mark('instance-assets');
            return a;
          }),
          (started
            ? started.then(([, i]) => i)
            : fetchGroupInstances(config, sceneId, object, options.signal).catch((error: unknown) => (options.signal?.aborted ? Promise.reject(error) : (error as Error)))
          ).then((i) => {
            if (++sets === total) mark('instance-sets');
            return i;
          }),
        ]);
        options.signal?.throwIfAborted();
        if (loaded.error && !told.has(object.assetId!)) {
          told.add(object.assetId!);
          result.failedAssets.push(object.assetId!);
          console.error(`Asset ${object.assetId} could not be loaded:`, loaded.error);
          options.onNotice?.(`The asset "${object.assetId}" could not be loaded, so a red placeholder cube stands in for each of its instances: ${loaded.error.message}`);
        }
        if (instances instanceof Error) {
          result.failedGroups.push(object.uuid);
          console.error(`The instances of group ${object.uuid} could not be loaded:`, instances);
          options.onNotice?.(`The instances of "${object.name || object.uuid}" could not be loaded: ${instances.message}`);
          return;
        }
        // The group's entity may have been removed or replaced while this loaded (an editor, a new scene).
        if (registry.get(object.uuid) !== entry) return;
        const group = createInstanceGroup(world, entry.eid, {
          uuid: object.uuid,
          asset: loaded.asset,
          ids: instances.ids,
          matrices: instances.matrices,
          nextId: instances.nextId,
          revision: instances.revision,
          castShadow: object.castShadow ?? true,
          receiveShadow: true,
        });
        result.groups.push(group);
      }),
  );
  mark('instance-groups');
  return result;
}

/** The Object3Ds of the loaded groups (fitting and picking trees take them). */
export function groupRoots(world: ViewerWorld): Object3D[] {
  return [...world.instanceGroups.values()].map((g) => g.object);
}
