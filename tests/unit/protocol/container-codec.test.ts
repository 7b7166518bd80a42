import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ContainerError, DEFAULT_MAX_ASSET_BYTES, decodeContainer, encodeContainer, type ContainerErrorCode } from '../../../src/protocol/container-codec.ts';
import { availableEngines } from '../../../src/protocol/container-engines.ts';
import { CONTAINER_MAGIC, CONTAINER_VERSION, HEADER_SIZE, LEGACY_VERSION, readContainerHeader } from '../../../src/protocol/container-header.ts';
import { obfuscatePayload } from '../../../src/protocol/container-obfuscation.ts';
import { sha256Hex, sha256Sync } from '../../../src/protocol/sha256.ts';
import { answerDecodeRequest, type DecodeReply } from '../../../src/scene/container-worker.ts';
import {
  decodeContainerInWorker,
  decodeContainerOnMainThread,
  terminateContainerWorker,
} from '../../../src/scene/container-client.ts';

const MODELS = fileURLToPath(new URL('../../../../shared/models/', import.meta.url));
const GLB_NAMES = readdirSync(MODELS).filter((name) => name.endsWith('.glb')).sort();
const ENGINES = availableEngines();
const TIMESTAMP = 1_700_000_000_123;

function model(name: string): Uint8Array {
  return new Uint8Array(readFileSync(MODELS + name));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

async function rejection(promise: Promise<unknown>): Promise<ContainerError> {
  let outcome: unknown;
  try {
    await promise;
  } catch (error) {
    outcome = error;
  }
  if (!(outcome instanceof ContainerError)) {
    throw new Error(`expected a ContainerError, got ${outcome === undefined ? 'success' : String(outcome)}`);
  }
  return outcome;
}

async function expectError(promise: Promise<unknown>, code: ContainerErrorCode, message?: string | RegExp): Promise<void> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
}

interface ContainerParts {
  version?: [number, number, number];
  timestamp?: number;
  /** An object (written as JSON), raw bytes, or null for no metadata. */
  metadata?: Record<string, unknown> | Uint8Array | null;
  /** Raw DEFLATE (or, for 0.0.0, any stream); obfuscated here unless the version is 0.0.0. */
  payload: Uint8Array;
  /** Overrides the metadata length field. */
  metadataLength?: number;
}

/** Builds a container by hand from DESIGN.md 4.1, independently of encodeContainer. */
function buildContainer(parts: ContainerParts): Uint8Array {
  const version = parts.version ?? [1, 0, 0];
  const timestamp = parts.timestamp ?? TIMESTAMP;
  const metadata =
    parts.metadata instanceof Uint8Array
      ? parts.metadata
      : parts.metadata
        ? new TextEncoder().encode(JSON.stringify(parts.metadata))
        : new Uint8Array(0);
  const legacy = version.every((v) => v === 0);
  const payload = legacy ? parts.payload : obfuscatePayload(parts.payload, timestamp);
  const file = new Uint8Array(HEADER_SIZE + metadata.length + payload.length);
  const view = new DataView(file.buffer);
  file.set(new TextEncoder().encode(CONTAINER_MAGIC), 0);
  file.set(version, 4);
  view.setBigUint64(7, BigInt(timestamp), true);
  view.setUint16(15, parts.metadataLength ?? metadata.length, true);
  file.set(metadata, HEADER_SIZE);
  file.set(payload, HEADER_SIZE + metadata.length);
  return file;
}

function fullMetadata(asset: Uint8Array): Record<string, unknown> {
  return {
    generator: 'test',
    sourceFileName: 'x.glb',
    byteLength: asset.length,
    sha256: Buffer.from(sha256Sync(asset)).toString('hex'),
  };
}

