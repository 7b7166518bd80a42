import type { ClientConfig } from '../protocol/config';
import type { SceneDoc } from '../protocol/scene';
import { fetchClientConfig, fetchScene } from '../scene/load-scene';
import { prefetchGroupInstances } from '../scene/instance-assets';

export interface SceneDocuments {
  config: ClientConfig;
  scene: SceneDoc;
}

const cache = new Map<string, Promise<SceneDocuments>>();

/**
 * The client configuration and a scene's document, downloaded once per page: the cover (autoPlay
 * off) and the load after the play button share one download. A failed download is forgotten, so
 * a later call tries again.
 */
export function sceneDocuments(sceneId: string, base = ''): Promise<SceneDocuments> {
  const key = `${base}|${sceneId}`;
  let documents = cache.get(key);
  if (!documents) {
    documents = (async () => {
      const config = await fetchClientConfig(base);
      return { config, scene: await fetchScene(config, sceneId) };
    })();
    cache.set(key, documents);
    documents.catch(() => {
      if (cache.get(key) === documents) cache.delete(key);
    });
  }
  return documents;
}

export { mark } from '../scene/load-scene';

/**
 * Starts the scene's instance set downloads before the viewer loads it (src/scene/instance-assets.ts);
 * `signal` stops the ones the load has not taken.
 */
export function prefetchSceneInstances(documents: SceneDocuments, signal?: AbortSignal): void {
  prefetchGroupInstances(documents.config, documents.scene._id, documents.scene.viewerConfig?.objects ?? [], signal);
}
