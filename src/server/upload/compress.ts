import type { Document } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { prune, quantize, reorder } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';

/**
 * Meshopt compression of an optimised model (EXT_meshopt_compression with KHR_mesh_quantization),
 * and the pruning options every step of the optimisation shares.
 */

/**
 * Prune what nothing uses (accessors, meshes, materials, textures...), but keep empty leaf nodes
 * (pivots and anchors someone may refer to), vertex attributes no material reads yet (the editor
 * may add a texture) and single-colour textures (the editor shows the texture the author set).
 */
export const PRUNE_OPTIONS = { keepLeaves: true, keepAttributes: true, keepSolidTextures: true } as const;

/**
 * Prepares meshopt compression where it is safe. Quantizing POSITION (and morph position deltas)
 * would move a dequantization offset and scale into the transforms of the nodes that draw the mesh,
 * and the editor shows and saves those transforms (a node's scale would read 0.0031): positions
 * stay float, EXT_meshopt_compression still compresses them losslessly. Texture coordinates,
 * colours, joints and weights are quantized (KHR_mesh_quantization; weights renormalised); normals
 * and tangents use meshopt's octahedral filter; animation rotations, translations and scales its
 * quaternion and exponential filters. Nothing is done for KHR_mesh_primitive_restart, which meshopt
 * does not support. Returns false when the model is to stay uncompressed.
 */
export async function quantizeForMeshopt(doc: Document): Promise<boolean> {
  if (doc.getRoot().listAccessors().length === 0) return false;
  if (doc.getRoot().listExtensionsUsed().some((e) => e.extensionName === 'KHR_mesh_primitive_restart')) return false;
  await doc.transform(
    reorder({ encoder: MeshoptEncoder, target: 'size' }),
    quantize({
      pattern: /^(TEXCOORD|JOINTS|WEIGHTS|COLOR)(_\d+)?$/,
      patternTargets: /^(TEXCOORD|JOINTS|WEIGHTS|COLOR|NORMAL|TANGENT)(_\d+)?$/,
      quantizeNormal: 8,
      // quantize()'s own cleanup prunes with the default options, which drop empty leaf nodes.
      cleanup: false,
    }),
    prune(PRUNE_OPTIONS),
  );
  // quantize() declares the extension only for quantized base attributes, not morph targets; and
  // meshopt's octahedral filter stores normals and tangents as normalised bytes.
  doc.createExtension(KHRMeshQuantization).setRequired(true);
  return true;
}

/** Declares EXT_meshopt_compression (with filters): the next write compresses the buffers. */
export function enableMeshopt(doc: Document): void {
  doc
    .createExtension(EXTMeshoptCompression)
    .setRequired(true)
    .setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.FILTER });
}
