import type { QueueSnapshot } from './mutation-queue';
import type { QueueStore } from './saver';

/**
 * The unsaved queue of a scene kept in this browser (IndexedDB), so that it survives a reload or a
 * crash of the tab and is offered back when the editor opens the scene again. One record per
 * scene; an empty queue removes it.
 */
const DB_NAME = 'parametricos-editor';
const STORE = 'unsaved';

export interface StoredQueue {
  sceneId: string;
  savedAt: number;
  queues: QueueSnapshot;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'sceneId' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened.'));
    request.onblocked = () => reject(new Error('IndexedDB is blocked by another tab.'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed.'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted.'));
  });
}

export function countOf(queues: QueueSnapshot): number {
  let n = 0;
  for (const list of Object.values(queues)) n += list.length;
  return n;
}

/** The queue store of one scene. */
export function indexedDbQueueStore(sceneId: string): QueueStore & { read(): Promise<StoredQueue | null>; clear(): Promise<void> } {
  let db: Promise<IDBDatabase> | null = null;
  const database = () => (db ??= open());
  return {
    async write(snapshot) {
      const tx = (await database()).transaction(STORE, 'readwrite');
      if (countOf(snapshot) === 0) tx.objectStore(STORE).delete(sceneId);
      else tx.objectStore(STORE).put({ sceneId, savedAt: Date.now(), queues: snapshot } satisfies StoredQueue);
      await done(tx);
    },
    async read() {
      const tx = (await database()).transaction(STORE, 'readonly');
      const request = tx.objectStore(STORE).get(sceneId);
      await done(tx);
      const value = request.result as StoredQueue | undefined;
      return value && countOf(value.queues) > 0 ? value : null;
    },
    async clear() {
      const tx = (await database()).transaction(STORE, 'readwrite');
      tx.objectStore(STORE).delete(sceneId);
      await done(tx);
    },
  };
}
