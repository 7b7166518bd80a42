import { randomBytes } from 'node:crypto';
import { Mutation as MutationSchema, type LoggedMutation, type Mutation, type SavedMutation } from '../../protocol/mutation.ts';
import { ModelDoc, SceneDoc, VersionKey } from '../../protocol/scene.ts';
import type { CommentStore } from './comments.ts';
import type { TextureExtension } from '../../protocol/textures.ts';
import { hasPrototypeKeys, removePrototypeKeys } from './prototype-keys.ts';

/**
 * What every storage adapter (SQLite, PostgreSQL) offers: scene and model documents, the saved
 * mutation log of each model, and the files (derivative containers, thumbnails, uploaded textures) that live on disk
 * under DATA_DIR whatever the database. Documents are checked against the zod schemas of
 * src/protocol on the way in and on the way out.
 */
export interface Store extends CommentStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the data is, for logs: a path, or host/database (never a password). */
  readonly location: string;

  /** Every scene, ordered by id. */
  listScenes(): Promise<SceneDoc[]>;
  /** The scene, or undefined when there is none with this id. Throws StoreError for a bad id. */
  getScene(id: string): Promise<SceneDoc | undefined>;
  /**
   * Creates or replaces the scene `doc._id`. Its models are linked by id, in order: a model the
   * store does not have yet is created from the listed document, an existing one keeps its stored
   * document (putModel changes models). Returns the scene as stored.
   */
  putScene(doc: SceneDoc): Promise<SceneDoc>;
  /** A new scene with a new id (or `input._id`; StoreError CONFLICT if it exists). */
  createScene(input: NewScene): Promise<SceneDoc>;
  /**
   * Reads, changes and writes one scene in one transaction (concurrent changes of the same scene
   * happen one after the other, none is lost). `change` must not change `_id`. Undefined when
   * there is no such scene.
   */
  updateScene(id: string, change: (scene: SceneDoc) => SceneDoc): Promise<SceneDoc | undefined>;
  /** Replaces the parts of viewerConfig that `patch` has (scene, postprocessing, uiConfig). */
  updateViewerConfig(id: string, patch: SceneDoc['viewerConfig']): Promise<SceneDoc | undefined>;
  /** Sets (or with null removes) the scene's thumbnail URL. */
  setThumbnail(id: string, url: string | null): Promise<SceneDoc | undefined>;
  /** Adds a model at the end of a scene's list (the model is created when new), atomically. */
  appendModel(sceneId: string, model: ModelDoc): Promise<SceneDoc | undefined>;
  /** The scenes that list this model. */
  scenesWithModel(modelId: string): Promise<SceneDoc[]>;
  /**
   * The scenes that list a model whose latestVersionKey is this one: every model document on the
   * container, duplicates' copies included (the derivative CDN's question: is it any public
   * scene's?). Throws StoreError for a bad key.
   */
  scenesWithVersion(versionKey: string): Promise<SceneDoc[]>;

  getModel(id: string): Promise<ModelDoc | undefined>;
  /** Creates or replaces a model document (its mutation log stays). */
  putModel(doc: ModelDoc): Promise<ModelDoc>;

  /**
   * Appends a batch of validated mutations to a model's log in one transaction, in order.
   * Idempotent by uuid: a mutation whose uuid the model's log already has is not stored again and
   * gets its original seq, so a repeated batch changes nothing and gets the same answer. A uuid
   * that was saved with different content is a StoreError CONFLICT and nothing of the batch is
   * stored. Undefined when there is no such model. The mutations are checked against the Mutation
   * schema (StoreError BAD_DOCUMENT) unless `validated` says the caller parsed them with it.
   */
  applyMutations(modelId: string, mutations: Mutation[], meta?: { userId?: string | null; validated?: boolean }): Promise<SavedMutation[] | undefined>;
  /** A model's saved log in order (seq > `after`, at most `limit`), with the model's last seq. */
  listMutations(modelId: string, options?: { after?: number; limit?: number }): Promise<MutationLog | undefined>;

  /** Where the container of this version lives (a local file path). */
  derivativePath(versionKey: string): string;
  /** Stores the container of a version (`{versionKey}/model_file.binz`), atomically. */
  writeDerivative(versionKey: string, bytes: Uint8Array): Promise<void>;
  /** Where a stored thumbnail lives (`key` as returned by writeThumbnail). */
  thumbnailPath(key: string): string;
  /** Stores a scene thumbnail image; returns its key `{sceneId}/{hash}.{ext}`. */
  writeThumbnail(sceneId: string, bytes: Uint8Array, ext: ThumbnailExtension): Promise<string>;
  /** Stores an uploaded texture of a model (content-addressed); returns its textureId `u-{24 hex}`. */
  writeTexture(modelId: string, bytes: Uint8Array, ext: TextureExtension): Promise<string>;
  /** The file and content type of an uploaded texture, or undefined when there is none. */
  findTexture(modelId: string, textureId: string): Promise<{ file: string; contentType: string } | undefined>;

  /**
   * Instanced asset groups (src/server/instances.ts builds on these): a group's record (its
   * revision and its base set as of base_revision), the changes logged after a revision, and an
   * optimistic commit: it writes only if the group's revision is still `expected` (null: the group
   * must not exist yet) and answers false otherwise, so the caller reads again and retries.
   * `base` replaces the base set.
   */
  getInstanceGroup(sceneId: string, groupId: string): Promise<InstanceGroupRecord | undefined>;
  /** The record without its base set (one small row: what a cached reader checks first). */
  instanceGroupRevision(sceneId: string, groupId: string): Promise<Omit<InstanceGroupRecord, 'base'> | undefined>;
  listInstanceChanges(sceneId: string, groupId: string, afterRevision: number): Promise<InstanceLogRow[]>;
  /** The revisions and groups of the changes with these uuids the scene has logged. */
  knownInstanceChanges(sceneId: string, uuids: readonly string[]): Promise<Map<string, { groupId: string; revision: number; body: string }>>;
  commitInstances(sceneId: string, groupId: string, expected: number | null, commit: InstanceCommit): Promise<boolean>;
  deleteInstanceGroup(sceneId: string, groupId: string): Promise<void>;

  /** Closes the database (files stay). */
  close(): Promise<void>;
}

