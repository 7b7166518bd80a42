import { describe, expect, it } from 'vitest';
import { keystreamSeed, obfuscatePayload, deobfuscate, xorKeystream } from '../../../src/protocol/container-obfuscation.ts';

const TIMESTAMP = 1_700_000_000_123;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

describe('obfuscation', () => {
  it('matches hand-computed xorshift32 keystreams', () => {
    // x = 0 ^ 0 ^ 0x9E3779B9 = 0x9E3779B9, then one xorshift step per 4-byte group.
    expect(hex(obfuscatePayload(new Uint8Array(7), 0))).toBe('19460c513e552e');
    // lo ^ hi ^ salt = 0 -> x = 1: 1 ^ 1 << 13 = 0x2001; ^ >>> 17 = 0x2001; ^ << 5 = 0x42021.
    expect(hex(obfuscatePayload(new Uint8Array(5), 0x9e3779b9))).toBe('2120040001');
    // hi32 = 395 takes part: 1700000000000 = 395 * 2^32 + 3567587328.
    expect(hex(obfuscatePayload(new Uint8Array(10), 1_700_000_000_000))).toBe('d8625f691a2b80250b16');
  });

  it('is its own inverse, and unaligned input gives the same bytes', () => {
    const data = Uint8Array.from({ length: 1003 }, (_, i) => (i * 7 + 3) & 255);
    const once = obfuscatePayload(data, TIMESTAMP);
    expect(equalBytes(once, data)).toBe(false);
    expect(equalBytes(obfuscatePayload(once, TIMESTAMP), data)).toBe(true);
    const unaligned = new Uint8Array(data.length + 1);
    unaligned.set(data, 1);
    expect(equalBytes(obfuscatePayload(unaligned.subarray(1), TIMESTAMP), once)).toBe(true);
  });

  it('rejects timestamps that are not non-negative safe integers', () => {
    expect(() => obfuscatePayload(new Uint8Array(4), -1)).toThrow(RangeError);
    expect(() => obfuscatePayload(new Uint8Array(4), 1.5)).toThrow(RangeError);
  });
});

describe('deobfuscate', () => {
  it("gives the payload back without touching the caller's bytes, with and without the scratch buffer", () => {
    const data = Uint8Array.from({ length: 1003 }, (_, i) => (i * 11 + 5) & 255);
    const obfuscated = obfuscatePayload(data, TIMESTAMP);
    const before = obfuscated.slice();
    const seed = keystreamSeed((TIMESTAMP % 0x1_0000_0000) >>> 0, Math.floor(TIMESTAMP / 0x1_0000_0000));
    for (const useScratch of [true, false]) {
      expect(equalBytes(deobfuscate(obfuscated, seed, useScratch), data)).toBe(true);
      expect(equalBytes(obfuscated, before)).toBe(true);
    }
  });

  it('reuses one scratch buffer across calls, and a fresh one without it', () => {
    const a = deobfuscate(new Uint8Array(16), 1, true);
    const b = deobfuscate(new Uint8Array(16), 1, true);
    expect(a.buffer).toBe(b.buffer);
    expect(deobfuscate(new Uint8Array(16), 1, false).buffer).not.toBe(a.buffer);
  });

  it('xors in place with the keystream of the seed: twice gives the input back', () => {
    const data = Uint8Array.from({ length: 9 }, (_, i) => i);
    xorKeystream(data, 12345);
    expect(hex(data)).not.toBe('000102030405060708');
    xorKeystream(data, 12345);
    expect(hex(data)).toBe('000102030405060708');
    expect(keystreamSeed(0x9e3779b9, 0)).toBe(1); // a zero state would stay zero
  });
});