/** LSB-first bit writer for hand-made DEFLATE streams. */
class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private count = 0;

  bits(value: number, length: number): this {
    for (let i = 0; i < length; i++) this.bit((value >>> i) & 1);
    return this;
  }

  /** A Huffman code, most significant bit first. */
  code(value: number, length: number): this {
    for (let i = length - 1; i >= 0; i--) this.bit((value >>> i) & 1);
    return this;
  }

  private bit(b: number): void {
    this.acc |= b << this.count;
    if (++this.count === 8) {
      this.bytes.push(this.acc);
      this.acc = 0;
      this.count = 0;
    }
  }

  get bitLength(): number {
    return this.bytes.length * 8 + this.count;
  }

  finish(): Uint8Array {
    if (this.count) this.bytes.push(this.acc);
    return Uint8Array.from(this.bytes);
  }
}

/**
 * A raw DEFLATE stream of zeros, `blocks` fixed-Huffman blocks of 65534 matches (258 bytes at
 * distance 1) each: about 16.9 MB out per 106 KB in. Every block ends on a byte boundary
 * (3 + 13 * 65534 + 7 bits, and the first one's leading literal keeps that), so the body is one
 * block repeated.
 */
function deflateBomb(blocks: number): { stream: Uint8Array; inflatedBytes: number } {
  const matches = 65534; // = 6 mod 8: byte-aligned blocks
  const block = (literal: boolean): Uint8Array => {
    const w = new BitWriter().bits(0, 1).bits(1, 2); // not final, fixed Huffman
    if (literal) w.code(0x30, 8); // literal 0
    for (let i = 0; i < matches; i++) w.code(0xc5, 8).code(0, 5); // length 258, distance 1
    w.code(0, 7); // end of block
    expect(w.bitLength % 8).toBe(0);
    return w.finish();
  };
  const first = block(true);
  const next = block(false);
  const last = new BitWriter().bits(1, 1).bits(1, 2).code(0, 7).finish(); // final, empty
  const stream = new Uint8Array(first.length + next.length * (blocks - 1) + last.length);
  stream.set(first, 0);
  for (let i = 1; i < blocks; i++) stream.set(next, first.length + next.length * (i - 1));
  stream.set(last, stream.length - last.length);
  return { stream, inflatedBytes: 1 + blocks * matches * 258 };
}

describe('encodeContainer', () => {
  it('writes the header and all four metadata keys of DESIGN.md 4.1', async () => {
    const asset = model('Cameras.glb');
    const file = await encodeContainer(asset, { timestamp: 0x0102_0304_0506, sourceFileName: 'Cameras.glb' });
    expect(new TextDecoder().decode(file.subarray(0, 4))).toBe('3DXF');
    expect([...file.subarray(4, 7)]).toEqual([1, 0, 0]);
    expect([...file.subarray(7, 15)]).toEqual([0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0]);
    const metadataLength = file[15] | (file[16] << 8);
    const metadata = JSON.parse(new TextDecoder().decode(file.subarray(17, 17 + metadataLength)));
    expect(metadata).toEqual({
      generator: 'parametricos',
      sourceFileName: 'Cameras.glb',
      byteLength: asset.length,
      sha256: await sha256Hex(asset),
    });
    // The payload is raw DEFLATE under the keystream: undo both with other tools.
    const deflated = obfuscatePayload(file.subarray(17 + metadataLength), 0x0102_0304_0506);
    expect(equalBytes(zlib.inflateRawSync(deflated), asset)).toBe(true);
  });

  it('writes a legacy file as a plain zlib stream', async () => {
    const asset = model('Cameras.glb');
    const file = await encodeContainer(asset, { legacy: true });
    expect(equalBytes(zlib.inflateSync(file), asset)).toBe(true);
  });

  it('takes a generator and defaults the timestamp to now', async () => {
    const before = Date.now();
    const file = await encodeContainer(model('Cameras.glb'), { generator: 'importer 2' });
    const header = readContainerHeader(file);
    expect(header.metadata?.generator).toBe('importer 2');
    expect(header.timestamp).toBeGreaterThanOrEqual(before);
    expect(header.timestamp).toBeLessThanOrEqual(Date.now());
  });

  it('refuses an asset that is neither GLB nor glTF JSON', async () => {
    for (const asset of [new TextEncoder().encode('hello'), new TextEncoder().encode('{not json'), new Uint8Array(0)]) {
      await expectError(encodeContainer(asset), 'unknown-format', 'Unknown file format');
      await expectError(encodeContainer(asset, { legacy: true }), 'unknown-format', 'Unknown file format');
    }
  });

  it('refuses metadata longer than the 16-bit length allows', async () => {
    await expectError(encodeContainer(model('Cameras.glb'), { sourceFileName: 'x'.repeat(70_000) }), 'bad-metadata');
  });

  it.each(ENGINES)('encodes with the %s engine', async (engine) => {
    const asset = model('Duck.glb');
    for (const legacy of [false, true]) {
      const file = await encodeContainer(asset, { engine, legacy });
      expect(equalBytes((await decodeContainer(file)).asset, asset)).toBe(true);
    }
  });
});

