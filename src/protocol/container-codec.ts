import { ContainerMetadata } from './container.ts';
import { ContainerError } from './container-errors.ts';
import {
  CONTAINER_VERSION,
  HEADER_SIZE,
  MAGIC_BYTES,
  MAX_METADATA_BYTES,
  detectAssetFormat,
  readContainerHeader,
  type AssetFormat,
  type ContainerHeader,
} from './container-header.ts';
import { deflate, inflatePayload, InflateFailure, looksLikeZlib, resolveEngine, type CodecEngine } from './container-engines.ts';
import { checkTimestamp, keystreamSeed, splitTimestamp, xorKeystream } from './container-obfuscation.ts';
import { sha256Hex } from './sha256.ts';

/**
 * The model container codec (DESIGN.md section 4.1), shared by the browser (in a worker) and Node
 * (server, CLI, tests). No Node imports: in Node the built-in zlib and crypto are reached at run time
 * through `process.getBuiltinModule`, so bundles for the browser never see them.
 *
 * Layout: magic `3DXF` | version u8 x3 | timestamp u64 LE | metadata length u16 LE | metadata JSON
 * | payload = raw DEFLATE of the asset (GLB or glTF JSON), XOR-obfuscated with a xorshift32
 * keystream seeded from the timestamp. Legacy files (0.0.0) are a bare DEFLATE stream
 * (zlib-wrapped or raw), or a 0.0.0 header followed by one; they are not obfuscated.
 *
 * Inflation engines, fastest first (`engine: 'auto'` picks the first one present):
 * - 'node-zlib': Node's zlib, synchronous, `maxOutputLength` stops it at the limit.
 * - 'stream': the platform's `DecompressionStream` (browsers, workers); the input is written in
 *   64 KiB slices and reading stops at the limit, so a bomb costs at most about 66 MiB of
 *   transient output beyond the limit (one slice at the 1032:1 maximum DEFLATE ratio).
 * - 'fflate': pure JavaScript fallback for platforms without 'deflate-raw' streams; fed in 16 KiB
 *   slices, so at most about 17 MiB of transient output beyond the limit.
 * Bytes after the end of the DEFLATE stream are rejected by 'node-zlib' and by browsers'
 * DecompressionStream; Node's DecompressionStream and fflate ignore them. They never reach the
 * asset, and sha256 guards the asset either way.
 */

/** Hard cap on the inflated asset (decompression bombs). */
export const DEFAULT_MAX_ASSET_BYTES = 512 * 1024 * 1024;
export const DEFAULT_GENERATOR = 'parametricos';
/** DEFLATE cannot expand one input byte to more than 1032 output bytes (258-byte matches in 2 bits). */
export const MAX_DEFLATE_RATIO = 1032;

// The errors live in ./container-errors.ts (light: the main thread's decoder client needs them
// without this codec and its inflater).
export { CONTAINER_ERROR_CODES, ContainerError, type ContainerErrorCode } from './container-errors.ts';
// For the main thread's decoder client, which fetches this module alone (one chunk).
export { toExactArrayBuffer, type AssetFormat, type ContainerHeader } from './container-header.ts';

const unknownFormat = (): ContainerError => new ContainerError('unknown-format', 'Unknown file format');

export interface DecodedContainer {
  asset: Uint8Array;
  header: ContainerHeader;
  format: AssetFormat;
}

export interface DecodeOptions {
  /** Hard cap on the inflated asset in bytes; default DEFAULT_MAX_ASSET_BYTES. */
  maxAssetBytes?: number;
  /** Inflation engine; default 'auto'. Tests pin one to cover each. */
  engine?: CodecEngine;
}

export interface EncodeOptions {
  /** Milliseconds since the Unix epoch, a safe non-negative integer; default Date.now(). */
  timestamp?: number;
  /** Stored in the metadata; default ''. */
  sourceFileName?: string;
  /** Stored in the metadata; default DEFAULT_GENERATOR. */
  generator?: string;
  /** Write a legacy file instead: a plain zlib stream, no header, no obfuscation. */
  legacy?: boolean;
  /** Compression engine; default 'auto'. */
  engine?: CodecEngine;
}

// ---------------------------------------------------------------------------------------------
// Decode

function checkMaxAssetBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ASSET_BYTES;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`maxAssetBytes must be a positive integer, got ${value}.`);
  return value;
}

/**
 * Decodes a model file: checks the header, deobfuscates, inflates (stopping at the declared
 * byteLength and at maxAssetBytes), verifies byteLength and sha256 when the metadata has them, and
 * tells GLB from glTF JSON. Every failure is a ContainerError. A file without the magic that does
 * not inflate is 'Unknown file format' (a bare stream has no signature to call it truncated or
 * corrupt by). The caller's bytes are never modified.
 */