/**
 * Changes kept in a group's log behind its base set, so a request repeated after the base moved on
 * is still recognised by its uuid (and skipped) rather than applied twice.
 */
export const INSTANCE_LOG_KEPT = 10_000;

export interface InstanceGroupRecord {
  revision: number;
  baseRevision: number;
  /** An encoded instance set (src/protocol/instances.ts) as of baseRevision. */
  base: Uint8Array;
}

export interface InstanceLogRow {
  revision: number;
  uuid: string;
  /** The change as validated, JSON. */
  body: string;
}

export interface InstanceCommit {
  /** The group's revision after the commit. */
  revision: number;
  /** Changes to log, revisions in order, each above `expected`. */
  rows: readonly InstanceLogRow[];
  /** A new base set (as of `base.revision`); the log up to INSTANCE_LOG_KEPT before it is dropped. */
  base?: { revision: number; bytes: Uint8Array };
  userId?: string | null;
}

export interface NewScene {
  _id?: string;
  name: string;
  ownerId?: string;
  editors?: string[];
  public?: boolean;
  viewerConfig?: SceneDoc['viewerConfig'];
  thumbnailUrl?: string | null;
}

export interface MutationLog {
  lastSeq: number;
  mutations: LoggedMutation[];
}

export const THUMBNAIL_EXTENSIONS = ['png', 'jpg', 'webp'] as const;
export type ThumbnailExtension = (typeof THUMBNAIL_EXTENSIONS)[number];

/** The file name of a model version's container below the derivative CDN (viewer spec section 7). */
export const DERIVATIVE_FILE_NAME = 'model_file.binz';

/** Ids of scenes and models: url-safe, no dots, no slashes, so never a path outside the store. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export function isValidVersionKey(key: string): boolean {
  return VersionKey.safeParse(key).success;
}

const THUMBNAIL_KEY = /^[A-Za-z0-9_-]{1,64}\/[0-9a-f]{16,64}\.(png|jpg|webp)$/;

export function isValidThumbnailKey(key: string): boolean {
  return THUMBNAIL_KEY.test(key);
}

/** A short random url-safe id (12 characters, 72 bits). */
export function newId(): string {
  return randomBytes(9).toString('base64url');
}

export type StoreErrorCode = 'BAD_ID' | 'BAD_DOCUMENT' | 'CORRUPT' | 'CONFLICT';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}

