import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Logger, NodeIO } from '@gltf-transform/core';
import type { JSONDocument } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { unpartition } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import type { ModelDoc, SceneDoc } from '../protocol/scene.ts';
import type { OptimizationSummary, ValidationReport } from '../protocol/upload.ts';
import { detectAssetFormat, encodeContainer } from '../protocol/container-codec.ts';
import { ModelFormatError, checkGlb } from '../protocol/glb.ts';
import { CONFIG_DEFAULTS } from './config.ts';
import { OptimizeError, describeRefusal, loadDraco, optimizeModel, refuses, validateModel } from './optimize.ts';
import { isValidId, newId, type Store } from './store.ts';

/**
 * Adds a glTF model to the store: the asset is checked, packed into a container (DESIGN.md 4.1),
 * written to the derivative store under a new version key, described by a Model document, and
 * listed in a scene. Without `optimize`, a `.glb` is stored byte for byte and a `.gltf` (external
 * files next to it, uploaded with it, or embedded data URIs) is packed into one GLB first. With
 * `optimize` (the CLI and uploads), the file is first checked by Khronos's glTF-Validator (errors
 * refuse it, with the validator's report on the ImportError) and the GLB is optimised
 * (src/server/optimize.ts) before it is packed into the container.
 */

export type ImportInput =
  | { path: string }
  | {
      bytes: Uint8Array;
      fileName: string;
      /** Files a .gltf refers to (its .bin and images), by the uri written in the glTF. */
      resources?: Record<string, Uint8Array>;
    };

export interface ImportOptions {
  /** The scene to create or extend; a new random id when absent. */
  sceneId?: string;
  /** The scene's name: set on a new scene (default: the file name without extension) and
   *  renames an existing one when given. */
  name?: string;
  /** Largest accepted asset, with all its external files (default CONFIG_DEFAULTS.MAX_ASSET_BYTES). */
  maxBytes?: number;
  /** Recorded as the container's `generator`. */
  generator?: string;
  /**
   * Validate with glTF-Validator and optimise (default false: the GLB is stored byte for byte,
   * which tests comparing the stored model with the file rely on; the CLI and uploads pass true).
   */
  optimize?: boolean;
  /** With `optimize`: sibling nodes sharing a mesh are instanced from this many on (default 5). */
  minInstances?: number;
  /** The owner (user id) of a scene created by this import. */
  ownerId?: string;
}

export interface ImportResult {
  scene: SceneDoc;
  model: ModelDoc;
  /** With `optimize`: the validator's report on the file as given. */
  validation?: ValidationReport;
  /** With `optimize`: what the optimisation did. */
  optimization?: OptimizationSummary;
}

export type ImportErrorCode = 'UNKNOWN_FORMAT' | 'INVALID_GLTF' | 'MISSING_RESOURCE' | 'TOO_LARGE' | 'BAD_OPTION' | 'OPTIMIZE_FAILED';

/** A file that cannot be imported; the message says why in words a person can act on. */
export class ImportError extends Error {
  readonly code: ImportErrorCode;
  /** The glTF-Validator's report, when the file was refused for what the validator found. */
  readonly report?: ValidationReport;
  constructor(code: ImportErrorCode, message: string, report?: ValidationReport) {
    super(message);
    this.name = 'ImportError';
    this.code = code;
    if (report) this.report = report;
  }
}

export const IMPORT_GENERATOR = 'parametricos import';

type GltfJson = JSONDocument['json'];

function invalid(fileName: string, reason: string): ImportError {
  return new ImportError('INVALID_GLTF', `${fileName}: ${reason}`);
}