export async function decodeContainer(file: Uint8Array, options: DecodeOptions = {}): Promise<DecodedContainer> {
  const maxAssetBytes = checkMaxAssetBytes(options.maxAssetBytes);
  const engine = resolveEngine(options.engine);
  const header = readContainerHeader(file);
  const payload = file.subarray(header.payloadOffset);
  if (payload.length === 0) {
    throw new ContainerError('truncated', 'The model file is truncated: there is no compressed data after its header.');
  }
  const declared = header.metadata?.byteLength ?? null;
  if (declared !== null && declared > maxAssetBytes) {
    throw new ContainerError('too-large', `The model file's metadata declares ${declared} bytes, more than the limit of ${maxAssetBytes} bytes.`);
  }
  if (declared !== null && declared > payload.length * MAX_DEFLATE_RATIO + 1024) {
    // Far more than DEFLATE can expand to: most likely a cut download (or a lying header).
    throw new ContainerError(
      'truncated',
      `The model file is truncated: its metadata declares ${declared} bytes, more than its ${payload.length} bytes of compressed data can hold.`,
    );
  }
  const bare = header.legacy && header.payloadOffset === 0;
  const zlibWrapped = header.legacy && looksLikeZlib(payload);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const seed = header.legacy ? null : keystreamSeed(view.getUint32(7, true), view.getUint32(11, true));

  let asset: Uint8Array;
  try {
    asset = await inflatePayload(engine, payload, seed, { zlibWrapped, limit: declared ?? maxAssetBytes, expected: declared });
  } catch (error) {
    if (!(error instanceof InflateFailure)) throw error;
    // A bare stream has no signature: if it does not inflate, it was never one of ours.
    if (bare && !zlibWrapped && error.reason !== 'limit') throw unknownFormat();
    throw describeFailure(error, declared, maxAssetBytes);
  }

  if (declared !== null && asset.length !== declared) {
    throw new ContainerError('size-mismatch', `The model file's metadata declares ${declared} bytes but the model decompresses to ${asset.length} bytes.`);
  }
  const expectedHash = header.metadata?.sha256;
  if (expectedHash !== undefined) {
    const actual = await sha256Hex(asset);
    if (actual !== expectedHash) {
      throw new ContainerError('checksum-mismatch', `The model file's SHA-256 checksum does not match its content (expected ${expectedHash}, got ${actual}).`);
    }
  }
  const format = detectAssetFormat(asset);
  if (!format) throw unknownFormat();
  return { asset, header, format };
}

function describeFailure(failure: InflateFailure, declared: number | null, maxAssetBytes: number): ContainerError {
  switch (failure.reason) {
    case 'limit':
      return declared !== null
        ? new ContainerError('size-mismatch', `The model file's metadata declares ${declared} bytes but the model decompresses to more than that.`)
        : new ContainerError('too-large', `The model decompresses to more than the limit of ${maxAssetBytes} bytes.`);
    case 'truncated':
      return new ContainerError('truncated', 'The model file is truncated: its compressed data ends before the end of the compressed stream.');
    case 'trailing':
      return new ContainerError(
        'corrupt',
        `The model file is corrupt: it has ${failure.trailingBytes ?? 'some'} unexpected bytes after the end of its compressed data.`,
      );
    case 'corrupt':
      return new ContainerError('corrupt', `The model file is corrupt: its compressed data cannot be decompressed (${failure.message}).`);
  }
}

// ---------------------------------------------------------------------------------------------
// Encode

/**
 * Writes a 1.0.0 container with all four metadata keys (DEFLATE level 9), or with `legacy: true` a
 * plain zlib stream (no header, so timestamp, generator and sourceFileName are not stored). The
 * asset must be GLB or glTF JSON text that parses as an object, else 'Unknown file format'.
 */
export async function encodeContainer(asset: Uint8Array, options: EncodeOptions = {}): Promise<Uint8Array> {
  if (!detectAssetFormat(asset, true)) throw unknownFormat();
  const engine = resolveEngine(options.engine);
  if (options.legacy) return deflate(engine, asset, true);

  const timestamp = options.timestamp ?? Date.now();
  checkTimestamp(timestamp);
  const metadata: ContainerMetadata = {
    generator: options.generator ?? DEFAULT_GENERATOR,
    sourceFileName: options.sourceFileName ?? '',
    byteLength: asset.length,
    sha256: await sha256Hex(asset),
  };
  const metadataBytes = new TextEncoder().encode(JSON.stringify(metadata));
  if (metadataBytes.length > MAX_METADATA_BYTES) {
    throw new ContainerError('bad-metadata', `The container metadata would be ${metadataBytes.length} bytes; the format allows at most ${MAX_METADATA_BYTES}.`);
  }
  const payload = new Uint8Array(await deflate(engine, asset, false)); // own, aligned copy
  const [lo, hi] = splitTimestamp(timestamp);
  xorKeystream(payload, keystreamSeed(lo, hi));

  const file = new Uint8Array(HEADER_SIZE + metadataBytes.length + payload.length);
  const view = new DataView(file.buffer);
  file.set(MAGIC_BYTES, 0);
  file.set(CONTAINER_VERSION.split('.').map(Number), 4);
  view.setUint32(7, lo, true);
  view.setUint32(11, hi, true);
  view.setUint16(15, metadataBytes.length, true);
  file.set(metadataBytes, HEADER_SIZE);
  file.set(payload, HEADER_SIZE + metadataBytes.length);
  return file;
}
