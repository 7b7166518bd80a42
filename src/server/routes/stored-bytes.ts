import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerConfig } from '../config.ts';
import { isValidId, type Store } from '../store.ts';
import { ASSET_FILE_NAME, listAssets } from './assets.ts';

/**
 * What one person stores (STORED_BYTES_PER_USER, upload/quotas.ts): the model files of the scenes
 * they own (each model's current version), the textures uploaded to those models, and the
 * containers of their assets. Read from the data each time, so every process sharing DATA_DIR
 * sees the same figure.
 */
export async function storedBytesOf(config: ServerConfig, store: Pick<Store, 'listScenes' | 'derivativePath'>, userId: string): Promise<number> {
  const models = new Map<string, string>();
  for (const scene of await store.listScenes()) {
    if (scene.ownerId !== userId) continue;
    for (const model of scene.models) models.set(model._id, model.latestVersionKey);
  }
  const sizes: Promise<number>[] = [];
  for (const [modelId, versionKey] of models) {
    sizes.push(fileSize(store.derivativePath(versionKey)));
    if (isValidId(modelId)) sizes.push(folderSize(join(config.dataDir, 'textures', modelId)));
  }
  for (const asset of await listAssets(config)) {
    if (asset.ownerId === userId) sizes.push(fileSize(join(config.dataDir, 'assets', asset._id, ASSET_FILE_NAME)));
  }
  return (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

async function folderSize(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  return (await Promise.all(names.map((name) => fileSize(join(dir, name))))).reduce((sum, size) => sum + size, 0);
}
