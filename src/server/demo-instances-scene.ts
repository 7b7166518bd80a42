import { CONFIG_DEFAULTS, type ServerConfig } from './config.ts';
import { ASSET_FILE_NAME, readAsset, writeAsset } from './routes/assets.ts';
import { createInstanceAssets, generateInstanceLayout } from './demo-instances.ts';
import type { InstanceService } from './instances.ts';
import type { SceneDoc } from '../protocol/scene.ts';
import type { SceneObject } from '../protocol/scene-objects.ts';
import { processModel } from './upload/process.ts';
import type { Store } from './store.ts';

/**
 * A generated scene of N instances of the demo assets (a city block in a forest; our own geometry,
 * src/server/demo-instances.ts): the assets go to the asset CDN once (ids `demo-{key}`, through the
 * same validation and optimisation as uploads), each asset's instances become one instanced
 * asset group whose set the instance store keeps. `npm run demo -- instances N` calls this.
 */

export const INSTANCES_GENERATOR = 'parametricos demo instances';
export const DEMO_ASSET_PREFIX = 'demo-';

export async function ensureDemoAssets(config: ServerConfig): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const assets = await createInstanceAssets();
  for (const asset of assets) {
    const assetId = `${DEMO_ASSET_PREFIX}${asset.key}`;
    ids.set(asset.key, assetId);
    if (await readAsset(config, assetId)) continue;
    const fileName = `${asset.key}.glb`;
    const { container } = await processModel({ fileName, bytes: asset.glb }, { maxBytes: CONFIG_DEFAULTS.MAX_ASSET_BYTES, optimize: true, generator: INSTANCES_GENERATOR });
    await writeAsset(config, { _id: assetId, name: asset.name, sourceFileName: fileName, path: `assets/${assetId}/${ASSET_FILE_NAME}`, byteLength: container.byteLength, createdAt: new Date().toISOString() }, container);
  }
  return ids;
}

export interface InstancesSceneResult {
  scene: SceneDoc;
  groups: { groupId: string; assetId: string; count: number }[];
  /** Milliseconds spent generating the layout and writing the sets. */
  ms: number;
}

export async function createInstancesScene(
  ctx: { config: ServerConfig; store: Store; instances: InstanceService },
  n: number,
  options: { sceneId?: string; seed?: number } = {},
): Promise<InstancesSceneResult> {
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new Error(`N must be a whole number from 1 to 1,000,000 (got ${n})`);
  const started = performance.now();
  const assetIds = await ensureDemoAssets(ctx.config);
  const layout = generateInstanceLayout(n, options.seed);
  const groups = layout.filter((g) => g.set.ids.length > 0);
  const objects: SceneObject[] = groups.map((g) => ({
    uuid: `instances-${g.key}`,
    type: 'InstancedAssetGroup',
    name: g.name,
    parent: null,
    position: [0, 0, 0],
    quaternion: [0, 0, 0, 1],
    scale: [1, 1, 1],
    visible: true,
    castShadow: true,
    assetId: assetIds.get(g.key) ?? `${DEMO_ASSET_PREFIX}${g.key}`,
    instanceCount: g.set.ids.length,
  }));
  const name = `${n.toLocaleString('en-US')} instances`;
  const viewerConfig: SceneDoc['viewerConfig'] = { objects };
  const existing = options.sceneId ? await ctx.store.getScene(options.sceneId) : undefined;
  const scene = existing
    ? (await ctx.store.updateScene(existing._id, (s) => ({ ...s, name, viewerConfig: { ...s.viewerConfig, objects } })))!
    : await ctx.store.createScene({ ...(options.sceneId ? { _id: options.sceneId } : {}), name, viewerConfig });
  // Groups the scene had before and no longer lists lose their sets.
  for (const old of existing?.viewerConfig.objects ?? []) {
    if (old.type === 'InstancedAssetGroup' && !objects.some((o) => o.uuid === old.uuid)) await ctx.instances.remove(scene._id, old.uuid);
  }
  for (const [i, g] of groups.entries()) await ctx.instances.replace(scene._id, objects[i]!.uuid, g.set);
  return { scene, groups: groups.map((g, i) => ({ groupId: objects[i]!.uuid, assetId: objects[i]!.assetId!, count: g.set.ids.length })), ms: performance.now() - started };
}
