/**
 * Instanced asset groups (editor specification section 3: `{uuid, matrices, assetId}`; DESIGN.md
 * 4.5): many copies of one asset from the asset CDN, each copy an *instance* with a stable id.
 *
 * Where they live:
 * - The group itself is a scene object (`viewerConfig.objects`, type 'InstancedAssetGroup') with
 *   its assetId, name, parent and group transform, and `instanceCount` / `instanceRevision`
 *   (what the server holds; informative for lists and caches). A putObject that carries
 *   `matrices` (at most INLINE_INSTANCE_LIMIT instances, the spec's shape) replaces the group's
 *   instances with those, ids 0..n-1; a putObject without keeps them.
 * - The instances are kept by the model service in a compact binary *instance set* (below), never
 *   as a JSON list in the scene document:
 *     GET  /v1/scenes/{sceneId}/groups/{groupId}/instances   -> the set (INSTANCE_SET_MIME), ETag
 *                                                               by revision
 *     POST /v1/scenes/{sceneId}/instance-changes { changes }  -> ApplyInstanceChangesResponse
 *                                                               (src/protocol/instance-changes.ts)
 *   Changes set, add or remove instances by id, so moving one instance of a million sends and
 *   stores a few hundred bytes; like every change they are ordered and idempotent by change uuid.
 *
 * Ids: an instance's id is a uint32 that survives compaction, reloads and saves; new instances
 * take ids from the group's nextId (which only grows), so an id never names two different
 * instances, and an undone removal brings the same id back. The server refuses an add whose id
 * is in the set ('Instance id N already exists in group G') and a set or remove whose id is not
 * ('No instance found with id N').
 */

/** Groups with at most this many instances may carry them inline as `matrices` (the spec's shape). */
export const INLINE_INSTANCE_LIMIT = 1000;
/** At most this many instances named by one request (sum over its changes). */
export const MAX_INSTANCES_PER_REQUEST = 100_000;
/** At most this many changes per request. */
export const MAX_INSTANCE_CHANGES_PER_BATCH = 1000;
/** Removals are marked and, after this many marked removals, compacted in a batch (spec section 4). */
export const INSTANCE_COMPACTION_THRESHOLD = 100;
/** At most this many instances in one group. */
export const MAX_INSTANCES_PER_GROUP = 2_000_000;
/** Floats per instance in the set and in changes: the upper 3 rows of a column-major 4x4 matrix. */
export const FLOATS_PER_INSTANCE = 12;
export const INSTANCE_SET_MIME = 'application/vnd.parametricos.instances';
// The set's codec is src/protocol/instance-set.ts, used by the loader worker and the main-thread
// fallback chunk only. It repeats these three constants (tests/unit/protocol/instance-set.test.ts
// holds them equal) so that this module, which the embed's entry imports, need not import it:
// that import put the codec in the embed's first download as a chunk of its own (+0.3 kB gzip).

/** The spec's error for an unknown instance id. */
export function noInstanceError(id: number | string): Error {
  return new Error(`No instance found with id ${id}`);
}

// ---------------------------------------------------------------------------------------------
// Matrices: 12 floats per instance, the columns of a column-major 4x4 (three.js Matrix4.elements)
// without the constant last row: [e0 e1 e2, e4 e5 e6, e8 e9 e10, e12 e13 e14].

/** Writes a three.js-order 4x4 (16 numbers) into `out` at instance `index` (12 floats). */
export function packMatrix(elements: ArrayLike<number>, out: Float32Array, index: number): void {
  const o = index * FLOATS_PER_INSTANCE;
  out[o] = elements[0]!;
  out[o + 1] = elements[1]!;
  out[o + 2] = elements[2]!;
  out[o + 3] = elements[4]!;
  out[o + 4] = elements[5]!;
  out[o + 5] = elements[6]!;
  out[o + 6] = elements[8]!;
  out[o + 7] = elements[9]!;
  out[o + 8] = elements[10]!;
  out[o + 9] = elements[12]!;
  out[o + 10] = elements[13]!;
  out[o + 11] = elements[14]!;
}

/** Reads instance `index` (12 floats) into a three.js-order 4x4 `out` (16 numbers). */
export function unpackMatrix(packed: ArrayLike<number>, index: number, out: { [i: number]: number }): void {
  const o = index * FLOATS_PER_INSTANCE;
  out[0] = packed[o]!;
  out[1] = packed[o + 1]!;
  out[2] = packed[o + 2]!;
  out[3] = 0;
  out[4] = packed[o + 3]!;
  out[5] = packed[o + 4]!;
  out[6] = packed[o + 5]!;
  out[7] = 0;
  out[8] = packed[o + 6]!;
  out[9] = packed[o + 7]!;
  out[10] = packed[o + 8]!;
  out[11] = 0;
  out[12] = packed[o + 9]!;
  out[13] = packed[o + 10]!;
  out[14] = packed[o + 11]!;
  out[15] = 1;
}

/** Unpacks `count` instances (12 floats each) into three.js-order 4x4s (16 floats each) in `out`. */
export function unpackMatrices(packed: ArrayLike<number>, out: Float32Array, count: number): Float32Array {
  for (let i = 0, p = 0, o = 0; i < count; i++, p += 12, o += 16) {
    out[o] = packed[p]!;
    out[o + 1] = packed[p + 1]!;
    out[o + 2] = packed[p + 2]!;
    out[o + 3] = 0;
    out[o + 4] = packed[p + 3]!;
    out[o + 5] = packed[p + 4]!;
    out[o + 6] = packed[p + 5]!;
    out[o + 7] = 0;
    out[o + 8] = packed[p + 6]!;
    out[o + 9] = packed[p + 7]!;
    out[o + 10] = packed[p + 8]!;
    out[o + 11] = 0;
    out[o + 12] = packed[p + 9]!;
    out[o + 13] = packed[p + 10]!;
    out[o + 14] = packed[p + 11]!;
    out[o + 15] = 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The binary instance set.
//
//   offset  size        field
//   0       4           magic 'PXIS'
//   4       1           version (1)
//   5       1           flags: 0 (no other value is defined; a reader refuses others)
//   6       2           reserved, 0
//   8       4           count (uint32 LE)
//   12      4           nextId (uint32 LE): every id in the set is below it
//   16      4           revision (uint32 LE): the server's change counter for the group
//   20      4           body byte length as stored (uint32 LE)
//   24      ...         body: ids (count x uint32 LE), then matrices (count x 12 x float32 LE)
//
// 52 bytes an instance before compression; ids are in slot order (not sorted).