function parseGltfJson(fileName: string, bytes: Uint8Array): GltfJson {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw invalid(fileName, 'The glTF JSON starts with a byte order mark, which glTF forbids.');
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw invalid(fileName, `The glTF JSON cannot be parsed: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalid(fileName, 'The glTF JSON is not an object.');
  const asset = (json as { asset?: { version?: unknown } }).asset;
  if (typeof asset !== 'object' || asset === null || asset.version === undefined) throw invalid(fileName, 'The glTF asset has no asset.version.');
  if (typeof asset.version !== 'string' || !/^2\.\d+$/.test(asset.version)) {
    throw invalid(fileName, `The glTF asset version is ${String(asset.version)}; only glTF 2.x is supported.`);
  }
  return json as GltfJson;
}

const DATA_URI = /^data:([^,;]*)((?:;[^,;=]+=[^,;]*)*)(;base64)?,(.*)$/s;

/** The bytes of a data URI, or undefined when it is not a well-formed one. */
function decodeDataUri(uri: string): Uint8Array | undefined {
  const match = DATA_URI.exec(uri);
  if (!match) return undefined;
  const [, , , base64, payload] = match;
  if (base64) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload.replace(/\s+/g, ''))) return undefined;
    return Uint8Array.from(Buffer.from(payload, 'base64'));
  }
  try {
    return Uint8Array.from(Buffer.from(decodeURIComponent(payload), 'latin1'));
  } catch {
    return undefined;
  }
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:/i;

interface Resource {
  uri?: string;
  byteLength?: number;
}

/**
 * The viewer's own structural check (header, chunks, buffers: src/protocol/glb.ts), so the server
 * stores exactly what the viewer accepts; plus images, which must live inside the GLB too.
 */
function checkGlbAsset(fileName: string, bytes: Uint8Array): void {
  let json: GltfJson;
  try {
    json = checkGlb(bytes).json as GltfJson;
  } catch (error) {
    if (error instanceof ModelFormatError) throw invalid(fileName, error.message);
    throw error;
  }
  const images = (json.images ?? []) as Resource[];
  images.forEach((image, i) => {
    if (image.uri === undefined) return;
    if (typeof image.uri !== 'string' || !image.uri.startsWith('data:')) {
      throw invalid(fileName, `glTF image ${i} refers to the external file "${String(image.uri).slice(0, 80)}"; a GLB must contain all its data.`);
    }
    if (!decodeDataUri(image.uri)) throw invalid(fileName, `glTF image ${i} has a malformed data URI.`);
  });
}

/** Reads the external buffers and images of a .gltf from `dir` (undefined: none may exist). */
async function readResources(
  fileName: string,
  json: GltfJson,
  dir: string | undefined,
  limit: { used: number; maxBytes: number },
  provided?: Record<string, Uint8Array>,
): Promise<Record<string, Uint8Array<ArrayBuffer>>> {
  const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
  const entries: [string, Resource][] = [
    ...((json.buffers ?? []) as Resource[]).map((r, i): [string, Resource] => [`buffer ${i}`, r]),
    ...((json.images ?? []) as Resource[]).map((r, i): [string, Resource] => [`image ${i}`, r]),
  ];
  let total = limit.used;
  for (const [what, resource] of entries) {
    const uri = resource.uri;
    // No uri: an image in a buffer view, or a placeholder buffer (EXT_meshopt_compression fallback).
    if (uri === undefined) continue;
    if (uri.startsWith('data:')) {
      const data = decodeDataUri(uri);
      if (!data) throw invalid(fileName, `glTF ${what} has a malformed data URI.`);
      total += data.byteLength;
    } else {
      if (ABSOLUTE_URL.test(uri) || uri.startsWith('//')) {
        throw new ImportError('MISSING_RESOURCE', `${fileName}: glTF ${what} refers to "${uri}"; only files next to the .gltf and data URIs are supported.`);
      }
      if (uri in resources) continue;
      const uploaded = provided && findProvided(provided, uri);
      if (uploaded) {
        resources[uri] = Uint8Array.from(uploaded);
        total += uploaded.byteLength;
        if (total > limit.maxBytes) throw tooLarge(fileName, limit.maxBytes);
        continue;
      }
      if (dir === undefined) {
        throw new ImportError(
          'MISSING_RESOURCE',
          `${fileName}: glTF ${what} refers to the external file "${uri}", which was not provided: upload it with the .gltf, import the .gltf from disk with its files next to it, or use a .glb.`,
        );
      }
      let path: string;
      try {
        path = resolve(dir, decodeURIComponent(uri));
      } catch {
        path = resolve(dir, uri);
      }
      try {
        resources[uri] = new Uint8Array(await readFile(path));
      } catch (error) {
        throw new ImportError('MISSING_RESOURCE', `${fileName}: Cannot read glTF ${what} "${uri}": ${(error as Error).message}`);
      }
      total += resources[uri].byteLength;
    }
    if (total > limit.maxBytes) throw tooLarge(fileName, limit.maxBytes);
  }
  return resources;
}

/** An uploaded companion file by the uri the glTF uses: as written, URL-decoded, or by its base name. */
function findProvided(provided: Record<string, Uint8Array>, uri: string): Uint8Array | undefined {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // not percent-encoded
  }
  return provided[uri] ?? provided[decoded] ?? provided[basename(decoded)];
}

function tooLarge(fileName: string, maxBytes: number): ImportError {
  return new ImportError('TOO_LARGE', `${fileName}: The model is larger than the limit of ${maxBytes} bytes (MAX_ASSET_BYTES).`);
}

/** A NodeIO that reads and writes every extension gltf-transform knows, compressed ones included. */
async function createIO(json: GltfJson): Promise<NodeIO> {
  await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
  const io = new NodeIO()
    .setLogger(new Logger(Logger.Verbosity.ERROR))
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder });
  const used = (json.extensionsUsed ?? []) as string[];
  if (used.includes('KHR_draco_mesh_compression')) {
    const draco = await loadDraco();
    io.registerDependencies({ 'draco3d.decoder': draco.decoder, 'draco3d.encoder': draco.encoder });
  }
  return io;
}

/** Packs a .gltf and its resources into one GLB. */
async function packGltf(fileName: string, json: GltfJson, resources: Record<string, Uint8Array<ArrayBuffer>>): Promise<Uint8Array> {
  try {
    const io = await createIO(json);
    const doc = await io.readJSON({ json, resources });
    await doc.transform(unpartition());
    return await io.writeBinary(doc);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw invalid(fileName, `The glTF file cannot be packed into a GLB: ${(error as Error).message}`);
  }
}

/** Checks and converts a model file to the GLB or glTF asset that goes into the container. */
export async function prepareAsset(
  fileName: string,
  bytes: Uint8Array,
  options: { dir?: string; maxBytes?: number; resources?: Record<string, Uint8Array> } = {},
): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? CONFIG_DEFAULTS.MAX_ASSET_BYTES;
  if (bytes.byteLength > maxBytes) throw tooLarge(fileName, maxBytes);
  const format = detectAssetFormat(bytes);
  if (format === 'glb') {
    checkGlbAsset(fileName, bytes);
    return bytes;
  }
  if (format === 'gltf') {
    const json = parseGltfJson(fileName, bytes);
    const resources = await readResources(fileName, json, options.dir, { used: bytes.byteLength, maxBytes }, options.resources);
    const glb = await packGltf(fileName, json, resources);
    if (glb.byteLength > maxBytes) throw tooLarge(fileName, maxBytes);
    checkGlbAsset(fileName, glb);
    return glb;
  }
  throw new ImportError('UNKNOWN_FORMAT', `${fileName}: Unknown file format (expected a glTF 2.0 .glb or .gltf file)`);
}

/**
 * The files a .gltf refers to, for the validator: uploaded ones, or read from `dir`; missing ones
 * are left out (the validator reports them). Data URIs are the validator's own business.
 */
async function resourcesForValidation(bytes: Uint8Array, dir: string | undefined, provided: Record<string, Uint8Array> | undefined): Promise<Record<string, Uint8Array>> {
  const found: Record<string, Uint8Array> = {};
  let json: GltfJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes)) as GltfJson;
  } catch {
    return found;
  }
  const entries = [...((json.buffers ?? []) as Resource[]), ...((json.images ?? []) as Resource[])];
  for (const { uri } of entries) {
    if (typeof uri !== 'string' || uri.startsWith('data:') || uri in found || ABSOLUTE_URL.test(uri) || uri.startsWith('//')) continue;
    const uploaded = provided && findProvided(provided, uri);
    if (uploaded) {
      found[uri] = uploaded;
    } else if (dir !== undefined) {
      try {
        found[uri] = new Uint8Array(await readFile(resolve(dir, decodeURIComponent(uri))));
      } catch {
        // reported by the validator
      }
    }
  }
  return found;
}

/**
 * The `optimize` path: glTF-Validator on the file as given (refusing errors throw ImportError
 * with the report), packing a .gltf into a GLB, then the optimisation.
 */
export async function validateAndOptimize(
  fileName: string,
  bytes: Uint8Array,
  options: { dir?: string; maxBytes: number; provided?: Record<string, Uint8Array>; minInstances?: number },
): Promise<{ asset: Uint8Array; validation: ValidationReport; optimization: OptimizationSummary }> {
  if (bytes.byteLength > options.maxBytes) throw tooLarge(fileName, options.maxBytes);
  const format = detectAssetFormat(bytes);
  const resources = format === 'gltf' ? await resourcesForValidation(bytes, options.dir, options.provided) : {};
  const validation = await validateModel(bytes, { fileName, resources });
  if (format !== 'glb' && format !== 'gltf') {
    throw new ImportError('UNKNOWN_FORMAT', `${fileName}: Unknown file format (expected a glTF 2.0 .glb or .gltf file)`, validation);
  }
  if (refuses(validation)) throw new ImportError('INVALID_GLTF', describeRefusal(fileName, validation), validation);

  let glb: Uint8Array;
  try {
    glb = await prepareAsset(fileName, bytes, { dir: options.dir, maxBytes: options.maxBytes, resources: options.provided });
  } catch (error) {
    if (error instanceof ImportError && !error.report) throw new ImportError(error.code, error.message, validation);
    throw error;
  }
  try {
    const { glb: optimized, summary } = await optimizeModel(glb, { fileName, inputReport: validation, minInstances: options.minInstances });
    if (optimized.byteLength > options.maxBytes) throw tooLarge(fileName, options.maxBytes);
    return { asset: optimized, validation, optimization: summary };
  } catch (error) {
    if (error instanceof OptimizeError) throw new ImportError('OPTIMIZE_FAILED', error.message, error.report);
    if (error instanceof ImportError) throw error;
    throw new ImportError('OPTIMIZE_FAILED', `${fileName}: the model could not be optimised: ${(error as Error).message}`, validation);
  }
}

function sceneNameFromFile(fileName: string): string {
  return fileName.replace(/\.(glb|gltf)$/i, '') || fileName;
}

/**
 * Imports one model file: checks (and for a .gltf packs) the asset, writes its container under a
 * new version key `{modelId}/{versionId}`, writes the Model document, and creates the scene
 * `options.sceneId` (or a new one) or appends the model to it. Throws ImportError for a file that
 * cannot be used and StoreError for a bad id.
 */
export async function importModel(store: Store, input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  if (options.sceneId !== undefined && !isValidId(options.sceneId)) {
    throw new ImportError('BAD_OPTION', `Invalid scene id '${options.sceneId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  }
  const maxBytes = options.maxBytes ?? CONFIG_DEFAULTS.MAX_ASSET_BYTES;

  let fileName: string;
  let bytes: Uint8Array;
  let dir: string | undefined;
  let provided: Record<string, Uint8Array> | undefined;
  if ('path' in input) {
    const path = resolve(input.path);
    fileName = basename(path);
    dir = dirname(path);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch (error) {
      throw new ImportError('MISSING_RESOURCE', `Cannot read ${input.path}: ${(error as Error).message}`);
    }
    if (size > maxBytes) throw tooLarge(fileName, maxBytes);
    bytes = await readFile(path);
  } else {
    fileName = basename(input.fileName.replace(/\\/g, '/')) || 'model';
    bytes = input.bytes;
    provided = input.resources;
  }

  let asset: Uint8Array;
  let validation: ValidationReport | undefined;
  let optimization: OptimizationSummary | undefined;
  if (options.optimize) {
    ({ asset, validation, optimization } = await validateAndOptimize(fileName, bytes, { dir, maxBytes, provided, minInstances: options.minInstances }));
  } else {
    asset = await prepareAsset(fileName, bytes, { dir, maxBytes, resources: provided });
  }
  const container = await encodeContainer(asset, {
    sourceFileName: fileName,
    generator: options.generator ?? IMPORT_GENERATOR,
  });

  const modelId = newId();
  const versionKey = `${modelId}/${newId()}`;
  await store.writeDerivative(versionKey, container);
  const model = await store.putModel({
    _id: modelId,
    latestVersionKey: versionKey,
    outputFormat: 'glb',
    sourceFileName: fileName,
  });

  const sceneId = options.sceneId ?? newId();
  // Extending a scene is one atomic read-modify-write in the store, so that concurrent imports
  // into the same scene (or an edit of it) lose no model.
  const extended = await store.updateScene(sceneId, (existing) => ({
    ...existing,
    name: options.name ?? existing.name,
    models: [...existing.models, model],
  }));
  const scene =
    extended ??
    (await store.putScene({
      _id: sceneId,
      name: options.name ?? sceneNameFromFile(fileName),
      viewerConfig: {},
      models: [model],
      ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    }));
  return { scene, model, ...(validation ? { validation } : {}), ...(optimization ? { optimization } : {}) };
}
