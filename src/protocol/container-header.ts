import { ContainerMetadata } from './container.ts';
import { ContainerError } from './container-errors.ts';

/**
 * The model container's header (DESIGN.md 4.1): magic, version, timestamp and metadata, read and
 * checked without touching the payload; and the asset format inside (GLB or glTF JSON).
 */

export const CONTAINER_MAGIC = '3DXF';
export const CONTAINER_VERSION = '1.0.0';
export const LEGACY_VERSION = '0.0.0';
/** Fixed part of the header: magic 4, version 3, timestamp 8, metadata length 2. */
export const HEADER_SIZE = 17;
/** The metadata length is a u16. */
export const MAX_METADATA_BYTES = 0xffff;

/** '3DXF' as bytes. */
export const MAGIC_BYTES = [0x33, 0x44, 0x58, 0x46];
const GLB_MAGIC_BYTES = [0x67, 0x6c, 0x54, 0x46]; // 'glTF'

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
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : bytes.slice().buffer;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Header

function startsWith(file: Uint8Array, bytes: readonly number[]): boolean {
  return bytes.every((b, i) => file[i] === b);
}

const truncatedHeader = (length: number): ContainerError =>
  new ContainerError('truncated', `The model file is truncated: it is ${length} bytes long, shorter than the ${HEADER_SIZE}-byte container header.`);

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
    throw new ContainerError('truncated', `The model file is truncated: the header declares ${metadataLength} bytes of metadata but only ${remaining} remain.`);
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