describe('round trip of every model', () => {
  const files = new Map<string, Uint8Array>();
  beforeAll(async () => {
    for (const name of GLB_NAMES) files.set(name, await encodeContainer(model(name), { timestamp: TIMESTAMP, sourceFileName: name }));
  }, 120_000);

  it('finds the models', () => {
    expect(GLB_NAMES.length).toBeGreaterThan(10);
  });

  describe.each(ENGINES)('with the %s engine', (engine) => {
    it.each(GLB_NAMES)('%s', async (name) => {
      const asset = model(name);
      const { asset: decoded, header, format } = await decodeContainer(files.get(name)!, { engine });
      expect(format).toBe('glb');
      expect(equalBytes(decoded, asset)).toBe(true);
      expect(header).toEqual({
        version: CONTAINER_VERSION,
        timestamp: TIMESTAMP,
        legacy: false,
        payloadOffset: expect.any(Number),
        metadata: { generator: 'parametricos', sourceFileName: name, byteLength: asset.length, sha256: await sha256Hex(asset) },
      });
    });
  });
});

describe.each(ENGINES)('decodeContainer with the %s engine', (engine) => {
  const decode = (file: Uint8Array, maxAssetBytes?: number) => decodeContainer(file, { engine, maxAssetBytes });
  const asset = model('BoxAnimated.glb');
  const deflated = new Uint8Array(zlib.deflateRawSync(asset));

  it('decodes a glTF JSON asset', async () => {
    const gltf = new TextEncoder().encode('\uFEFF\n  {"asset":{"version":"2.0"},"scenes":[]}');
    const decoded = await decode(await encodeContainer(gltf, { sourceFileName: 'a.gltf' }));
    expect(decoded.format).toBe('gltf');
    expect(equalBytes(decoded.asset, gltf)).toBe(true);
    expect(decoded.header.metadata?.sourceFileName).toBe('a.gltf');
  });

  it('decodes legacy files: zlib-wrapped and raw DEFLATE, without a header', async () => {
    for (const file of [zlib.deflateSync(asset), zlib.deflateRawSync(asset), zlib.deflateRawSync(asset, { level: 0 })]) {
      const decoded = await decode(new Uint8Array(file));
      expect(decoded.format).toBe('glb');
      expect(equalBytes(decoded.asset, asset)).toBe(true);
      expect(decoded.header).toEqual({ version: LEGACY_VERSION, timestamp: 0, metadata: null, legacy: true, payloadOffset: 0 });
    }
  });

  it('decodes a 0.0.0 header with metadata followed by an unobfuscated stream', async () => {
    for (const payload of [zlib.deflateSync(asset), zlib.deflateRawSync(asset)]) {
      const file = buildContainer({ version: [0, 0, 0], metadata: fullMetadata(asset), payload: new Uint8Array(payload) });
      const decoded = await decode(file);
      expect(equalBytes(decoded.asset, asset)).toBe(true);
      expect(decoded.header.version).toBe('0.0.0');
      expect(decoded.header.legacy).toBe(true);
      expect(decoded.header.timestamp).toBe(TIMESTAMP);
      expect(decoded.header.metadata?.byteLength).toBe(asset.length);
    }
    const wrongHash = { ...fullMetadata(asset), sha256: '0'.repeat(64) };
    await expectError(decode(buildContainer({ version: [0, 0, 0], metadata: wrongHash, payload: deflated })), 'checksum-mismatch');
  });

  it("leaves the caller's bytes as they are, also with decodes running side by side", async () => {
    const names = ['BoxAnimated.glb', 'Duck.glb', 'Fox.glb', 'Cameras.glb'];
    const files = await Promise.all(names.map((name) => encodeContainer(model(name), { timestamp: TIMESTAMP })));
    const copies = files.map((file) => file.slice());
    const decoded = await Promise.all([...files, ...files].map((file) => decode(file)));
    decoded.forEach(({ asset: bytes }, i) => expect(equalBytes(bytes, model(names[i % names.length]))).toBe(true));
    files.forEach((file, i) => expect(equalBytes(file, copies[i])).toBe(true));
  });

  it('decodes a 1.0.0 container without metadata', async () => {
    const decoded = await decode(buildContainer({ metadata: null, payload: deflated }));
    expect(equalBytes(decoded.asset, asset)).toBe(true);
    expect(decoded.header.metadata).toBeNull();
  });

  it('keeps unknown metadata keys', async () => {
    const metadata = { ...fullMetadata(asset), future: { nested: [1, 2] } };
    const decoded = await decode(buildContainer({ metadata, payload: deflated }));
    expect(decoded.header.metadata).toEqual(metadata);
  });

  it('rejects other versions with the specification text', async () => {
    for (const version of [[2, 0, 0], [1, 0, 1], [0, 1, 0], [255, 255, 255]] as [number, number, number][]) {
      await expectError(decode(buildContainer({ version, payload: deflated })), 'unsupported-version', `Unsupported version: ${version.join('.')}`);
    }
  });

  it("rejects a payload that is neither GLB nor glTF JSON with 'Unknown file format'", async () => {
    const text = new TextEncoder().encode('solid cube\nendsolid cube\n');
    const notAModel = new Uint8Array(zlib.deflateRawSync(text));
    await expectError(decode(buildContainer({ metadata: fullMetadata(text), payload: notAModel })), 'unknown-format', 'Unknown file format');
    await expectError(decode(new Uint8Array(zlib.deflateSync(text))), 'unknown-format', 'Unknown file format');
    // No magic and no DEFLATE stream at all: a bare GLB, random bytes.
    await expectError(decode(asset), 'unknown-format', 'Unknown file format');
    const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24);
    await expectError(decode(random), 'unknown-format', 'Unknown file format');
  });

  describe('truncation', () => {
    let file: Uint8Array;
    let payloadOffset: number;
    beforeAll(async () => {
      file = await encodeContainer(asset, { timestamp: TIMESTAMP, sourceFileName: 'BoxAnimated.glb' });
      payloadOffset = readContainerHeader(file).payloadOffset;
    });

    it('rejects a file cut at every header boundary with a clear message', async () => {
      await expectError(decode(file.subarray(0, 0)), 'truncated', 'The model file is empty.');
      for (const length of [1, 3, 4, 6, 7, 14, 15, 16]) {
        await expectError(
          decode(file.subarray(0, length)),
          'truncated',
          `The model file is truncated: it is ${length} bytes long, shorter than the 17-byte container header.`,
        );
      }
      const metadataLength = payloadOffset - HEADER_SIZE;
      for (const length of [17, 40, payloadOffset - 1]) {
        await expectError(
          decode(file.subarray(0, length)),
          'truncated',
          `The model file is truncated: the header declares ${metadataLength} bytes of metadata but only ${length - HEADER_SIZE} remain.`,
        );
      }
      await expectError(decode(file.subarray(0, payloadOffset)), 'truncated', /no compressed data/);
    });

    it('rejects every length from 0 to the header, metadata and 64 payload bytes', async () => {
      for (let length = 0; length <= payloadOffset + 64; length++) {
        const error = await rejection(decode(file.slice(0, length)));
        expect(error.code, `length ${length}: ${error.message}`).toBe('truncated');
      }
    });

    it('rejects cuts throughout the payload, up to the last byte', async () => {
      const lengths = [];
      for (let length = payloadOffset + 65; length < file.length - 8; length += 97) lengths.push(length);
      for (let cut = 8; cut >= 1; cut--) lengths.push(file.length - cut);
      for (const length of lengths) {
        const error = await rejection(decode(file.slice(0, length)));
        expect(error.code, `length ${length}: ${error.message}`).toBe('truncated');
        expect(error.message).toBe('The model file is truncated: its compressed data ends before the end of the compressed stream.');
      }
    });
  });

  it('rejects metadata whose length points past the end of the file', async () => {
    const file = buildContainer({ metadata: fullMetadata(asset), payload: deflated, metadataLength: 0xffff });
    const remaining = file.length - HEADER_SIZE;
    await expectError(
      decode(file),
      'truncated',
      `The model file is truncated: the header declares 65535 bytes of metadata but only ${remaining} remain.`,
    );
  });

  it('rejects metadata that is not valid JSON of the right shape', async () => {
    const bad: (Uint8Array | Record<string, unknown>)[] = [
      new TextEncoder().encode('{"byteLength": 12'),
      new TextEncoder().encode('[1, 2, 3]'),
      new TextEncoder().encode('42'),
      Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]), // not UTF-8
      { byteLength: -1 },
      { byteLength: 1.5 },
      { byteLength: '12' },
      { sha256: 'ABCDEF' },
      { sha256: 'A'.repeat(64) },
      { generator: 7 },
      { sourceFileName: null },
    ];
    for (const metadata of bad) {
      const error = await rejection(decode(buildContainer({ metadata, payload: deflated })));
      expect(error.code).toBe('bad-metadata');
      expect(error.message).toMatch(/^The model file's metadata is/);
    }
  });

  it('rejects a sha256 mismatch', async () => {
    const metadata = { ...fullMetadata(asset), sha256: 'f'.repeat(64) };
    await expectError(decode(buildContainer({ metadata, payload: deflated })), 'checksum-mismatch', /SHA-256 checksum does not match/);
  });

  it('rejects a declared byteLength that is shorter or longer than the asset', async () => {
    for (const byteLength of [asset.length - 1, 1000, 0]) {
      await expectError(
        decode(buildContainer({ metadata: { ...fullMetadata(asset), byteLength }, payload: deflated })),
        'size-mismatch',
        `The model file's metadata declares ${byteLength} bytes but the model decompresses to more than that.`,
      );
    }
    for (const byteLength of [asset.length + 1, asset.length * 2]) {
      await expectError(
        decode(buildContainer({ metadata: { ...fullMetadata(asset), byteLength }, payload: deflated })),
        'size-mismatch',
        `The model file's metadata declares ${byteLength} bytes but the model decompresses to ${asset.length} bytes.`,
      );
    }
  });

  it('rejects a declared byteLength that the payload cannot hold, before inflating', async () => {
    const byteLength = deflated.length * 1032 + 1025;
    await expectError(
      decode(buildContainer({ metadata: { byteLength }, payload: deflated })),
      'truncated',
      `The model file is truncated: its metadata declares ${byteLength} bytes, more than its ${deflated.length} bytes of compressed data can hold.`,
    );
  });

  it('rejects a declared byteLength or an asset above maxAssetBytes', async () => {
    await expectError(decode(buildContainer({ metadata: fullMetadata(asset), payload: deflated }), 1000), 'too-large', /more than the limit of 1000 bytes/);
    await expectError(decode(buildContainer({ metadata: null, payload: deflated }), 1000), 'too-large', /more than the limit of 1000 bytes/);
    await expectError(decode(new Uint8Array(zlib.deflateSync(asset)), 1000), 'too-large');
    // At exactly the asset's size the limit lets it through, byte for byte.
    const atLimit = await decode(buildContainer({ metadata: null, payload: deflated }), asset.length);
    expect(equalBytes(atLimit.asset, asset)).toBe(true);
    expect(atLimit.format).toBe('glb');
  });

  describe('decompression bombs', () => {
    // About 2 GiB of zeros from 13 MB: inflating it all would take seconds and gigabytes.
    const bomb = deflateBomb(128);

    it('the bomb is a valid DEFLATE stream of zeros', () => {
      const small = deflateBomb(2);
      const zeros = zlib.inflateRawSync(small.stream);
      expect(zeros.length).toBe(small.inflatedBytes);
      expect(zeros.every((b) => b === 0)).toBe(true);
      expect(bomb.inflatedBytes).toBeGreaterThan(2 ** 31);
    });

    it('stops at the declared byteLength', async () => {
      const file = buildContainer({ metadata: { byteLength: 1000 }, payload: bomb.stream });
      await expectError(decode(file), 'size-mismatch', /declares 1000 bytes but the model decompresses to more than that/);
    });

    it('stops at maxAssetBytes without a byteLength', async () => {
      await expectError(decode(buildContainer({ metadata: null, payload: bomb.stream }), 1 << 20), 'too-large');
      await expectError(decode(bomb.stream, 1 << 20), 'too-large'); // legacy, no header
    });

    it('applies the default cap to a declared byteLength before inflating', async () => {
      const byteLength = DEFAULT_MAX_ASSET_BYTES + 1;
      await expectError(
        decode(buildContainer({ metadata: { byteLength }, payload: bomb.stream })),
        'too-large',
        `The model file's metadata declares ${byteLength} bytes, more than the limit of ${DEFAULT_MAX_ASSET_BYTES} bytes.`,
      );
    });
  });

  it('rejects corrupt compressed data', async () => {
    const corrupt = deflated.slice();
    corrupt.fill(0xff, 10, 40);
    await expectError(decode(buildContainer({ metadata: fullMetadata(asset), payload: corrupt })), 'corrupt', /^The model file is corrupt/);
  });
});

