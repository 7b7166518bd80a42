import { CONFIG_DEFAULTS, type ServerConfig } from './config.ts';
import { ASSET_FILE_NAME, readAsset, writeAsset } from './routes/assets.ts';
import { createInstanceAssets, generateInstanceLayout, type InstanceDemoKey } from './demo-instances.ts';
import { createRealisticInstanceAssets } from './demo-instances-realistic.ts';
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
 *
 * Two asset sets: 'simple' (low-poly, 90 to 300 triangles an asset) and 'realistic'
 * (src/server/demo-instances-realistic.ts: 1,500 to 10,000), ids `demo-{key}-realistic`, so both
 * can live on one asset CDN. The layout is the same for both.
 */

export const INSTANCES_GENERATOR = 'parametricos demo instances';
export const DEMO_ASSET_PREFIX = 'demo-';

export const INSTANCE_ASSET_SETS = ['simple', 'realistic'] as const;
export type InstanceAssetSet = (typeof INSTANCE_ASSET_SETS)[number];

/** The asset CDN id of a demo asset: `demo-{key}`, `demo-{key}-realistic`. */
export function demoAssetId(key: string, set: InstanceAssetSet = 'simple'): string {
  return `${DEMO_ASSET_PREFIX}${key}${set === 'simple' ? '' : `-${set}`}`;
}

/** A set's assets as GLB bytes with their triangle counts. */
export function createDemoAssets(set: InstanceAssetSet): Promise<{ key: InstanceDemoKey; name: string; glb: Uint8Array; triangles: number }[]> {
  return set === 'realistic' ? createRealisticInstanceAssets() : createInstanceAssets();
}

interface DemoAsset {
  key: InstanceDemoKey;
  assetId: string;
  triangles: number;
}

/** Writes the set's assets that the asset CDN does not have yet; their ids and triangle counts. */
async function writeDemoAssets(config: ServerConfig, set: InstanceAssetSet): Promise<DemoAsset[]> {
  if (!INSTANCE_ASSET_SETS.includes(set)) throw new Error(`unknown asset set '${String(set)}' (one of ${INSTANCE_ASSET_SETS.join(', ')})`);
  const assets = await createDemoAssets(set);
  const written: DemoAsset[] = [];
  for (const asset of assets) {
    const assetId = demoAssetId(asset.key, set);
    written.push({ key: asset.key, assetId, triangles: asset.triangles });
    if (await readAsset(config, assetId)) continue;
    const fileName = `${asset.key}${set === 'simple' ? '' : `-${set}`}.glb`;
    const { container } = await processModel({ fileName, bytes: asset.glb }, { maxBytes: CONFIG_DEFAULTS.MAX_ASSET_BYTES, optimize: true, levels: true, generator: INSTANCES_GENERATOR });
    await writeAsset(config, { _id: assetId, name: asset.name, sourceFileName: fileName, path: `assets/${assetId}/${ASSET_FILE_NAME}`, byteLength: container.byteLength, createdAt: new Date().toISOString() }, container);
  }
  return written;
}

/** The set's assets on the asset CDN (written the first time): asset id by key. */
export async function ensureDemoAssets(config: ServerConfig, set: InstanceAssetSet = 'simple'): Promise<Map<string, string>> {
  return new Map((await writeDemoAssets(config, set)).map((a) => [a.key, a.assetId]));
}

export interface InstancesSceneResult {
  scene: SceneDoc;
  /** The asset set the groups draw. */
  assets: InstanceAssetSet;
  groups: { groupId: string; assetId: string; count: number; /** Triangles of one instance. */ triangles: number }[];
  /** Milliseconds spent generating the layout and writing the sets. */
  ms: number;
}

export async function createInstancesScene(
  ctx: { config: ServerConfig; store: Store; instances: InstanceService },
  n: number,
  options: { sceneId?: string; seed?: number; assets?: InstanceAssetSet } = {},
): Promise<InstancesSceneResult> {
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new Error(`N must be a whole number from 1 to 1,000,000 (got ${n})`);
  const started = performance.now();
  const set = options.assets ?? 'simple';
  const assets = new Map((await writeDemoAssets(ctx.config, set)).map((a) => [a.key as string, a]));
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
    assetId: assets.get(g.key)?.assetId ?? demoAssetId(g.key, set),
    instanceCount: g.set.ids.length,
  }));
  const name = `${n.toLocaleString('en-US')} instances${set === 'simple' ? '' : `, ${set} assets`}`;
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
  return {
    scene,
    assets: set,
    groups: groups.map((g, i) => ({ groupId: objects[i]!.uuid, assetId: objects[i]!.assetId!, count: g.set.ids.length, triangles: assets.get(g.key)?.triangles ?? 0 })),
    ms: performance.now() - started,
  };
}
