import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadServerConfig } from '../src/server/config';
import { buildWarehouseReferenceModel, ensureWarehouseScene, WAREHOUSE_SCENE_ID } from '../src/server/demo-warehouse';
import { importModel } from '../src/server/import';
import { createInstanceService } from '../src/server/instances';
import { openFileStore } from '../src/server/store';

/** The scenes of the load benchmarks, made in a data dir as `npm run import` and the server's first start make them. */

const MODELS = resolve(import.meta.dirname, '../../shared/models');

export type SceneKey = 'helmet' | 'warehouse';

export interface LoadScene {
  key: SceneKey;
  label: string;
  sceneId: string;
  /** The GLB the plain page loads: DamagedHelmet.glb itself; the whole warehouse as one GLB with EXT_mesh_gpu_instancing (what a person would write for three.js). */
  glb: Uint8Array;
}

/** Imports DamagedHelmet (validated and optimised, as `npm run import` does) and the demo warehouse into `dataDir`. */
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
  } finally {
    await store.close();
  }
  return scenes;
}
