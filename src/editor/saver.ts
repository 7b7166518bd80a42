import { SAVE_RETRY_BASE_MS, SAVE_RETRY_MAX_MS } from '../protocol/editor';
import { causeOf, createServiceClient, path, ServiceError, type Method, type ServiceClient } from '../service/client';
import type { MutationQueues, QueuedEdit, QueueSnapshot } from './mutation-queue';

/**
 * Saving (editor specification sections 4, 5, 7): POST {modelService}/v1/models/{modelId}/apply-mutations
 * with the queued mutations of each model and a bearer token from the token generator. A save
 * emits saving-started, then saving-finished; it does nothing while the editor is disabled or a
 * save is in progress. It sends only the queue, so saving one edit costs the same in a scene of ten
 * nodes or of a million.
 *
 * Where the specification swallows save errors, we keep the work:
 *  - network failures and 5xx answers keep the queue and retry with backoff (1 s, doubling, 30 s at most);
 *  - a 400 or 413 for a batch is split in halves until the refused mutations are found; the others
 *    are saved; the refused ones (and a batch answered 404) leave the queue (retrying cannot help)
 *    and are kept in `rejected` with the reason for the person to see;
 *  - a failure on one model does not stop saving the others (only 401 does);
 *  - 401 (or no token) asks the person to sign in again and keeps the queue;
 *  - 403 says the person may not change the scene and keeps the queue;
 *  - the queue is written to a persistent store (IndexedDB in the browser) at every change, so it
 *    survives a reload or a crash of the tab.
 */

export type SaveStatus = 'saved' | 'unsaved' | 'saving' | 'failed';

export interface SaveState {
  status: SaveStatus;
  /** Why the last save failed (shown in the status bar). */
  reason: string | null;
  /** The person must sign in again (401 or no token). */
  signIn: boolean;
  /** Queued mutations. */
  pending: number;
  /** Mutations the server refused (400), with its reason. */
  rejected: { modelId: string; mutation: QueuedEdit; reason: string }[];
  /** When the next retry runs (ms since epoch), or null. */
  retryAt: number | null;
}

export interface QueueStore {
  write(snapshot: QueueSnapshot): Promise<void>;
}

/** A refused edit in words for the status bar: its type and what it is about. */
export function describeEdit(edit: { readonly type: string; readonly key?: string } & { readonly [id in 'nodeId' | 'materialId' | 'objectId' | 'groupId']?: string }): string {
  if (edit.nodeId !== undefined) return `${edit.type} node ${edit.nodeId}`;
  if (edit.materialId !== undefined) return `${edit.type} material ${edit.materialId}`;
  if (edit.objectId !== undefined) return `${edit.type} object ${edit.objectId}`;
  if (edit.groupId !== undefined) return `${edit.type} group ${edit.groupId}`;
  return `${edit.type} ${edit.key ?? ''}`.trim();
}

/** The queue of scene object changes (not a model id: model ids never start with '@'). */
export const OBJECTS_QUEUE = '@objects';
/** The queue of the scene settings (one entry: the whole settings, sent by PATCH viewer-config). */
export const SETTINGS_QUEUE = '@settings';
/** The queue of instance changes of instanced asset groups (POST instance-changes). */
export const INSTANCES_QUEUE = '@instances';

/** Scene objects are saved before their instances (a new group exists before its first change). */
const SAVE_ORDER = (id: string) => (id === OBJECTS_QUEUE ? 0 : id === INSTANCES_QUEUE ? 1 : 2);

export interface SaverOptions {
  queues: MutationQueues;
  modelService: string;
  /** The scene whose objects and settings the '@objects' and '@settings' queues change. */
  sceneId?: string;
  getToken: () => Promise<string>;
  enabled: () => boolean;
  fetch?: typeof fetch;
  /** The model service's client (else one of modelService, getToken and fetch); the saver retries on its own, so it asks for no retries. */
  service?: ServiceClient;
  store?: QueueStore;
  onState?: (state: SaveState) => void;
  onEvent?: (event: 'saving-started' | 'saving-finished') => void;
  /** Timer functions (fake ones in tests). */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  now?: () => number;
}

