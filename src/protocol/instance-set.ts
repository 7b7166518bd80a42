/**
 * The binary instance set (src/protocol/instances.ts describes its layout and where it is used):
 * its codec, for the loader worker that downloads and decodes sets off the main thread (and its
 * main-thread fallback), kept out of the embed's first download.
 */

// The same values as src/protocol/instances.ts's (a test holds them equal; see there why twice).
/** The most instances one group may hold. */
export const MAX_INSTANCES_PER_GROUP = 2_000_000;
/** Floats per instance in a set: a matrix's first three rows (three.js column order, see packMatrix). */
export const FLOATS_PER_INSTANCE = 12;
export const INSTANCE_SET_MIME = 'application/vnd.parametricos.instances';

export const INSTANCE_SET_MAGIC = 'PXIS';
export const INSTANCE_SET_VERSION = 1;
export const INSTANCE_SET_HEADER = 24;

export interface InstanceSet {
  /** Instance ids in slot order; `ids.length === count`. */
  ids: Uint32Array;
  /** FLOATS_PER_INSTANCE floats per slot, in the same order as ids. */
  matrices: Float32Array;
  nextId: number;
  revision: number;
}

export class InstanceSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstanceSetError';
  }
}

const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The set as bytes. Not compressed: a set of floats barely shrinks under DEFLATE (and the viewer's
 * first chunk stays free of a compressor); HTTP may compress it on the way.
 */
export function encodeInstanceSet(set: InstanceSet): Uint8Array {
  const count = set.ids.length;
  if (set.matrices.length !== count * FLOATS_PER_INSTANCE) throw new InstanceSetError(`matrices hold ${set.matrices.length} floats for ${count} ids (want ${count * FLOATS_PER_INSTANCE})`);
  if (!LITTLE) throw new InstanceSetError('instance sets are written on little-endian machines only');
  const raw = new Uint8Array(count * 4 + count * FLOATS_PER_INSTANCE * 4);
  raw.set(new Uint8Array(set.ids.buffer, set.ids.byteOffset, count * 4), 0);
  raw.set(new Uint8Array(set.matrices.buffer, set.matrices.byteOffset, set.matrices.byteLength), count * 4);
  const body = raw;
  const out = new Uint8Array(INSTANCE_SET_HEADER + body.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = INSTANCE_SET_MAGIC.charCodeAt(i);
  out[4] = INSTANCE_SET_VERSION;
  out[5] = 0;
  view.setUint32(8, count, true);
  view.setUint32(12, set.nextId, true);
  view.setUint32(16, set.revision, true);
  view.setUint32(20, body.length, true);
  out.set(body, INSTANCE_SET_HEADER);
  return out;
}

export function decodeInstanceSet(file: Uint8Array): InstanceSet {
  if (file.length < INSTANCE_SET_HEADER) throw new InstanceSetError(`Not an instance set: ${file.length} bytes is shorter than its header`);
  const magic = String.fromCharCode(file[0]!, file[1]!, file[2]!, file[3]!);
  if (magic !== INSTANCE_SET_MAGIC) throw new InstanceSetError(`Not an instance set: magic '${magic}'`);
  if (file[4] !== INSTANCE_SET_VERSION) throw new InstanceSetError(`Unsupported instance set version ${file[4]}`);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const count = view.getUint32(8, true);
  const nextId = view.getUint32(12, true);
  const revision = view.getUint32(16, true);
  const stored = view.getUint32(20, true);
  if (count > MAX_INSTANCES_PER_GROUP) throw new InstanceSetError(`Instance set of ${count} instances is over the limit of ${MAX_INSTANCES_PER_GROUP}`);
  if (INSTANCE_SET_HEADER + stored !== file.length) throw new InstanceSetError(`Instance set truncated or padded: header says ${stored} body bytes, file has ${file.length - INSTANCE_SET_HEADER}`);
  const want = count * 4 * (1 + FLOATS_PER_INSTANCE);
  if (file[5] !== 0) throw new InstanceSetError(`Unsupported instance set flags ${file[5]}`);
  const body = file.subarray(INSTANCE_SET_HEADER);
  if (body.length !== want) throw new InstanceSetError(`Instance set body is ${body.length} bytes, ${count} instances need ${want}`);
  // Copy into aligned arrays (the body may sit at any offset of a shared buffer).
  const ids = new Uint32Array(count);
  new Uint8Array(ids.buffer).set(body.subarray(0, count * 4));
  const matrices = new Float32Array(count * FLOATS_PER_INSTANCE);
  new Uint8Array(matrices.buffer).set(body.subarray(count * 4));
  for (let i = 0; i < count; i++) {
    if (ids[i]! >= nextId) throw new InstanceSetError(`Instance id ${ids[i]} is not below nextId ${nextId}`);
  }
  for (let i = 0; i < matrices.length; i++) {
    if (!Number.isFinite(matrices[i]!)) throw new InstanceSetError(`Instance ${ids[Math.floor(i / FLOATS_PER_INSTANCE)]} has a matrix value that is not finite`);
  }
  return { ids, matrices, nextId, revision };
}
