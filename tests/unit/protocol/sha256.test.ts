import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256Sync } from '../../../src/protocol/sha256.ts';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('sha256', () => {
  it('matches the FIPS 180-2 vectors', () => {
    expect(hex(sha256Sync(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256Sync(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('the JavaScript fallback agrees with the native digests at every padding boundary', async () => {
    for (const length of [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 100_003]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 255);
      const webCrypto = hex(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
      expect(hex(sha256Sync(data)), `length ${length}`).toBe(webCrypto);
      expect(await sha256Hex(data), `length ${length}`).toBe(webCrypto);
    }
  });
});