describe('bytes after the compressed stream', () => {
  it('are rejected by the node-zlib engine', async () => {
    const asset = model('Cameras.glb');
    const payload = new Uint8Array([...zlib.deflateRawSync(asset), 1, 2, 3]);
    await expectError(
      decodeContainer(buildContainer({ metadata: fullMetadata(asset), payload }), { engine: 'node-zlib' }),
      'corrupt',
      'The model file is corrupt: it has 3 unexpected bytes after the end of its compressed data.',
    );
  });
});

describe.each(ENGINES)('bit flips with the %s engine', (engine) => {
  // Every flip must either be rejected or leave the asset byte for byte intact: never a silently
  // different model. The format has no header checksum, so a flip inside a metadata key or the
  // generator or sourceFileName string changes nothing the reader checks; and DEFLATE has bits that
  // do not change the output (padding after the last block, or a match distance changed to another
  // place holding the same bytes). Flips in the fixed header (the timestamp is the keystream key)
  // and in the byteLength and sha256 values must all be rejected.
  const asset = model('BoxAnimated.glb');
  let file: Uint8Array;
  let payloadOffset: number;
  let checked: [number, number][]; // byte ranges where every flip must be rejected
  beforeAll(async () => {
    file = await encodeContainer(asset, { timestamp: TIMESTAMP, sourceFileName: 'BoxAnimated.glb' });
    payloadOffset = readContainerHeader(file).payloadOffset;
    const json = new TextDecoder().decode(file.subarray(HEADER_SIZE, payloadOffset));
    const valueRange = (key: string): [number, number] => {
      const start = json.indexOf(`"${key}":`) + key.length + 3;
      const end = start + JSON.stringify(JSON.parse(json)[key]).length;
      return [HEADER_SIZE + start, HEADER_SIZE + end];
    };
    checked = [[0, HEADER_SIZE], valueRange('byteLength'), valueRange('sha256')];
  });

  const flipAndDecode = async (position: number, bit: number): Promise<'rejected' | 'intact'> => {
    const flipped = file.slice();
    flipped[position] ^= 1 << bit;
    try {
      const decoded = await decodeContainer(flipped, { engine });
      expect(equalBytes(decoded.asset, asset), `flip at ${position}:${bit} gave a different asset`).toBe(true);
      return 'intact';
    } catch (error) {
      expect(error, `flip at ${position}:${bit}`).toBeInstanceOf(ContainerError);
      return 'rejected';
    }
  };

  it('rejects every flip in the header and the checked metadata values, and leaves no flip undetected', async () => {
    const positions = new Set<number>();
    for (let p = 0; p < payloadOffset; p++) positions.add(p);
    const step = Math.max(1, Math.floor((file.length - payloadOffset) / (engine === 'node-zlib' ? 2000 : 300)));
    for (let p = payloadOffset; p < file.length; p += step) positions.add(p);
    positions.add(file.length - 1);
    let payloadFlips = 0;
    let payloadRejected = 0;
    for (const position of positions) {
      const mustReject = checked.some(([start, end]) => position >= start && position < end);
      for (let bit = 0; bit < 8; bit++) {
        const outcome = await flipAndDecode(position, bit);
        if (mustReject) expect(outcome, `flip at ${position}:${bit}`).toBe('rejected');
        if (position >= payloadOffset) {
          payloadFlips++;
          if (outcome === 'rejected') payloadRejected++;
        }
      }
    }
    expect(payloadRejected / payloadFlips).toBeGreaterThan(0.95);
  }, 120_000);
});

