import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { availableEngines, deflate, InflateFailure, inflatePayload, looksLikeZlib, resolveEngine } from '../../../src/protocol/container-engines.ts';
import { keystreamSeed, xorKeystream } from '../../../src/protocol/container-obfuscation.ts';

const ENGINES = availableEngines();
const asset = Uint8Array.from({ length: 200_003 }, (_, i) => (i % 251) ^ (i >> 9));

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

async function failure(promise: Promise<unknown>): Promise<InflateFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InflateFailure) return error;
    throw error;
  }
  throw new Error('expected an InflateFailure, got success');
}

describe('engines', () => {
  it('lists node-zlib first and fflate last in Node; auto is the first', () => {
    expect(ENGINES[0]).toBe('node-zlib');
    expect(ENGINES.at(-1)).toBe('fflate');
    expect(resolveEngine()).toBe('node-zlib');
    expect(resolveEngine('fflate')).toBe('fflate');
  });

  it('tells a zlib header from raw DEFLATE', () => {
    expect(looksLikeZlib(zlib.deflateSync(asset))).toBe(true);
    expect(looksLikeZlib(Uint8Array.from([0x78, 0x9c]))).toBe(true);
    expect(looksLikeZlib(Uint8Array.from([0x78, 0x9d]))).toBe(false); // check bits wrong
    expect(looksLikeZlib(Uint8Array.from([0x78]))).toBe(false);
  });
});

describe.each(ENGINES)('the %s engine', (engine) => {
  const job = (limit: number, zlibWrapped = false) => ({ zlibWrapped, limit, expected: null });

  it('deflates raw and zlib-wrapped, and inflates both back', async () => {
    for (const zlibWrapped of [false, true]) {
      const deflated = await deflate(engine, asset, zlibWrapped);
      expect(looksLikeZlib(deflated)).toBe(zlibWrapped);
      expect(equalBytes(await inflatePayload(engine, deflated, null, job(asset.length, zlibWrapped)), asset)).toBe(true);
      expect(equalBytes(await inflatePayload(engine, deflated, null, { zlibWrapped, limit: asset.length, expected: asset.length }), asset)).toBe(true);
    }
  });

  it("deobfuscates first when given a seed, leaving the caller's bytes as they are", async () => {
    const payload = new Uint8Array(zlib.deflateRawSync(asset));
    const seed = keystreamSeed(123, 4);
    xorKeystream(payload, seed);
    const before = payload.slice();
    expect(equalBytes(await inflatePayload(engine, payload, seed, job(asset.length)), asset)).toBe(true);
    expect(equalBytes(payload, before)).toBe(true);
  });

  it('stops at the limit, and names a cut or corrupt stream', async () => {
    const deflated = new Uint8Array(zlib.deflateRawSync(asset));
    expect((await failure(inflatePayload(engine, deflated, null, job(asset.length - 1)))).reason).toBe('limit');
    expect((await failure(inflatePayload(engine, deflated.subarray(0, deflated.length >> 1), null, job(asset.length)))).reason).toBe('truncated');
    expect((await failure(inflatePayload(engine, Uint8Array.from([0xff, 0xff, 0xff, 0xff]), null, job(asset.length)))).reason).toBe('corrupt');
  });
});
