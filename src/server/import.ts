import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { ModelDoc, SceneDoc } from '../protocol/scene.ts';
import type { OptimizationSummary, ValidationReport } from '../protocol/upload.ts';
import { CONFIG_DEFAULTS } from './config.ts';
import { isValidId, newId, type Store } from './store.ts';
import { ImportError, tooLarge } from './upload/errors.ts';
import type { ProcessedModel } from './upload/process.ts';

export { ImportError, type ImportErrorCode } from './upload/errors.ts';

/**
 * Adds a glTF model to the store: the file is turned into a container (src/server/upload/process.ts:
 * checked, for a .gltf packed into one GLB, with `optimize` validated by Khronos's glTF-Validator
 * and optimised), the container is written to the derivative store under a new version key,
 * described by a Model document, and listed in a scene (`addModel`).
 */

export type ImportInput =
  | { path: string }
  | {
      bytes: Uint8Array;
      fileName: string;
      /** Files a .gltf refers to (its .bin and images), by the uri written in the glTF. */
      resources?: Record<string, Uint8Array>;
    };

/** Where a model goes: `addModel`'s options. */
export interface AddModelOptions {
  /** The scene to create or extend; a new random id when absent. */
  sceneId?: string;
  /** The scene's name: set on a new scene (default: the file name without extension) and
   *  renames an existing one when given. */
  name?: string;
  /** The owner (user id) of a scene created by this import. */
  ownerId?: string;
  /**
   * Called with the existing scene inside the store's transaction that extends it: throwing refuses
   * the change (the uploads' permission check, made again on the scene as it is written).
   */
  authorize?: (scene: SceneDoc) => void;
}

export interface ImportOptions extends AddModelOptions {
  /** Largest accepted asset, with all its external files (default CONFIG_DEFAULTS.MAX_ASSET_BYTES). */
  maxBytes?: number;
  /** Recorded as the container's `generator`. */
  generator?: string;
  /**
   * Validate with glTF-Validator and optimise (default false: the GLB is stored byte for byte,
   * which tests comparing the stored model with the file rely on; the CLI passes true).
   */
  optimize?: boolean;
  /** With `optimize`: sibling nodes sharing a mesh are instanced from this many on (default 5). */
  minInstances?: number;
}

export interface ImportResult {
  scene: SceneDoc;
  model: ModelDoc;
  /** With `optimize`: the validator's report on the file as given. */
  validation?: ValidationReport;
  /** With `optimize`: what the optimisation did. */
  optimization?: OptimizationSummary;
}

export const IMPORT_GENERATOR = 'parametricos import';

function sceneNameFromFile(fileName: string): string {
  return fileName.replace(/\.(glb|gltf)$/i, '') || fileName;
}

function checkSceneId(sceneId: string | undefined): void {
  if (sceneId !== undefined && !isValidId(sceneId)) {
    throw new ImportError('BAD_OPTION', `Invalid scene id '${sceneId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  }
}

/**
 * Stores a processed model: its container under a new version key `{modelId}/{versionId}`, its
 * Model document, and the scene `options.sceneId` (or a new one) created or extended with it.
 */
export async function addModel(store: Store, fileName: string, processed: ProcessedModel, options: AddModelOptions = {}): Promise<ImportResult> {
  checkSceneId(options.sceneId);
  const modelId = newId();
  const versionKey = `${modelId}/${newId()}`;
  await store.writeDerivative(versionKey, processed.container);
  const model = await store.putModel({
    _id: modelId,
    latestVersionKey: versionKey,
    outputFormat: 'glb',
    sourceFileName: fileName,
  });

  const sceneId = options.sceneId ?? newId();
  // Extending a scene is one atomic read-modify-write in the store, so that concurrent imports
  // into the same scene (or an edit of it) lose no model.
  const extended = await store.updateScene(sceneId, (existing) => {
    options.authorize?.(existing);
    return { ...existing, name: options.name ?? existing.name, models: [...existing.models, model] };
  });
  const scene =
    extended ??
    (await store.putScene({
      _id: sceneId,
      name: options.name ?? sceneNameFromFile(fileName),
      viewerConfig: {},
      models: [model],
      ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    }));
  const { validation, optimization } = processed;
  return { scene, model, ...(validation ? { validation } : {}), ...(optimization ? { optimization } : {}) };
}

/**
 * Imports one model file in this thread (the CLI, the demo scenes, tests): processes it and adds
 * it with `addModel`. Throws ImportError for a file that cannot be used and StoreError for a bad id.
 */
export async function importModel(store: Store, input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  checkSceneId(options.sceneId);
  const maxBytes = options.maxBytes ?? CONFIG_DEFAULTS.MAX_ASSET_BYTES;

  let file: { fileName: string; bytes: Uint8Array; dir?: string; resources?: Record<string, Uint8Array> };
  if ('path' in input) {
    const path = resolve(input.path);
    const fileName = basename(path);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch (error) {
      throw new ImportError('MISSING_RESOURCE', `Cannot read ${input.path}: ${(error as Error).message}`);
    }
    if (size > maxBytes) throw tooLarge(fileName, maxBytes);
    file = { fileName, bytes: await readFile(path), dir: dirname(path) };
  } else {
    file = { fileName: basename(input.fileName.replace(/\\/g, '/')) || 'model', bytes: input.bytes, resources: input.resources };
  }

  // The pipeline (validator, gltf-transform, encoders) loads with the first import, not with this
  // module: the routes and the upload pool, which hand processing to worker threads, use addModel
  // and ImportError without loading it.
  const { processModel } = await import('./upload/process.ts');
  const processed = await processModel(file, {
    maxBytes,
    optimize: options.optimize ?? false,
    minInstances: options.minInstances,
    generator: options.generator ?? IMPORT_GENERATOR,
  });
  return addModel(store, file.fileName, processed, options);
}
