import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelDoc, SceneDoc } from '../../protocol/scene.ts';
import { isValidId, type Store } from './common.ts';

/**
 * The first server kept documents as JSON files (`{dataDir}/scenes/{id}.json`,
 * `{dataDir}/models/{id}.json`). A store opened on such a DATA_DIR takes them over once: each
 * document it does not have yet is added (what the database has wins), and the files stay where
 * they are, untouched. Unreadable files are reported on stderr and skipped.
 */
export async function importLegacyJson(dataDir: string, store: Store): Promise<{ scenes: number; models: number }> {
  const count = { scenes: 0, models: 0 };
  for (const kind of ['models', 'scenes'] as const) {
    let names: string[];
    try {
      names = (await readdir(join(dataDir, kind))).filter((name) => name.endsWith('.json'));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const id = name.slice(0, -'.json'.length);
      if (!isValidId(id)) continue;
      const file = join(dataDir, kind, name);
      try {
        const json: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (kind === 'models') {
          const doc = ModelDoc.parse(json);
          if (doc._id !== id || (await store.getModel(id))) continue;
          await store.putModel(doc);
          count.models++;
        } else {
          const doc = SceneDoc.parse(json);
          if (doc._id !== id || (await store.getScene(id))) continue;
          await store.putScene(doc);
          count.scenes++;
        }
      } catch (error) {
        console.error(`warning: skipped ${file} while taking over the JSON file store: ${(error as Error).message}`);
      }
    }
  }
  return count;
}
