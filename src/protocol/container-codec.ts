import { Inflate, deflateSync, zlibSync } from 'fflate';
import { ContainerMetadata } from './container.ts';

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

export const CONTAINER_MAGIC = '3DXF';
export const CONTAINER_VERSION = '1.0.0';
export const LEGACY_VERSION = '0.0.0';
/** Fixed part of the header: magic 4, version 3, timestamp 8, metadata length 2. */
export const HEADER_SIZE = 17;
/** The metadata length is a u16. */
export const MAX_METADATA_BYTES = 0xffff;
/** Hard cap on the inflated asset (decompression bombs). */
export const DEFAULT_MAX_ASSET_BYTES = 512 * 1024 * 1024;
export const DEFAULT_GENERATOR = 'parametricos';
/** DEFLATE cannot expand one input byte to more than 1032 output bytes (258-byte matches in 2 bits). */
export const MAX_DEFLATE_RATIO = 1032;

const MAGIC_BYTES = [0x33, 0x44, 0x58, 0x46]; // '3DXF'
const GLB_MAGIC_BYTES = [0x67, 0x6c, 0x54, 0x46]; // 'glTF'
const KEY_SALT = 0x9e3779b9;
const STREAM_SLICE_BYTES = 64 * 1024;
const FFLATE_SLICE_BYTES = 16 * 1024;

// The errors live in ./container-errors.ts (light: the main thread's decoder client needs them
// without this codec and its inflater).
export { CONTAINER_ERROR_CODES, ContainerError, type ContainerErrorCode } from './container-errors.ts';
import { ContainerError } from './container-errors.ts';

const unknownFormat = (): ContainerError => new ContainerError('unknown-format', 'Unknown file format');

export interface ContainerHeader {
  /** 'x.y.z'; '0.0.0' for legacy files, with or without a header. */
  version: string;
  /**
   * Milliseconds since the Unix epoch (0 for legacy files without a header); exact up to 2^53, which
   * every real date is. The keystream is derived from the raw header bytes, not from this number.
   */
  timestamp: number;
  metadata: ContainerMetadata | null;
  legacy: boolean;
  /** Offset of the DEFLATE payload in the file. */
  payloadOffset: number;
}

export type AssetFormat = 'glb' | 'gltf';

export interface DecodedContainer {
  asset: Uint8Array;
  header: ContainerHeader;
  format: AssetFormat;
}

export type CodecEngine = 'auto' | 'node-zlib' | 'stream' | 'fflate';

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
// Asset format

/**
 * 'glb' when the asset starts with the `glTF` magic; 'gltf' when, after an optional UTF-8 byte
 * order mark and JSON whitespace, it starts with `{`. Decoding stops at that cheap prefix test (the
 * glTF loader parses the JSON anyway and reports its own errors); encoding passes `strict` and
 * also requires the whole text to parse as a JSON object, so we never write a container of junk.
 */
export function detectAssetFormat(asset: Uint8Array, strict = false): AssetFormat | null {
  if (asset.length >= 4 && GLB_MAGIC_BYTES.every((b, i) => asset[i] === b)) return 'glb';
  let i = 0;
  if (asset[0] === 0xef && asset[1] === 0xbb && asset[2] === 0xbf) i = 3;
  while (i < asset.length && (asset[i] === 0x20 || asset[i] === 0x09 || asset[i] === 0x0a || asset[i] === 0x0d)) i++;
  if (asset[i] !== 0x7b) return null;
  if (!strict) return 'gltf';
  try {
    const json: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(asset));
    return isPlainObject(json) ? 'gltf' : null;
  } catch {
    return null;
  }
}

/** The bytes as an ArrayBuffer of exactly their length: their own buffer when it fits, else a copy. */
export function toExactArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? buffer
    : bytes.slice().buffer;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Obfuscation

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function keystreamSeed(timestampLo: number, timestampHi: number): number {
  const x = (timestampLo ^ timestampHi ^ KEY_SALT) >>> 0;
  return x === 0 ? 1 : x;
}

/**
 * XORs `data` in place with the xorshift32 keystream: per 4-byte group, x ^= x << 13,
 * x ^= x >>> 17, x ^= x << 5, then the group ^= the little-endian bytes of x (a shorter last group
 * uses the first bytes). Whole groups go through a Uint32Array view when the data is aligned.
 */