export function assertId(kind: string, id: string): void {
  if (!isValidId(id)) {
    throw new StoreError('BAD_ID', `Invalid ${kind} id '${id}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  }
}

export function assertVersionKey(key: string): void {
  if (!isValidVersionKey(key)) {
    throw new StoreError('BAD_ID', `Invalid version key '${key}': use path segments of A-Z a-z 0-9 _ -`);
  }
}

export function describeIssues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** The scene document as a row stores it: everything but the models, which are linked. */
export type SceneRow = Omit<SceneDoc, 'models'>;

/** Checks a scene on the way in; returns the row part and the models. */
export function checkScene(doc: SceneDoc): { row: SceneRow; models: ModelDoc[] } {
  // Whatever wrote it (a route, a script, an import): no document is stored with a prototype key.
  if (hasPrototypeKeys(doc)) throw new StoreError('BAD_DOCUMENT', 'Invalid scene: it has a "__proto__" or "constructor.prototype" key');
  const result = SceneDoc.safeParse(doc);
  if (!result.success) throw new StoreError('BAD_DOCUMENT', `Invalid scene: ${describeIssues(result.error)}`);
  assertId('scene', result.data._id);
  for (const model of result.data.models) assertId('model', model._id);
  const { models, ...row } = result.data;
  return { row, models: models.map(storedModel) };
}

export function checkModel(doc: ModelDoc): ModelDoc {
  const result = ModelDoc.safeParse(doc);
  if (!result.success) throw new StoreError('BAD_DOCUMENT', `Invalid model: ${describeIssues(result.error)}`);
  assertId('model', result.data._id);
  return storedModel(result.data);
}

/** A model as stored: a signed derivative query belongs to one answer (src/server/auth/derivative-urls.ts), never to the document. */
function storedModel(model: ModelDoc): ModelDoc {
  if (model.derivativeQuery === undefined) return model;
  const { derivativeQuery: _answerOnly, ...stored } = model;
  return stored;
}

/** Checks a scene on the way out (`where` names the row in the message). */
export function readScene(where: string, row: unknown, models: unknown[]): SceneDoc {
  const json = typeof row === 'string' ? parseJson(where, row) : row;
  // A document stored before such keys were refused (issue 33, item 2) is served without them;
  // removeStoredPrototypeKeys writes it back clean on start.
  const scrubbed = removePrototypeKeys(json);
  const result = SceneDoc.safeParse({ ...(json as object), models: models.map((m, i) => (typeof m === 'string' ? parseJson(`${where} model ${i}`, m) : m)) });
  if (!result.success) throw new StoreError('CORRUPT', `${where} is not a valid scene: ${describeIssues(result.error)}`);
  if (scrubbed) scrubbedScenes.add(result.data);
  return result.data;
}

/** Scenes read whose stored form had prototype keys (removed from what was read). */
const scrubbedScenes = new WeakSet<SceneDoc>();

/**
 * Writes back, without their prototype keys, the stored scenes that still have some (stored before
 * such keys were refused); the ids of those rewritten. Scenes are the only stored documents with
 * free-form parts (viewerConfig.scene and postprocessing): mutations, comments and instances keep
 * only their schemas' listed keys.
 */
export async function removeStoredPrototypeKeys(store: Pick<Store, 'listScenes' | 'updateScene'>): Promise<string[]> {
  const fixed: string[] = [];
  for (const scene of await store.listScenes()) {
    if (!scrubbedScenes.has(scene)) continue;
    // Read again and written in one change, so a scene another process changed meanwhile keeps that change.
    await store.updateScene(scene._id, (current) => current);
    fixed.push(scene._id);
  }
  return fixed;
}

export function readModel(where: string, doc: unknown): ModelDoc {
  const json = typeof doc === 'string' ? parseJson(where, doc) : doc;
  const result = ModelDoc.safeParse(json);
  if (!result.success) throw new StoreError('CORRUPT', `${where} is not a valid model: ${describeIssues(result.error)}`);
  return result.data;
}

function parseJson(where: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreError('CORRUPT', `${where} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The scene a NewScene describes. */
export function sceneFromInput(input: NewScene): SceneDoc {
  const doc: SceneDoc = {
    _id: input._id ?? newId(),
    name: input.name,
    viewerConfig: input.viewerConfig ?? {},
    models: [],
  };
  if (input.thumbnailUrl !== undefined) doc.thumbnailUrl = input.thumbnailUrl;
  if (input.ownerId !== undefined) doc.ownerId = input.ownerId;
  if (input.editors !== undefined) doc.editors = input.editors;
  if (input.public !== undefined) doc.public = input.public;
  return doc;
}

/** viewerConfig with the parts of `patch` replaced. */
export function patchViewerConfig(scene: SceneDoc, patch: SceneDoc['viewerConfig']): SceneDoc {
  const viewerConfig = { ...scene.viewerConfig };
  if (patch.scene !== undefined) viewerConfig.scene = patch.scene;
  if (patch.postprocessing !== undefined) viewerConfig.postprocessing = patch.postprocessing;
  if (patch.uiConfig !== undefined) viewerConfig.uiConfig = patch.uiConfig;
  return { ...scene, viewerConfig };
}

/** The helpers every adapter builds on its updateScene. */
export function sceneHelpers(store: Pick<Store, 'updateScene'>): Pick<Store, 'updateViewerConfig' | 'setThumbnail' | 'appendModel'> {
  return {
    updateViewerConfig: (id, patch) => store.updateScene(id, (scene) => patchViewerConfig(scene, patch)),
    setThumbnail: (id, url) =>
      store.updateScene(id, (scene) => {
        const next = { ...scene };
        if (url === null) delete next.thumbnailUrl;
        else next.thumbnailUrl = url;
        return next;
      }),
    appendModel: (sceneId, model) => {
      const checked = checkModel(model);
      return store.updateScene(sceneId, (scene) => ({ ...scene, models: [...scene.models, checked] }));
    },
  };
}

/** Mutations as the Mutation schema outputs them (unknown properties dropped), or BAD_DOCUMENT. */
export function checkMutations(mutations: Mutation[], validated = false): Mutation[] {
  if (validated) return mutations;
  const parsed = MutationSchema.array().safeParse(mutations);
  if (!parsed.success) throw new StoreError('BAD_DOCUMENT', `Invalid mutations: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export function checkChangedScene(id: string, changed: SceneDoc): ReturnType<typeof checkScene> {
  const checked = checkScene(changed);
  if (checked.row._id !== id) throw new StoreError('BAD_DOCUMENT', `A scene update must not change the id ('${id}' -> '${checked.row._id}')`);
  return checked;
}
