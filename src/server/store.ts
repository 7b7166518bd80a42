import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ModelDoc, SceneDoc, VersionKey } from '../protocol/scene.ts';

/**
 * Storage of scene and model documents and of derivative containers. The interface is small on
 * purpose: the file implementation below serves `npm start` today; the full model service puts
 * SQLite/PostgreSQL documents and a CDN bucket behind the same calls.
 */
export interface Store {
  /** Every scene, ordered by id. */
  listScenes(): Promise<SceneDoc[]>;
  /** The scene, or undefined when there is none with this id. Throws StoreError for a bad id. */
  getScene(id: string): Promise<SceneDoc | undefined>;
  /** Creates or replaces the scene `doc._id`. */
  putScene(doc: SceneDoc): Promise<SceneDoc>;
  getModel(id: string): Promise<ModelDoc | undefined>;
  putModel(doc: ModelDoc): Promise<ModelDoc>;
  /** Where the container of this version lives (a local file path for the file store). */
  derivativePath(versionKey: string): string;
  /** Stores the container of a version (`{versionKey}/model_file.binz`). */
  writeDerivative(versionKey: string, bytes: Uint8Array): Promise<void>;
}

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

/** A short random url-safe id (12 characters, 72 bits). */
export function newId(): string {
  return randomBytes(9).toString('base64url');
}

export type StoreErrorCode = 'BAD_ID' | 'BAD_DOCUMENT' | 'CORRUPT';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}

function assertId(kind: string, id: string): void {
  if (!isValidId(id)) {
    throw new StoreError('BAD_ID', `Invalid ${kind} id '${id}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  }
}

function assertVersionKey(key: string): void {
  if (!isValidVersionKey(key)) {
    throw new StoreError('BAD_ID', `Invalid version key '${key}': use path segments of A-Z a-z 0-9 _ -`);
  }
}

function describeIssues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Writes through a temporary file in the same folder and renames it, so readers never see half a file. */
async function writeAtomic(file: string, data: Uint8Array | string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function readJson(file: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreError('CORRUPT', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The file store: `{dataDir}/scenes/{id}.json`, `{dataDir}/models/{id}.json`,
 * `{dataDir}/derivatives/{versionKey}/model_file.binz`. Documents are checked against the zod
 * schemas on the way in and on the way out. Several processes may write (the server and the import
 * CLI); each write is atomic, the last writer of a document wins.
 */
export async function openFileStore(dataDir: string): Promise<Store> {
  const root = resolve(dataDir);
  const scenesDir = join(root, 'scenes');
  const modelsDir = join(root, 'models');
  const derivativesDir = join(root, 'derivatives');
  await Promise.all([scenesDir, modelsDir, derivativesDir].map((dir) => mkdir(dir, { recursive: true })));

  async function readScene(file: string): Promise<SceneDoc | undefined> {
    const json = await readJson(file);
    if (json === undefined) return undefined;
    const result = SceneDoc.safeParse(json);
    if (!result.success) throw new StoreError('CORRUPT', `${file} is not a valid scene: ${describeIssues(result.error)}`);
    return result.data;
  }

  function derivativePath(versionKey: string): string {
    assertVersionKey(versionKey);
    const file = join(derivativesDir, ...versionKey.split('/'), DERIVATIVE_FILE_NAME);
    // The key pattern already excludes '.' segments; this keeps the guarantee local.
    if (!file.startsWith(derivativesDir + sep)) throw new StoreError('BAD_ID', `Invalid version key '${versionKey}'`);
    return file;
  }

  return {
    async listScenes() {
      const names = (await readdir(scenesDir)).filter((name) => name.endsWith('.json'));
      const ids = names.map((name) => name.slice(0, -'.json'.length)).filter(isValidId).sort();
      const scenes = await Promise.all(ids.map((id) => readScene(join(scenesDir, `${id}.json`))));
      return scenes.filter((scene): scene is SceneDoc => scene !== undefined);
    },

    async getScene(id) {
      assertId('scene', id);
      return readScene(join(scenesDir, `${id}.json`));
    },

    async putScene(doc) {
      const result = SceneDoc.safeParse(doc);
      if (!result.success) throw new StoreError('BAD_DOCUMENT', `Invalid scene: ${describeIssues(result.error)}`);
      assertId('scene', result.data._id);
      await writeAtomic(join(scenesDir, `${result.data._id}.json`), `${JSON.stringify(result.data, null, 2)}\n`);
      return result.data;
    },

    async getModel(id) {
      assertId('model', id);
      const file = join(modelsDir, `${id}.json`);
      const json = await readJson(file);
      if (json === undefined) return undefined;
      const result = ModelDoc.safeParse(json);
      if (!result.success) throw new StoreError('CORRUPT', `${file} is not a valid model: ${describeIssues(result.error)}`);
      return result.data;
    },

    async putModel(doc) {
      const result = ModelDoc.safeParse(doc);
      if (!result.success) throw new StoreError('BAD_DOCUMENT', `Invalid model: ${describeIssues(result.error)}`);
      assertId('model', result.data._id);
      await writeAtomic(join(modelsDir, `${result.data._id}.json`), `${JSON.stringify(result.data, null, 2)}\n`);
      return result.data;
    },

    derivativePath,

    async writeDerivative(versionKey, bytes) {
      const file = derivativePath(versionKey);
      await mkdir(resolve(file, '..'), { recursive: true });
      await writeAtomic(file, bytes);
    },
  };
}