function xorKeystream(data: Uint8Array, seed: number): void {
  let x = seed | 0;
  const words = data.length >>> 2;
  if (LITTLE_ENDIAN && data.byteOffset % 4 === 0) {
    const view = new Uint32Array(data.buffer, data.byteOffset, words);
    for (let i = 0; i < words; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      view[i] ^= x;
    }
  } else {
    for (let i = 0, p = 0; i < words; i++, p += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      data[p] ^= x;
      data[p + 1] ^= x >>> 8;
      data[p + 2] ^= x >>> 16;
      data[p + 3] ^= x >>> 24;
    }
  }
  const rest = data.length & 3;
  if (rest) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    for (let k = 0, p = words * 4; k < rest; k++) data[p + k] ^= x >>> (8 * k);
  }
}

function splitTimestamp(timestamp: number): [lo: number, hi: number] {
  return [timestamp % 0x1_0000_0000 >>> 0, Math.floor(timestamp / 0x1_0000_0000) >>> 0];
}

/**
 * The payload obfuscation of DESIGN.md 4.1 for a given timestamp, as a new array. It is its own
 * inverse: applying it twice gives the input back.
 */
export function obfuscatePayload(payload: Uint8Array, timestamp: number): Uint8Array<ArrayBuffer> {
  checkTimestamp(timestamp);
  const [lo, hi] = splitTimestamp(timestamp);
  const copy = new Uint8Array(payload);
  xorKeystream(copy, keystreamSeed(lo, hi));
  return copy;
}

function checkTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`The container timestamp must be a non-negative safe integer, got ${timestamp}.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Node built-ins, reached at run time (browser bundles never import them)

const builtins = new Map<string, unknown>();

/** A Node built-in module through process.getBuiltinModule (Node >= 20.16), or null elsewhere. */
function nodeBuiltin<T>(id: string): T | null {
  if (!builtins.has(id)) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    builtins.set(id, proc?.getBuiltinModule?.(id) ?? null);
  }
  return builtins.get(id) as T | null;
}

/** The part of node:crypto we use. */
interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
}

// ---------------------------------------------------------------------------------------------
// SHA-256

const SHA256_K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const SHA256_H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

function sha256Blocks(h: Int32Array, w: Int32Array, data: Uint8Array, end: number): void {
  for (let p = 0; p < end; p += 64) {
    for (let i = 0; i < 16; i++) {
      const q = p + i * 4;
      w[i] = (data[q] << 24) | (data[q + 1] << 16) | (data[q + 2] << 8) | data[q + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + S1 + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
  }
}

/**
 * SHA-256 in plain JavaScript (FIPS 180-4), for pages where `crypto.subtle` is missing (it exists
 * only in secure contexts). About ten times slower than the native digest.
 */
export function sha256Sync(data: Uint8Array): Uint8Array<ArrayBuffer> {
  const h = new Int32Array(SHA256_H0);
  const w = new Int32Array(64);
  const whole = data.length - (data.length % 64);
  sha256Blocks(h, w, data, whole);
  const rest = data.length - whole;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(data.subarray(whole));
  tail[rest] = 0x80;
  const bits = data.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 0x1_0000_0000));
  view.setUint32(tail.length - 4, bits >>> 0);
  sha256Blocks(h, w, tail, tail.length);
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setInt32(i * 4, h[i]);
  return out;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < bytes.length; i++) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
  return hex;
}

/**
 * Lowercase hex SHA-256: Node's crypto (synchronous, about twice as fast as its WebCrypto, which
 * copies the data and hops to a thread), else WebCrypto, else sha256Sync.
 */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const nodeCrypto = nodeBuiltin<NodeCrypto>('node:crypto');
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(data).digest('hex');
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return toHex(new Uint8Array(await subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>)));
  return toHex(sha256Sync(data));
}

// ---------------------------------------------------------------------------------------------
// Header

function startsWith(file: Uint8Array, bytes: readonly number[]): boolean {
  return bytes.every((b, i) => file[i] === b);
}

const truncatedHeader = (length: number): ContainerError =>
  new ContainerError(
    'truncated',
    `The model file is truncated: it is ${length} bytes long, shorter than the ${HEADER_SIZE}-byte container header.`,
  );

/**
 * Reads and checks the header and metadata without touching the payload. A file without the magic
 * is legacy: version '0.0.0', payload from offset 0.
 */
export function readContainerHeader(file: Uint8Array): ContainerHeader {
  if (file.length === 0) throw new ContainerError('truncated', 'The model file is empty.');
  if (!startsWith(file, MAGIC_BYTES)) {
    // A few bytes of '3DXF' are the start of a container, not a legacy stream.
    if (file.length < MAGIC_BYTES.length && startsWith(file, MAGIC_BYTES.slice(0, file.length))) {
      throw truncatedHeader(file.length);
    }
    return { version: LEGACY_VERSION, timestamp: 0, metadata: null, legacy: true, payloadOffset: 0 };
  }
  if (file.length < 7) throw truncatedHeader(file.length);
  const version = `${file[4]}.${file[5]}.${file[6]}`;
  if (version !== CONTAINER_VERSION && version !== LEGACY_VERSION) {
    throw new ContainerError('unsupported-version', `Unsupported version: ${version}`);
  }
  if (file.length < HEADER_SIZE) throw truncatedHeader(file.length);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const timestamp = view.getUint32(11, true) * 0x1_0000_0000 + view.getUint32(7, true);
  const metadataLength = view.getUint16(15, true);
  const remaining = file.length - HEADER_SIZE;
  if (metadataLength > remaining) {
    throw new ContainerError(
      'truncated',
      `The model file is truncated: the header declares ${metadataLength} bytes of metadata but only ${remaining} remain.`,
    );
  }
  const metadata = metadataLength === 0 ? null : parseMetadata(file.subarray(HEADER_SIZE, HEADER_SIZE + metadataLength));
  return {
    version,
    timestamp,
    metadata,
    legacy: version === LEGACY_VERSION,
    payloadOffset: HEADER_SIZE + metadataLength,
  };
}

function parseMetadata(bytes: Uint8Array): ContainerMetadata {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'it is not valid UTF-8';
    throw new ContainerError('bad-metadata', `The model file's metadata is not valid JSON (${reason}).`);
  }
  if (!isPlainObject(json)) throw new ContainerError('bad-metadata', "The model file's metadata is not a JSON object.");
  const parsed = ContainerMetadata.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'metadata'}: ${issue.message}`);
    throw new ContainerError('bad-metadata', `The model file's metadata is invalid: ${issues.join('; ')}.`);
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------
// Engines

