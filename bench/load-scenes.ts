import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildWarehouseModel, ensureWarehouseScene, WAREHOUSE_SCENE_ID } from '../src/server/demo-warehouse';
import { importModel } from '../src/server/import';
import { openFileStore } from '../src/server/store';

/** The scenes of the load benchmarks, made in a data dir as `npm run import` and the server's first start make them. */

const MODELS = resolve(import.meta.dirname, '../../shared/models');

export type SceneKey = 'helmet' | 'warehouse';

export interface LoadScene {
  key: SceneKey;
  label: string;
  sceneId: string;
  /** The GLB the plain page loads: DamagedHelmet.glb itself; the warehouse generator's GLB (before our import optimises it). */
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
      await ensureWarehouseScene(store);
      scenes.push({ key: 'warehouse', label: 'demo warehouse', sceneId: WAREHOUSE_SCENE_ID, glb: await buildWarehouseModel() });
    }
  } finally {
    await store.close();
  }
  return scenes;
}
