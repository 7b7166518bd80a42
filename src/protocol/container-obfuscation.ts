/**
 * The payload obfuscation of DESIGN.md 4.1: the DEFLATE payload XORed with a xorshift32 keystream
 * seeded from the header's timestamp.
 */

const KEY_SALT = 0x9e3779b9;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The keystream's seed from the header's two timestamp words. */
export function keystreamSeed(timestampLo: number, timestampHi: number): number {
  const x = (timestampLo ^ timestampHi ^ KEY_SALT) >>> 0;
  return x === 0 ? 1 : x;
}

/**
 * XORs `data` in place with the xorshift32 keystream: per 4-byte group, x ^= x << 13,
 * x ^= x >>> 17, x ^= x << 5, then the group ^= the little-endian bytes of x (a shorter last group
 * uses the first bytes). Whole groups go through a Uint32Array view when the data is aligned.
 */
export function xorKeystream(data: Uint8Array, seed: number): void {
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

export function splitTimestamp(timestamp: number): [lo: number, hi: number] {
  return [(timestamp % 0x1_0000_0000) >>> 0, Math.floor(timestamp / 0x1_0000_0000) >>> 0];
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

export function checkTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`The container timestamp must be a non-negative safe integer, got ${timestamp}.`);
  }
}

const SCRATCH_MAX_BYTES = 16 * 1024 * 1024;
let scratch: Uint8Array<ArrayBuffer> | null = null;

/**
 * The payload deobfuscated into our own buffer (the caller's bytes stay as they are); with
 * `useScratch`, a reused one (see inflatePayload).
 */
export function deobfuscate(payload: Uint8Array, seed: number, useScratch: boolean): Uint8Array {
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
