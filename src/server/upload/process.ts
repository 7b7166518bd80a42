import type { OptimizationSummary, ValidationReport } from '../../protocol/upload.ts';
import { encodeContainer } from '../../protocol/container-codec.ts';
import { detectAssetFormat } from '../../protocol/container-header.ts';
import { ImportError, prepareAsset, resourcesForValidation, tooLarge } from './prepare.ts';
import { OptimizeError, optimizeModel } from './optimize.ts';
import { describeRefusal, refuses, validateModel } from './validate.ts';

/**
 * Everything an upload costs in CPU, from the file as given to the container that the derivative
 * store keeps: validation (./validate.ts), packing a .gltf into a GLB (./prepare.ts), the
 * optimisation (./optimize.ts) and the container's DEFLATE and SHA-256 (src/protocol/container-codec.ts, sha256.ts).
 * The HTTP routes run it in a worker thread (./pool.ts); the import CLI and the demo scenes in
 * their own thread. It touches no store.
 */

export interface ModelFile {
  fileName: string;
  bytes: Uint8Array;
  /** Files a .gltf refers to (its .bin and images), by the uri written in the glTF or by file name. */
  resources?: Record<string, Uint8Array>;
  /** The folder of a file read from disk, where a .gltf's files are looked for. */
  dir?: string;
}

export interface ProcessOptions {
  maxBytes: number;
  /**
   * Validate with glTF-Validator and optimise (uploads and the CLI); false stores a .glb byte for
   * byte (a .gltf packed into one GLB first), which tests comparing the stored model with the file rely on.
   */
  optimize: boolean;
  /** With `optimize`: sibling nodes sharing a mesh are instanced from this many on (default 5). */
  minInstances?: number;
  /** With `optimize`: add levels of detail and an impostor (assets: ./levels.ts). */
  levels?: boolean;
  /** Recorded as the container's `generator`. */
  generator: string;
}

export interface ProcessedModel {
  /** The model container (DESIGN.md 4.1). */
  container: Uint8Array;
  /** With `optimize`: the validator's report on the file as given. */
  validation?: ValidationReport;
  /** With `optimize`: what the optimisation did. */
  optimization?: OptimizationSummary;
}

/**
 * The `optimize` path: glTF-Validator on the file as given (refusing errors throw ImportError
 * with the report), packing a .gltf into a GLB, then the optimisation.
 */
export async function validateAndOptimize(
  file: ModelFile,
  options: { maxBytes: number; minInstances?: number; levels?: boolean },
): Promise<{ asset: Uint8Array; validation: ValidationReport; optimization: OptimizationSummary }> {
  const { fileName, bytes } = file;
  if (bytes.byteLength > options.maxBytes) throw tooLarge(fileName, options.maxBytes);
  const format = detectAssetFormat(bytes);
  const resources = format === 'gltf' ? await resourcesForValidation(bytes, file.dir, file.resources) : {};
  const validation = await validateModel(bytes, { fileName, resources });
  if (format !== 'glb' && format !== 'gltf') {
    throw new ImportError('UNKNOWN_FORMAT', `${fileName}: Unknown file format (expected a glTF 2.0 .glb or .gltf file)`, validation);
  }
  if (refuses(validation)) throw new ImportError('INVALID_GLTF', describeRefusal(fileName, validation), validation);

  let glb: Uint8Array;
  try {
    glb = await prepareAsset(fileName, bytes, { dir: file.dir, maxBytes: options.maxBytes, resources: file.resources });
  } catch (error) {
    if (error instanceof ImportError && !error.report) throw new ImportError(error.code, error.message, validation);
    throw error;
  }
  try {
    const { glb: optimized, summary } = await optimizeModel(glb, {
      fileName,
      inputReport: validation,
      minInstances: options.minInstances,
      levels: options.levels,
    });
    if (optimized.byteLength > options.maxBytes) throw tooLarge(fileName, options.maxBytes);
    return { asset: optimized, validation, optimization: summary };
  } catch (error) {
    if (error instanceof OptimizeError) throw new ImportError('OPTIMIZE_FAILED', error.message, error.report);
    if (error instanceof ImportError) throw error;
    throw new ImportError('OPTIMIZE_FAILED', `${fileName}: the model could not be optimised: ${(error as Error).message}`, validation);
  }
}

/** Turns a model file into its container (see the top of this file). Throws ImportError for a file that cannot be used. */
export async function processModel(file: ModelFile, options: ProcessOptions): Promise<ProcessedModel> {
  if (!options.optimize) {
    const asset = await prepareAsset(file.fileName, file.bytes, { dir: file.dir, maxBytes: options.maxBytes, resources: file.resources });
    return { container: await encodeContainer(asset, { sourceFileName: file.fileName, generator: options.generator }) };
  }
  const { asset, validation, optimization } = await validateAndOptimize(file, options);
  const container = await encodeContainer(asset, { sourceFileName: file.fileName, generator: options.generator });
  return { container, validation, optimization };
}
