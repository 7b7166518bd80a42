import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContainerError } from '../../../src/protocol/container-errors.ts';
import {
  CONTAINER_MAGIC,
  HEADER_SIZE,
  LEGACY_VERSION,
  MAGIC_BYTES,
  detectAssetFormat,
  readContainerHeader,
  toExactArrayBuffer,
} from '../../../src/protocol/container-header.ts';

const MODELS = fileURLToPath(new URL('../../../../shared/models/', import.meta.url));

function model(name: string): Uint8Array {
  return new Uint8Array(readFileSync(MODELS + name));
}

describe('detectAssetFormat', () => {
  const text = (s: string): Uint8Array => new TextEncoder().encode(s);

  it('tells GLB from glTF JSON (after a BOM and whitespace) from anything else', () => {
    expect(detectAssetFormat(model('Box-draco.glb'))).toBe('glb');
    expect(detectAssetFormat(text('{"asset":{}}'))).toBe('gltf');
    expect(detectAssetFormat(text('\uFEFF \r\n\t{"asset":{}}'))).toBe('gltf');
    expect(detectAssetFormat(text('[1,2]'))).toBeNull();
    expect(detectAssetFormat(text('hello'))).toBeNull();
    expect(detectAssetFormat(new Uint8Array(0))).toBeNull();
  });

  it('decoding looks at the first character only; encoding requires a JSON object', () => {
    expect(detectAssetFormat(text('{not json'))).toBe('gltf');
    expect(detectAssetFormat(text('{not json'), true)).toBeNull();
    expect(detectAssetFormat(text(' {"a":1}'), true)).toBe('gltf');
  });
});

describe('readContainerHeader', () => {
  const header = (version: number[], timestamp: bigint, metadata: string): Uint8Array => {
    const json = new TextEncoder().encode(metadata);
    const file = new Uint8Array(HEADER_SIZE + json.length + 3);
    const view = new DataView(file.buffer);
    file.set(MAGIC_BYTES, 0);
    file.set(version, 4);
    view.setBigUint64(7, timestamp, true);
    view.setUint16(15, json.length, true);
    file.set(json, HEADER_SIZE);
    return file;
  };

  it('reads the version, the 64-bit timestamp and the metadata, and where the payload starts', () => {
    expect(new TextDecoder().decode(Uint8Array.from(MAGIC_BYTES))).toBe(CONTAINER_MAGIC);
    const json = '{"generator":"g","byteLength":3}';
    const file = header([1, 0, 0], 1_700_000_000_123n, json);
    expect(readContainerHeader(file)).toEqual({
      version: '1.0.0',
      timestamp: 1_700_000_000_123,
      metadata: { generator: 'g', byteLength: 3 },
      legacy: false,
      payloadOffset: HEADER_SIZE + json.length,
    });
    expect(readContainerHeader(header([0, 0, 0], 0n, ''))).toMatchObject({ version: LEGACY_VERSION, legacy: true, metadata: null, payloadOffset: HEADER_SIZE });
  });

  it('takes a file without the magic as a legacy stream from offset 0', () => {
    expect(readContainerHeader(Uint8Array.from([0x78, 0x9c, 1, 2]))).toEqual({
      version: LEGACY_VERSION,
      timestamp: 0,
      metadata: null,
      legacy: true,
      payloadOffset: 0,
    });
  });

  it('refuses an empty or cut header, another version and broken metadata, with their codes', () => {
    const code = (file: Uint8Array): string => {
      try {
        readContainerHeader(file);
      } catch (error) {
        expect(error).toBeInstanceOf(ContainerError);
        return (error as ContainerError).code;
      }
      return 'read';
    };
    expect(code(new Uint8Array(0))).toBe('truncated');
    expect(code(Uint8Array.from(MAGIC_BYTES.slice(0, 2)))).toBe('truncated');
    expect(code(header([1, 0, 0], 0n, '').subarray(0, HEADER_SIZE - 1))).toBe('truncated');
    expect(code(header([2, 0, 0], 0n, ''))).toBe('unsupported-version');
    expect(code(header([1, 0, 0], 0n, '[1]'))).toBe('bad-metadata');
    expect(code(header([1, 0, 0], 0n, '{"byteLength":"x"}'))).toBe('bad-metadata');
    const long = header([1, 0, 0], 0n, '{}');
    new DataView(long.buffer).setUint16(15, 500, true);
    expect(code(long)).toBe('truncated');
  });
});

describe('toExactArrayBuffer', () => {
  it('gives a whole array its own buffer and copies a view of part of one', () => {
    const whole = new Uint8Array([1, 2, 3]);
    expect(toExactArrayBuffer(whole)).toBe(whole.buffer);
    const part = new Uint8Array(new ArrayBuffer(8), 2, 3);
    part.set([7, 8, 9]);
    const exact = toExactArrayBuffer(part);
    expect(exact).not.toBe(part.buffer);
    expect([...new Uint8Array(exact)]).toEqual([7, 8, 9]);
  });
});