/** The part of node:zlib we use, reached through process.getBuiltinModule (no import). */
interface NodeZlib {
  inflateRawSync(data: Uint8Array, options: NodeInflateOptions): NodeInflateResult;
  inflateSync(data: Uint8Array, options: NodeInflateOptions): NodeInflateResult;
  deflateRawSync(data: Uint8Array, options: { level: number }): Uint8Array;
  deflateSync(data: Uint8Array, options: { level: number }): Uint8Array;
}
interface NodeInflateOptions {
  info: true;
  maxOutputLength: number;
  chunkSize?: number;
}
interface NodeInflateResult {
  buffer: Uint8Array;
  engine: { bytesWritten: number };
}

const nodeZlib = (): NodeZlib | null => nodeBuiltin<NodeZlib>('node:zlib');

let deflateRawStreams: boolean | undefined;
function hasDeflateRawStreams(): boolean {
  if (deflateRawStreams === undefined) {
    try {
      new DecompressionStream('deflate-raw');
      new CompressionStream('deflate-raw');
      deflateRawStreams = true;
    } catch {
      deflateRawStreams = false;
    }
  }
  return deflateRawStreams;
}

/** Engines usable here, fastest first. */
export function availableEngines(): Exclude<CodecEngine, 'auto'>[] {
  const engines: Exclude<CodecEngine, 'auto'>[] = [];
  if (nodeZlib()) engines.push('node-zlib');
  if (hasDeflateRawStreams()) engines.push('stream');
  engines.push('fflate');
  return engines;
}

function resolveEngine(engine: CodecEngine = 'auto'): Exclude<CodecEngine, 'auto'> {
  const available = availableEngines();
  if (engine === 'auto') return available[0];
  if (!available.includes(engine)) throw new Error(`The '${engine}' codec engine is not available on this platform.`);
  return engine;
}

/** Why inflation stopped; decodeContainer turns it into a ContainerError. */
class InflateFailure extends Error {
  constructor(
    readonly reason: 'truncated' | 'corrupt' | 'limit' | 'trailing',
    detail: string,
    /** For 'trailing', when the engine says how many. */
    readonly trailingBytes?: number,
  ) {
    super(detail);
  }
}

interface InflateJob {
  data: Uint8Array;
  zlibWrapped: boolean;
  /** Inflation fails with 'limit' as soon as the output would exceed this. */
  limit: number;
  /** The declared size, when known: the output buffer is allocated once at this size. */
  expected: number | null;
}

/** Collects inflated chunks into one buffer, failing as soon as the limit would be passed. */
class OutputSink {
  private buffer: Uint8Array<ArrayBuffer>;
  private length = 0;

  constructor(
    private readonly limit: number,
    expected: number | null,
  ) {
    this.buffer = new Uint8Array(expected ?? Math.min(limit, 64 * 1024));
  }

