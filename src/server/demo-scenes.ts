import type { SceneDoc } from '../protocol/scene.ts';

/**
 * The demo scenes' ids and file names, and whether the store's copies are current: what the
 * server reads on every start, in a module without the generators (gltf-transform and the import
 * pipeline load only when a demo scene has to be made, ./demo.ts and ./demo-warehouse.ts).
 */

export const DEMO_SCENE_ID = 'demo';
export const WAREHOUSE_SCENE_ID = 'warehouse';
/** The warehouse's model: everything that is not repeated. */
export const WAREHOUSE_FILE_NAME = 'demo-warehouse-building.glb';
/** The single model of the warehouse before its repeated assets became instanced asset groups. */
export const LEGACY_WAREHOUSE_FILE_NAME = 'demo-warehouse.glb';

/**
 * Whether a stored warehouse scene is to be (re)built: it has no instanced asset group and its only
 * models are the warehouse's own: the single model of before (its repeated assets inside the GLB),
 * or the building of a start that was interrupted before the groups were written.
 */
export function warehouseNeedsBuild(scene: SceneDoc): boolean {
  const ours = new Set([LEGACY_WAREHOUSE_FILE_NAME, WAREHOUSE_FILE_NAME]);
  return !(scene.viewerConfig.objects ?? []).some((o) => o.type === 'InstancedAssetGroup') && scene.models.every((m) => ours.has(m.sourceFileName));
}
