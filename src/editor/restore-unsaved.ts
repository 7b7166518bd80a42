import { modelById } from '../engine/stable-ids';
import type { ViewerWorld } from '../engine/world';
import type { InstanceChange } from '../protocol/instance-changes';
import type { SceneObjectChange } from '../protocol/scene-objects';
import { applyMutations } from '../scene/apply-mutations';
import { loadUploadedTextures, uploadedTextureIds, type DecodeImage } from '../scene/uploaded-textures';
import type { SceneObjects } from '../viewer/scene-objects';
import { replayInstanceChange } from './instance-editing';
import { recordOf } from './model-edits';
import type { MutationQueues, QueueSnapshot } from './mutation-queue';
import { countOf, type StoredQueue } from './persist';
import type { QueueStore } from './saver';
import { INSTANCES_QUEUE, OBJECTS_QUEUE, SETTINGS_QUEUE } from './saver';

/** The earlier visit's queues first, then the current ones. */
export function mergeSnapshots(a: QueueSnapshot, b: QueueSnapshot): QueueSnapshot {
  const out: QueueSnapshot = {};
  for (const [id, list] of Object.entries(a)) out[id] = [...list];
  for (const [id, list] of Object.entries(b)) out[id] = [...(out[id] ?? []), ...list];
  return out;
}

/** The models whose unsaved edits name uploaded textures they have not loaded yet, with those edits. */
export function texturesToLoad(world: ViewerWorld, snapshot: QueueSnapshot): [string, QueueSnapshot[string]][] {
  return Object.entries(snapshot).filter(([modelId, list]) => {
    const record = modelById(world, modelId);
    return record && uploadedTextureIds(list).some((id) => !record.textures.has(id));
  });
}

export interface RestoreTarget {
  world: ViewerWorld;
  queues: MutationQueues;
  objects: SceneObjects;
  notice(text: string): void;
  /** The last unsaved scene settings. */
  restoreSettings(properties: Record<string, unknown>): void;
}

/**
 * Unsaved edits of an earlier visit, queued and shown: edits of models the scene no longer has are
 * told and dropped; the old edits go before what the person edited since, one never replaces a
 * newer edit of the same key, and only those queued are shown.
 */
export function restoreUnsaved(target: RestoreTarget, left: QueueSnapshot): void {
  const { world, objects } = target;
  const known: QueueSnapshot = {};
  for (const [modelId, list] of Object.entries(left)) {
    if (modelId !== SETTINGS_QUEUE && modelId !== OBJECTS_QUEUE && modelId !== INSTANCES_QUEUE && !modelById(world, modelId)) {
      target.notice(`${list.length} unsaved edit(s) of model '${modelId}' were dropped: the scene no longer has that model.`);
      continue;
    }
    // The settings queue holds the whole settings: the last one is enough.
    known[modelId] = modelId === SETTINGS_QUEUE ? list.slice(-1) : list;
  }
  const restored = target.queues.restore(known);
  for (const [modelId, list] of Object.entries(restored)) {
    if (modelId === SETTINGS_QUEUE) {
      const last = list[list.length - 1] as unknown as { properties: Record<string, unknown> };
      target.restoreSettings(last.properties);
      continue;
    }
    if (modelId === OBJECTS_QUEUE) {
      for (const change of list as unknown as SceneObjectChange[]) {
        if (change.type === 'putObject') objects.put(change.object);
        else objects.remove(change.objectId);
      }
      continue;
    }
    if (modelId === INSTANCES_QUEUE) {
      for (const change of list as unknown as InstanceChange[]) {
        try {
          replayInstanceChange(world, change);
        } catch (error) {
          target.notice(`An unsaved change of instances could not be shown (${(error as Error).message}); it stays queued and is sent on Save.`);
        }
      }
      continue;
    }
    const { problems } = applyMutations(world, recordOf(world, modelId), list);
    for (const text of problems) target.notice(text);
  }
}

export interface UnsavedOptions extends RestoreTarget {
  /** A queue left by an earlier visit (offered back when it holds edits). */
  restorable?: StoredQueue | null;
  /** Where the unsaved queue is kept. */
  store?: QueueStore;
  /** Where uploaded textures the edits name are loaded from. */
  modelService: string;
  decodeImage?: DecodeImage;
  /** The restored edits are shown: the outliner and the panels re-read. */
  restored(): void;
}

export interface Unsaved {
  /** The store the saver writes: with the earlier visit's edits first until the person answers. */
  readonly store: QueueStore | undefined;
  /** The count and date of the earlier visit's edits, or null. */
  readonly offered: { count: number; savedAt: number } | null;
  /** Restores them (after loading the uploaded textures they name, once). */
  restore(): void;
  /** Drops them (the store keeps only the current queue). */
  discard(): void;
}

/** The unsaved edits of an earlier visit: offered back, restored or discarded. */
export function createUnsaved(options: UnsavedOptions): Unsaved {
  const { world, queues } = options;
  let restorable = options.restorable && countOf(options.restorable.queues) > 0 ? options.restorable : null;
  /** restore loaded the uploaded textures the queue names (or tried): once. */
  let texturesTried = false;
  const store: QueueStore | undefined = options.store && {
    write: (snapshot) => options.store!.write(restorable ? mergeSnapshots(restorable.queues, snapshot) : snapshot),
  };
  const unsaved: Unsaved = {
    store,
    get offered() {
      return restorable ? { count: countOf(restorable.queues), savedAt: restorable.savedAt } : null;
    },
    restore() {
      if (!restorable) return;
      // Unsaved maps naming uploaded textures not loaded yet: load them, then restore.
      const pending = texturesTried ? [] : texturesToLoad(world, restorable.queues);
      if (pending.length > 0) {
        texturesTried = true;
        const queued = restorable;
        restorable = null;
        const loads = pending.map(([modelId, list]) =>
          loadUploadedTextures(options.modelService, recordOf(world, modelId), list, { decode: options.decodeImage }),
        );
        void Promise.all(loads).then((problems) => {
          for (const text of problems.flat()) options.notice(text);
          restorable = queued;
          unsaved.restore();
        });
        return;
      }
      const left = restorable.queues;
      restorable = null;
      restoreUnsaved(options, left);
      options.restored();
    },
    discard() {
      if (!restorable) return;
      restorable = null;
      void store?.write(queues.snapshot());
    },
  };
  return unsaved;
}
