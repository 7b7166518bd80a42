import { dedup, prune } from '@gltf-transform/functions';
import type { OptimizationSummary, ValidationReport } from '../../protocol/upload.ts';
import { enableMeshopt, PRUNE_OPTIONS, quantizeForMeshopt } from './compress.ts';
import { instanceSiblings } from './instancing.ts';
import { addAssetLevels, type AssetLevelsSummary } from './levels.ts';
import { createModelIO, extensionsUsed, withoutExtraData } from './io.ts';
import { addSkeletonsToScenes, generateMissingTangents } from './repairs.ts';
import { stampStableIds } from './stable-ids.ts';
import { describeRefusal, validateModel } from './validate.ts';

/**
 * The optimisation of an uploaded GLB (after ./validate.ts accepted it), with gltf-transform:
 * - stable ids (./stable-ids.ts): every node and material keeps the id the upload gives it, so
 *   saved mutations mean the same node before and after optimisation;
 * - repairs (./repairs.ts), dedup, instancing of repeated sibling meshes (./instancing.ts), prune,
 *   then meshopt compression with quantization where it is safe (./compress.ts);
 * - Draco and meshopt inputs are decoded and re-encoded with meshopt; KTX2 (KHR_texture_basisu)
 *   and other images are kept as they are;
 * - for assets, levels of detail and an impostor (./levels.ts);
 * - the result is validated again before compression; it must have no error.
 */

export interface OptimizeOptions {
  /** Sibling nodes drawing the same mesh become one instanced node from this many on (default 5). */
  minInstances?: number;
  /** The input's validation report: its repaired error codes are listed in the summary. */
  inputReport?: ValidationReport;
  /** The file name, for the output report (default 'model.glb'). */
  fileName?: string;
  /** Add levels of detail and an impostor (./levels.ts): for assets, which are drawn many times over. */
  levels?: boolean;
}

export interface OptimizeResult {
  glb: Uint8Array;
  summary: OptimizationSummary;
  /** The validator's report on the optimised model before compression (no errors, or optimizeModel threw). */
  validation: ValidationReport;
}

/** The optimised model does not pass validation: a bug of ours, never the user's file. */
export class OptimizeError extends Error {
  readonly report: ValidationReport;
  constructor(message: string, report: ValidationReport) {
    super(message);
    this.name = 'OptimizeError';
    this.report = report;
  }
}

/** Extensions of a stored model that need a decoder in the viewer (the summary lists them). */
const DECODED_EXTENSIONS = ['EXT_meshopt_compression', 'KHR_mesh_quantization', 'KHR_texture_basisu', 'EXT_mesh_gpu_instancing'];

/** Optimises a GLB (see the top of this file). The input should have passed `validateModel`. */
export async function optimizeModel(input: Uint8Array, options: OptimizeOptions = {}): Promise<OptimizeResult> {
  const started = performance.now();
  const glb = withoutExtraData(input);
  const io = await createModelIO(extensionsUsed(glb).includes('KHR_draco_mesh_compression'));
  const doc = await io.readBinary(glb);
  const root = doc.getRoot();
  const nodesBefore = root.listNodes().length;

  stampStableIds(doc);
  await generateMissingTangents(doc);
  addSkeletonsToScenes(doc);

  // Decoded on read; re-encoded with meshopt below.
  for (const extension of root.listExtensionsUsed()) {
    if (extension.extensionName === 'KHR_draco_mesh_compression' || extension.extensionName === 'EXT_meshopt_compression') extension.dispose();
  }

  await doc.transform(dedup());
  const instancing = instanceSiblings(doc, options.minInstances ?? 5);
  await doc.transform(prune(PRUNE_OPTIONS));
  let levels: AssetLevelsSummary | undefined;
  if (options.levels) {
    try {
      levels = await addAssetLevels(doc);
    } catch (error) {
      // The asset is still good at full detail: store it so, and say why it has no levels.
      levels = { triangles: [], errors: [], impostor: false, skipped: `making levels failed: ${(error as Error).message}` };
      console.warn(`${options.fileName ?? 'model.glb'}: ${levels.skipped}`);
    }
  }
  const compressed = await quantizeForMeshopt(doc);

  const fileName = options.fileName ?? 'model.glb';
  const plain = await io.writeBinary(doc);
  const validation = await validateModel(plain, { fileName, repairs: false });
  if (validation.errors > 0) {
    throw new OptimizeError(`${fileName}: the optimised model does not pass validation (${describeRefusal(fileName, validation)})`, validation);
  }
  let output = plain;
  if (compressed) {
    enableMeshopt(doc);
    output = await io.writeBinary(doc);
  }

  const repairs = [...new Set((options.inputReport?.messages ?? []).filter((m) => m.repaired).map((m) => m.code))].sort();
  return {
    glb: output,
    validation,
    summary: {
      inputBytes: input.byteLength,
      outputBytes: output.byteLength,
      nodesBefore,
      nodesAfter: root.listNodes().length,
      instancedNodes: instancing.batches,
      instances: instancing.instances,
      compression: root
        .listExtensionsUsed()
        .map((e) => e.extensionName)
        .filter((name) => DECODED_EXTENSIONS.includes(name))
        .sort(),
      repairs,
      ...(levels ? { levels } : {}),
      milliseconds: Math.round(performance.now() - started),
    },
  };
}