describe('container worker', () => {
  it('answers a request with the asset, transferred', async () => {
    const asset = model('Cameras.glb');
    const file = await encodeContainer(asset);
    const { reply, transfer } = await answerDecodeRequest({ id: 7, buffer: file.buffer });
    if ('error' in reply) throw new Error(reply.error.message);
    expect(reply.id).toBe(7);
    expect(reply.format).toBe('glb');
    expect(equalBytes(new Uint8Array(reply.asset), asset)).toBe(true);
    expect(transfer).toEqual([reply.asset]);
    expect(reply.asset.byteLength).toBe(asset.length);
  });

  it('answers a failure with its message and code', async () => {
    const file = buildContainer({ version: [3, 1, 4], payload: new Uint8Array(4) });
    const { reply, transfer } = await answerDecodeRequest({ id: 8, buffer: file.buffer });
    expect(reply).toEqual({ id: 8, error: { message: 'Unsupported version: 3.1.4', code: 'unsupported-version' } });
    expect(transfer).toEqual([]);
  });

  it('passes maxAssetBytes on', async () => {
    const file = await encodeContainer(model('Cameras.glb'));
    const { reply } = await answerDecodeRequest({ id: 9, buffer: file.buffer, maxAssetBytes: 10 });
    expect(reply).toMatchObject({ id: 9, error: { code: 'too-large' } });
  });

  it('answers malformed requests too', async () => {
    expect((await answerDecodeRequest({ id: 3 })).reply).toMatchObject({ id: 3, error: { code: 'internal' } });
    expect((await answerDecodeRequest('nonsense')).reply).toMatchObject({ id: -1, error: { code: 'internal' } });
  });
});