  write(chunk: Uint8Array): void {
    const end = this.length + chunk.length;
    if (end > this.limit) throw new InflateFailure('limit', `more than ${this.limit} bytes`);
    if (end > this.buffer.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(end, this.buffer.length * 2)));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = end;
  }

  result(): Uint8Array<ArrayBuffer> {
    return this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length);
  }
}

function inflateWithNodeZlib(zlib: NodeZlib, job: InflateJob): Uint8Array {
  const options: NodeInflateOptions = {
    info: true,
    maxOutputLength: Math.max(1, job.limit),
    // One output chunk when the size is known (no concatenation); +1 so the end of the stream is
    // seen without a second chunk. zlib's default (16 KiB) otherwise.
    ...(job.expected !== null && job.expected < 256 * 1024 * 1024 ? { chunkSize: Math.max(64, job.expected + 1) } : {}),
  };
  let result: NodeInflateResult;
  try {
    result = job.zlibWrapped ? zlib.inflateSync(job.data, options) : zlib.inflateRawSync(job.data, options);
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new InflateFailure('limit', `more than ${job.limit} bytes`);
    if (code === 'Z_BUF_ERROR') throw new InflateFailure('truncated', message ?? 'unexpected end of data');
    throw new InflateFailure('corrupt', message ?? String(error));
  }
  const consumed = result.engine.bytesWritten;
  if (consumed < job.data.length) {
    throw new InflateFailure('trailing', 'bytes after the end of the stream', job.data.length - consumed);
  }
  const out = result.buffer;
  if (out.length > job.limit) throw new InflateFailure('limit', `more than ${job.limit} bytes`);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

async function inflateWithStream(job: InflateJob): Promise<Uint8Array> {
  const stream = new DecompressionStream(job.zlibWrapped ? 'deflate' : 'deflate-raw');
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const sink = new OutputSink(job.limit, job.expected);
  const ignore = (): void => {};
  let stopped = false;
  // Slices, written as the decompressor asks for more: a bomb is caught one slice after the limit.
  const pump = async (): Promise<void> => {
    for (let at = 0; at < job.data.length; at += STREAM_SLICE_BYTES) {
      await writer.ready;
      if (stopped) return;
      writer.write(job.data.subarray(at, at + STREAM_SLICE_BYTES) as Uint8Array<ArrayBuffer>).catch(ignore);
    }
    await writer.close();
  };
  pump().catch(ignore); // a failure here surfaces through the reader
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sink.write(value);
    }
  } catch (error) {
    stopped = true;
    reader.cancel().catch(ignore);
    writer.abort().catch(ignore);
    if (error instanceof InflateFailure) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code;
    if (code === 'Z_BUF_ERROR' || /truncat|unexpected end|end of (file|stream|input)/i.test(message)) {
      throw new InflateFailure('truncated', message);
    }
    if (/junk|after the end|trailing/i.test(message)) throw new InflateFailure('trailing', message);
    throw new InflateFailure('corrupt', message);
  }
  return sink.result();
}

function inflateWithFflate(job: InflateJob): Uint8Array {
  let data = job.data;
  if (job.zlibWrapped) {
    // 2-byte header (checked by the caller, no preset dictionary), raw DEFLATE, Adler-32.
    if (data.length < 6) throw new InflateFailure('truncated', 'zlib stream too short');
    data = data.subarray(2, data.length - 4);
  }
  const sink = new OutputSink(job.limit, job.expected);
  const inflater = new Inflate((chunk) => sink.write(chunk));
  try {
    // The last push is never empty: fflate only reports a premature end on a non-empty final push.
    for (let at = 0; at < data.length; at += FFLATE_SLICE_BYTES) {
      const end = Math.min(data.length, at + FFLATE_SLICE_BYTES);
      inflater.push(data.subarray(at, end), end === data.length);
    }
    if (data.length === 0) throw new InflateFailure('truncated', 'no data');
  } catch (error) {
    if (error instanceof InflateFailure) throw error;
    const { code, message } = error as { code?: number; message?: string };
    throw new InflateFailure(code === 0 ? 'truncated' : 'corrupt', message ?? String(error));
  }
  const out = sink.result();
  if (job.zlibWrapped) {
    const at = job.data.length - 4;
    const stored = ((job.data[at] << 24) | (job.data[at + 1] << 16) | (job.data[at + 2] << 8) | job.data[at + 3]) >>> 0;
    if (adler32(out) !== stored) throw new InflateFailure('corrupt', 'incorrect data check');
  }
  return out;
}

