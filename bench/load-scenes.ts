import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadServerConfig } from '../src/server/config';
import { buildWarehouseReferenceModel, ensureWarehouseScene, WAREHOUSE_SCENE_ID } from '../src/server/demo-warehouse';
import { importModel } from '../src/server/import';
import { createInstancesScene } from '../src/server/demo-instances-scene';
import { createInstanceService } from '../src/server/instances';
import { openFileStore } from '../src/server/store';

/** The scenes of the load benchmarks, made in a data dir as `npm run import` and the server's first start make them. */

const MODELS = resolve(import.meta.dirname, '../../shared/models');

export type SceneKey = 'helmet' | 'warehouse' | 'city';

export interface LoadScene {
  key: SceneKey;
  label: string;
  sceneId: string;
  /** The GLB the plain page loads: DamagedHelmet.glb itself; the whole warehouse as one GLB with EXT_mesh_gpu_instancing (what a person would write for three.js). Empty for the city (its plain page is bench/instances-load.bench.ts's). */
  glb: Uint8Array;
}

/** Imports DamagedHelmet (validated and optimised, as `npm run import` does), the demo warehouse and a generated city of a million instances into `dataDir`, as asked. */
export async function seedScenes(dataDir: string, keys: readonly string[]): Promise<LoadScene[]> {
  const scenes: LoadScene[] = [];
  const store = await openFileStore(dataDir);
  try {
    if (keys.includes('helmet')) {
      const path = join(MODELS, 'DamagedHelmet.glb');
      await importModel(store, { path }, { sceneId: 'bench-helmet', name: 'DamagedHelmet', optimize: true });
      scenes.push({ key: 'helmet', label: 'DamagedHelmet', sceneId: 'bench-helmet', glb: readFileSync(path) });
    }
    if (keys.includes('warehouse')) {
      // The scene as the server's first start makes it: the building's model, the assets on the asset CDN, the groups' instances.
      await ensureWarehouseScene({ config: loadServerConfig({ DATA_DIR: dataDir }), store, instances: createInstanceService(store) });
      scenes.push({ key: 'warehouse', label: 'demo warehouse', sceneId: WAREHOUSE_SCENE_ID, glb: await buildWarehouseReferenceModel() });
    }
    if (keys.includes('city')) {
      // `npm run demo -- instances 1000000`: for the profiler (bench/profile-load.ts --scene city).
      const made = await createInstancesScene({ config: loadServerConfig({ DATA_DIR: dataDir }), store, instances: createInstanceService(store) }, 1_000_000, { sceneId: 'bench-city' });
      scenes.push({ key: 'city', label: 'city of 1,000,000 instances', sceneId: made.scene._id, glb: new Uint8Array(0) });
    }
  } finally {
    await store.close();
  }
  return scenes;
}