describe('container client', () => {
  type Mode = 'answer' | 'hold';
  class FakeWorker {
    static instances: FakeWorker[] = [];
    static mode: Mode = 'answer';
    onmessage: ((event: { data: DecodeReply }) => void) | null = null;
    onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null;
    onmessageerror: (() => void) | null = null;
    held: unknown[] = [];
    terminated = false;

    constructor(
      readonly url: URL,
      readonly options: { type: string },
    ) {
      FakeWorker.instances.push(this);
    }

    postMessage(message: { buffer: ArrayBuffer }, transfer: ArrayBuffer[]): void {
      expect(transfer).toEqual([message.buffer]);
      const copy = { ...message, buffer: message.buffer.slice(0) }; // what the worker receives
      if (FakeWorker.mode === 'hold') this.held.push(copy);
      else void this.answer(copy);
    }

    async answer(message: unknown): Promise<void> {
      const { reply } = await answerDecodeRequest(message);
      if (!this.terminated) this.onmessage?.({ data: reply });
    }

    terminate(): void {
      this.terminated = true;
    }
  }

  const realWorker = (globalThis as { Worker?: unknown }).Worker;
  const installFake = (): void => {
    (globalThis as { Worker?: unknown }).Worker = FakeWorker;
  };
  afterEach(() => {
    terminateContainerWorker();
    (globalThis as { Worker?: unknown }).Worker = realWorker;
    FakeWorker.instances = [];
    FakeWorker.mode = 'answer';
  });

  it('decodes in one shared module worker', async () => {
    installFake();
    const asset = model('Cameras.glb');
    const first = await decodeContainerInWorker((await encodeContainer(asset)).slice().buffer);
    const second = await decodeContainerInWorker((await encodeContainer(asset, { legacy: true })).slice().buffer);
    expect(equalBytes(new Uint8Array(first.asset), asset)).toBe(true);
    expect(first.format).toBe('glb');
    expect(second.header.legacy).toBe(true);
    expect(FakeWorker.instances).toHaveLength(1);
    expect(FakeWorker.instances[0].url.pathname).toMatch(/container-worker\.ts$/);
    expect(FakeWorker.instances[0].options).toEqual({ type: 'module' });
  });

  it('matches replies to requests by id, in any order', async () => {
    installFake();
    FakeWorker.mode = 'hold';
    const names = ['Cameras.glb', 'Box-draco.glb', 'MultipleScenes.glb'];
    const promises = [];
    for (const name of names) promises.push(decodeContainerInWorker((await encodeContainer(model(name))).slice().buffer));
    const worker = FakeWorker.instances[0];
    for (const message of [...worker.held].reverse()) await worker.answer(message);
    const results = await Promise.all(promises);
    results.forEach((result, i) => expect(equalBytes(new Uint8Array(result.asset), model(names[i]))).toBe(true));
  });

  it('rejects with a ContainerError carrying the message and code', async () => {
    installFake();
    const file = buildContainer({ version: [2, 0, 0], payload: new Uint8Array(4) });
    const error = await rejection(decodeContainerInWorker(file.slice().buffer));
    expect(error.code).toBe('unsupported-version');
    expect(error.message).toBe('Unsupported version: 2.0.0');
  });

  it('rejects every pending request when the worker fails, and starts a new one next time', async () => {
    installFake();
    FakeWorker.mode = 'hold';
    const file = await encodeContainer(model('Cameras.glb'));
    const pending = [decodeContainerInWorker(file.slice().buffer), decodeContainerInWorker(file.slice().buffer)];
    FakeWorker.instances[0].onerror?.({ message: 'boom', preventDefault: () => {} });
    for (const request of pending) {
      const error = await rejection(request);
      expect(error.code).toBe('worker-failed');
      expect(error.message).toMatch(/worker failed: boom/);
    }
    expect(FakeWorker.instances[0].terminated).toBe(true);
    FakeWorker.mode = 'answer';
    await expect(decodeContainerInWorker(file.slice().buffer)).resolves.toMatchObject({ format: 'glb' });
    expect(FakeWorker.instances).toHaveLength(2);
  });

  it('rejects pending requests when a reply cannot be read', async () => {
    installFake();
    FakeWorker.mode = 'hold';
    const request = decodeContainerInWorker((await encodeContainer(model('Cameras.glb'))).slice().buffer);
    FakeWorker.instances[0].onmessageerror?.();
    expect((await rejection(request)).code).toBe('worker-failed');
  });

  it('decodes on the main thread where there are no workers', async () => {
    (globalThis as { Worker?: unknown }).Worker = undefined;
    const asset = model('Cameras.glb');
    const result = await decodeContainerInWorker((await encodeContainer(asset)).slice().buffer);
    expect(equalBytes(new Uint8Array(result.asset), asset)).toBe(true);
    expect(result.asset.byteLength).toBe(asset.length);
    const direct = await decodeContainerOnMainThread((await encodeContainer(asset)).slice().buffer);
    expect(direct.format).toBe('glb');
  });
});