function adler32(data: Uint8Array): number {
  let a = 1, b = 0;
  for (let i = 0; i < data.length; ) {
    const end = Math.min(data.length, i + 5552); // zlib's NMAX: sums stay below 2^32 between reductions
    for (; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Inflates the payload, deobfuscating it first when a seed is given (into our own buffer: the
 * caller's bytes stay as they are). The synchronous engines reuse one scratch buffer for that,
 * which spares Node a payload-sized allocation, zero fill and collection per decode (decode times
 * are measurably steadier); this is safe because they run to completion without yielding. The
 * stream engine awaits, so it gets a buffer of its own, and so does any payload above the scratch
 * cap.
 */
async function inflatePayload(
  engine: Exclude<CodecEngine, 'auto'>,
  payload: Uint8Array,
  seed: number | null,
  job: Omit<InflateJob, 'data'>,
): Promise<Uint8Array> {
  if (engine === 'stream') return inflateWithStream({ ...job, data: seed === null ? payload : deobfuscate(payload, seed, false) });
  const data = seed === null ? payload : deobfuscate(payload, seed, true);
  return engine === 'node-zlib' ? inflateWithNodeZlib(nodeZlib()!, { ...job, data }) : inflateWithFflate({ ...job, data });
}

const SCRATCH_MAX_BYTES = 16 * 1024 * 1024;
let scratch: Uint8Array<ArrayBuffer> | null = null;

function deobfuscate(payload: Uint8Array, seed: number, useScratch: boolean): Uint8Array {
  let data: Uint8Array;
  if (useScratch && payload.length <= SCRATCH_MAX_BYTES) {
    if (!scratch || scratch.length < payload.length) scratch = new Uint8Array(Math.max(payload.length, 1 << 20));
    data = scratch.subarray(0, payload.length);
    data.set(payload);
  } else {
    data = new Uint8Array(payload);
  }
  xorKeystream(data, seed);
  return data;
}

async function deflate(engine: Exclude<CodecEngine, 'auto'>, asset: Uint8Array, zlibWrapped: boolean): Promise<Uint8Array> {
  if (engine === 'node-zlib') {
    const zlib = nodeZlib()!;
    const out = zlibWrapped ? zlib.deflateSync(asset, { level: 9 }) : zlib.deflateRawSync(asset, { level: 9 });
    // A plain Uint8Array that owns exactly its bytes, not a Buffer (whose slice() does not copy).
    return new Uint8Array(toExactArrayBuffer(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)));
  }
  if (engine === 'stream') {
    const stream = new Blob([asset as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream(zlibWrapped ? 'deflate' : 'deflate-raw'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return zlibWrapped ? zlibSync(asset, { level: 9 }) : deflateSync(asset, { level: 9 });
}

/** A zlib stream header (RFC 1950): deflate method, window <= 32K, check bits, no dictionary. */
function looksLikeZlib(data: Uint8Array): boolean {
  return data.length >= 2 && (data[0] & 0x0f) === 8 && data[0] >> 4 <= 7 && ((data[0] << 8) | data[1]) % 31 === 0 && !(data[1] & 0x20);
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
    throw new ContainerError(
      'too-large',
      `The model file's metadata declares ${declared} bytes, more than the limit of ${maxAssetBytes} bytes.`,
    );
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
    throw new ContainerError(
      'size-mismatch',
      `The model file's metadata declares ${declared} bytes but the model decompresses to ${asset.length} bytes.`,
    );
  }
  const expectedHash = header.metadata?.sha256;
  if (expectedHash !== undefined) {
    const actual = await sha256Hex(asset);
    if (actual !== expectedHash) {
      throw new ContainerError(
        'checksum-mismatch',
        `The model file's SHA-256 checksum does not match its content (expected ${expectedHash}, got ${actual}).`,
      );
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
        ? new ContainerError(
            'size-mismatch',
            `The model file's metadata declares ${declared} bytes but the model decompresses to more than that.`,
          )
        : new ContainerError('too-large', `The model decompresses to more than the limit of ${maxAssetBytes} bytes.`);
    case 'truncated':
      return new ContainerError(
        'truncated',
        'The model file is truncated: its compressed data ends before the end of the compressed stream.',
      );
    case 'trailing':
      return new ContainerError(
        'corrupt',
        `The model file is corrupt: it has ${failure.trailingBytes ?? 'some'} unexpected bytes after the end of its compressed data.`,
      );
    case 'corrupt':
      return new ContainerError(
        'corrupt',
        `The model file is corrupt: its compressed data cannot be decompressed (${failure.message}).`,
      );
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
    throw new ContainerError(
      'bad-metadata',
      `The container metadata would be ${metadataBytes.length} bytes; the format allows at most ${MAX_METADATA_BYTES}.`,
    );
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
