/**
 * Structural checks of a glTF asset before it reaches three's GLTFLoader, which tolerates some
 * broken files (wrong lengths, duplicate chunks, a BIN chunk first) and would then draw garbage or
 * fail later with an obscure message. Each failure is an Error with a sentence a person can act on.
 */

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'

/** Keeps a byte order mark so that it can be refused (glTF forbids one). */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

export class ModelFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelFormatError';
  }
}

export interface GltfJson {
  asset?: { version?: unknown; minVersion?: unknown };
  buffers?: { byteLength?: unknown; uri?: unknown }[];
  [key: string]: unknown;
}

export interface CheckedAsset {
  json: GltfJson;
  /** Length of the BIN chunk's data, or -1 when there is none. */
  binLength: number;
}

/** Validates a GLB's header and chunk layout and returns its parsed JSON. */
export function checkGlb(bytes: Uint8Array): CheckedAsset {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12) throw new ModelFormatError(`The GLB file is ${bytes.byteLength} bytes long, shorter than its 12-byte header.`);
  if (view.getUint32(0, true) !== GLB_MAGIC) throw new ModelFormatError('The file does not start with the GLB magic "glTF".');
  const version = view.getUint32(4, true);
  if (version !== 2) throw new ModelFormatError(`The GLB container version is ${version}; only version 2 is supported.`);
  const length = view.getUint32(8, true);
  // Bytes after the declared length are ignored (the validator only warns about them).
  if (length <= 12) throw new ModelFormatError(`The GLB header declares a length of ${length} bytes, too short to hold a JSON chunk.`);
  if (length > bytes.byteLength) {
    throw new ModelFormatError(`The GLB header declares ${length} bytes but the file has ${bytes.byteLength}.`);
  }
  let offset = 12;
  let json: GltfJson | null = null;
  let binLength = -1;
  let index = 0;
  while (offset < length) {
    if (offset + 8 > length) throw new ModelFormatError(`GLB chunk ${index} is cut off inside its 8-byte header.`);
    const chunkLength = view.getUint32(offset, true);
    const chunkType = view.getUint32(offset + 4, true);
    const start = offset + 8;
    if (chunkLength % 4 !== 0) throw new ModelFormatError(`GLB chunk ${index} has length ${chunkLength}, which is not a multiple of 4.`);
    if (start + chunkLength > length) {
      throw new ModelFormatError(`GLB chunk ${index} declares ${chunkLength} bytes but only ${length - start} remain in the file.`);
    }
    if (index === 0) {
      if (chunkType !== CHUNK_JSON) throw new ModelFormatError('The first GLB chunk must be the JSON chunk.');
      if (chunkLength === 0) throw new ModelFormatError('The GLB JSON chunk is empty.');
      json = parseJson(UTF8.decode(bytes.subarray(start, start + chunkLength)));
    } else if (chunkType === CHUNK_JSON) {
      throw new ModelFormatError('The GLB file has more than one JSON chunk.');
    } else if (chunkType === CHUNK_BIN) {
      if (binLength >= 0) throw new ModelFormatError('The GLB file has more than one BIN chunk.');
      if (index !== 1) throw new ModelFormatError('The GLB BIN chunk must directly follow the JSON chunk.');
      binLength = chunkLength;
    }
    // Unknown chunk types are skipped, as the glTF specification allows.
    offset = start + chunkLength;
    index++;
  }
  if (!json) throw new ModelFormatError('The GLB file has no JSON chunk.');
  checkJson(json, binLength);
  return { json, binLength };
}

/** Validates a glTF JSON asset (embedded resources only: the container carries one file). */
export function checkGltfJson(bytes: Uint8Array): CheckedAsset {
  const json = parseJson(UTF8.decode(bytes));
  checkJson(json, -1);
  return { json, binLength: -1 };
}

function parseJson(text: string): GltfJson {
  if (text.charCodeAt(0) === 0xfeff) throw new ModelFormatError('The glTF JSON starts with a byte order mark, which glTF forbids.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ModelFormatError(`The glTF JSON cannot be parsed: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ModelFormatError('The glTF JSON is not an object.');
  return value as GltfJson;
}

function checkJson(json: GltfJson, binLength: number): void {
  const version = json.asset?.version;
  if (typeof version !== 'string') throw new ModelFormatError('The glTF asset has no asset.version.');
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (!Number.isFinite(major) || major < 2) {
    throw new ModelFormatError(`The glTF asset version is ${version}; version 2.0 or higher is required.`);
  }
  const buffers = json.buffers ?? [];
  if (!Array.isArray(buffers)) throw new ModelFormatError('glTF buffers must be an array.');
  buffers.forEach((buffer, i) => {
    const byteLength = buffer?.byteLength;
    if (typeof byteLength !== 'number' || !Number.isInteger(byteLength) || byteLength < 1) {
      throw new ModelFormatError(`glTF buffer ${i} has no valid byteLength.`);
    }
    const uri = buffer.uri;
    if (uri === undefined) {
      // Only buffer 0 can be the BIN chunk; another buffer without uri is a placeholder (the
      // fallback buffer of EXT_meshopt_compression, for one) that the loader never reads.
      if (i !== 0) return;
      if (binLength < 0) throw new ModelFormatError('glTF buffer 0 refers to the GLB BIN chunk, but the file has none.');
      if (byteLength > binLength) {
        throw new ModelFormatError(`glTF buffer 0 declares ${byteLength} bytes but the BIN chunk holds ${binLength}.`);
      }
    } else if (typeof uri !== 'string') {
      throw new ModelFormatError(`glTF buffer ${i} has a uri that is not a string.`);
    } else if (uri.startsWith('data:')) {
      const decoded = dataUriLength(uri);
      if (decoded === null) throw new ModelFormatError(`glTF buffer ${i} has a malformed data URI.`);
      if (decoded !== byteLength) throw new ModelFormatError(`glTF buffer ${i} declares ${byteLength} bytes but its data URI holds ${decoded}.`);
    } else {
      throw new ModelFormatError(`glTF buffer ${i} refers to an external file "${uri.slice(0, 80)}", which a model container cannot carry.`);
    }
  });
}

/** Byte length of a data URI's payload, or null when it is malformed. */
function dataUriLength(uri: string): number | null {
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const data = uri.slice(comma + 1);
  if (!/;base64$/i.test(uri.slice(0, comma))) {
    try {
      return new TextEncoder().encode(decodeURIComponent(data)).byteLength;
    } catch {
      return null;
    }
  }
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return null;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}