export interface Saver {
  readonly state: SaveState;
  /** Saves every queued mutation; resolves when this save ended (at once when it does nothing). */
  save(): Promise<void>;
  readonly saving: boolean;
  dispose(): void;
}

class SaveError extends Error {
  constructor(
    message: string,
    readonly kind: 'retry' | 'refused' | 'too-large' | 'not-found' | 'sign-in' | 'forbidden',
  ) {
    super(message);
  }
}

export function createSaver(options: SaverOptions): Saver {
  const { queues } = options;
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const now = options.now ?? Date.now;
  const state: SaveState = { status: 'saved', reason: null, signIn: false, pending: queues.size, rejected: [], retryAt: null };
  let saving: Promise<void> | null = null;
  let attempt = 0;
  let retryTimer: unknown = null;
  let disposed = false;
  let persisting: Promise<void> = Promise.resolve();

  const publish = () => {
    state.pending = queues.size;
    options.onState?.({ ...state, rejected: [...state.rejected] });
  };

  const persist = () => {
    if (!options.store) return;
    const snapshot = queues.snapshot();
    persisting = persisting.then(() => options.store!.write(snapshot)).catch((error) => {
      console.error('The unsaved edits could not be kept in this browser:', error);
    });
  };

  const offQueue = queues.onChange(() => {
    persist();
    if (!saving && state.status !== 'failed') state.status = queues.size > 0 ? 'unsaved' : 'saved';
    publish();
  });

  const service = options.service ?? createServiceClient({ baseUrl: options.modelService, token: options.getToken, fetch: options.fetch, retries: 0 });

  /** Where a queue's batch goes: a model's mutation log, the scene's objects (one small change per object), its instances, or its (small) settings whole. */
  const route = (modelId: string, batch: QueuedEdit[]): [Method, string, unknown] => {
    const scene = path`/v1/scenes/${options.sceneId ?? ''}`;
    if (modelId === OBJECTS_QUEUE) return ['POST', `${scene}/object-changes`, { changes: batch }];
    if (modelId === INSTANCES_QUEUE) return ['POST', `${scene}/instance-changes`, { changes: batch }];
    if (modelId === SETTINGS_QUEUE) {
      const last = batch[batch.length - 1];
      return ['PATCH', `${scene}/viewer-config`, { scene: last?.type === 'setSettings' ? last.properties : undefined }];
    }
    return ['POST', path`/v1/models/${modelId}/apply-mutations`, { mutations: batch }];
  };

  const send = async (modelId: string, batch: QueuedEdit[]) => {
    const [method, target, body] = route(modelId, batch);
    try {
      await service.request(method, target, { json: body, auth: 'required' });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.kind === 'sign-in') throw new SaveError(`Sign in again to save: ${error.message}`, 'sign-in');
      if (error.kind === 'network') throw new SaveError(`The model service cannot be reached (${causeOf(error)}); retrying.`, 'retry');
      // A 2xx answer that is not JSON: stored all the same.
      if (error.kind === 'invalid') return;
      const { status } = error;
      const detail = error.reason ?? `${status} ${error.statusText}`.trim();
      if (status === 400) throw new SaveError(`The server refused an edit: ${detail}`, 'refused');
      if (status === 401) throw new SaveError(`Sign in again to save: ${detail}`, 'sign-in');
      if (status === 403) throw new SaveError(`You may not change this scene: ${detail}`, 'forbidden');
      if (status === 404) throw new SaveError(`The model service has no such model or scene: ${detail}`, 'not-found');
      if (status === 413) throw new SaveError(`The server refused an edit as too large: ${detail}`, 'too-large');
      // An instance id that exists already (another editor added it): sending again cannot help.
      if (status === 409 && modelId === INSTANCES_QUEUE) throw new SaveError(`The server refused an edit: ${detail}`, 'refused');
      throw new SaveError(`The model service failed (${detail}); retrying.`, 'retry');
    }
  };

  /** Final answers for a batch: retrying it cannot help. */
  const isFinal = (e: SaveError) => e.kind === 'refused' || e.kind === 'too-large' || e.kind === 'not-found';

  /**
   * Sends a batch. The server refuses a batch as a whole for one bad mutation (400) or for its size
   * (413): a batch of more than one is split in halves, in order, until the refused mutations are
   * found; the others are sent. Only those refused for good leave the queue, into `rejected`.
   * Returns the first failure that keeps mutations queued (or the last final one), null if all saved.
   */
  const sendBatch = async (modelId: string, batch: QueuedEdit[]): Promise<SaveError | null> => {
    const uuids = batch.map((m) => m.uuid);
    try {
      await send(modelId, batch);
      queues.remove(modelId, uuids);
      return null;
    } catch (error) {
      const e = error instanceof SaveError ? error : new SaveError(String((error as Error)?.message ?? error), 'retry');
      if ((e.kind === 'refused' || e.kind === 'too-large') && batch.length > 1 && modelId !== SETTINGS_QUEUE) {
        const half = batch.length >> 1;
        const first = await sendBatch(modelId, batch.slice(0, half));
        if (first && !isFinal(first)) {
          // Keep the order: what follows waits for what failed.
          queues.release(batch.slice(half).map((m) => m.uuid));
          return first;
        }
        const second = await sendBatch(modelId, batch.slice(half));
        return second && !isFinal(second) ? second : (second ?? first);
      }
      if (isFinal(e)) {
        for (const mutation of batch) state.rejected.push({ modelId, mutation, reason: e.message });
        queues.remove(modelId, uuids);
      } else {
        queues.release(uuids);
      }
      return e;
    }
  };

  const run = async () => {
    options.onEvent?.('saving-started');
    state.status = 'saving';
    state.reason = null;
    state.signIn = false;
    state.retryAt = null;
    publish();
    // A failure on one model does not stop saving the others; only 401 (sign in again) stops all.
    let failure: SaveError | null = null;
    let retry = false;
    models: for (const modelId of [...queues.models()].sort((a, b) => SAVE_ORDER(a) - SAVE_ORDER(b))) {
      // Instance changes wait for the scene objects: a group whose put is still queued (a failure
      // that will be retried) does not exist on the server yet, and its changes would be refused.
      if (modelId === INSTANCES_QUEUE && queues.snapshot()[OBJECTS_QUEUE]?.length) continue;
      // Batch after batch of this model, until its queue is empty or a batch keeps mutations queued.
      for (;;) {
        const batch = queues.takeBatch(modelId);
        if (batch.length === 0) break;
        const e = await sendBatch(modelId, batch);
        if (!e) continue;
        if (e.kind === 'retry') retry = true;
        if (!failure || (isFinal(failure) && !isFinal(e)) || e.kind === 'sign-in') failure = e;
        if (e.kind === 'sign-in') break models;
        if (!isFinal(e)) break;
      }
    }
    if (failure) {
      state.status = 'failed';
      state.reason = failure.message;
      state.signIn = failure.kind === 'sign-in';
      if (retry && failure.kind !== 'sign-in' && !disposed) {
        const delay = Math.min(SAVE_RETRY_BASE_MS * 2 ** attempt, SAVE_RETRY_MAX_MS);
        attempt++;
        state.retryAt = now() + delay;
        retryTimer = setTimer(() => {
          retryTimer = null;
          void saver.save();
        }, delay);
      }
    } else {
      attempt = 0;
      state.status = queues.size > 0 ? 'unsaved' : 'saved';
    }
    publish();
    options.onEvent?.('saving-finished');
  };

  const saver: Saver = {
    get state() {
      return state;
    },
    get saving() {
      return saving !== null;
    },
    save() {
      if (disposed || !options.enabled() || saving) return saving ?? Promise.resolve();
      if (retryTimer !== null) {
        clearTimer(retryTimer);
        retryTimer = null;
      }
      if (queues.size === 0) {
        if (state.status !== 'failed' || state.rejected.length === 0) state.status = 'saved';
        publish();
        return Promise.resolve();
      }
      saving = run().finally(() => {
        saving = null;
      });
      return saving;
    },
    dispose() {
      disposed = true;
      offQueue();
      if (retryTimer !== null) clearTimer(retryTimer);
    },
  };
  publish();
  return saver;
}
