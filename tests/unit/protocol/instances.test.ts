import { describe, expect, it } from 'vitest';
import { FLOATS_PER_INSTANCE, noInstanceError, packMatrix, unpackMatrix, unpackMatrices } from '../../../src/protocol/instances';
import { ApplyInstanceChangesRequest } from '../../../src/protocol/instance-changes';
import { INSTANCE_SET_HEADER, InstanceSetError, decodeInstanceSet, encodeInstanceSet } from '../../../src/protocol/instance-set';

function set(count: number) {
  const ids = new Uint32Array(count);
  const matrices = new Float32Array(count * FLOATS_PER_INSTANCE);
  for (let i = 0; i < count; i++) {
    ids[i] = count - i; // slot order is not id order
    packMatrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, i, i * 2, -i, 1], matrices, i);
  }
  return { ids, matrices, nextId: count + 1, revision: 7 };
}

describe('instance sets', () => {
  it('round-trips ids, matrices, nextId and revision in 52 bytes an instance', () => {
    const file = encodeInstanceSet(set(1000));
    const back = decodeInstanceSet(file);
    expect(back.ids).toEqual(set(1000).ids);
    expect(back.matrices).toEqual(set(1000).matrices);
    expect(back.nextId).toBe(1001);
    expect(back.revision).toBe(7);
    expect(file.length).toBe(INSTANCE_SET_HEADER + 1000 * 52);
    const flagged = file.slice();
    flagged[5] = 1;
    expect(() => decodeInstanceSet(flagged)).toThrow('Unsupported instance set flags 1');
  });

  it('decodes from an unaligned offset of a shared buffer', () => {
    const file = encodeInstanceSet(set(3));
    const shared = new Uint8Array(file.length + 1);
    shared.set(file, 1);
    expect(decodeInstanceSet(shared.subarray(1)).ids).toEqual(new Uint32Array([3, 2, 1]));
  });

  it('unpacks many instances at once into three.js 4x4s', () => {
    const packed = new Float32Array(FLOATS_PER_INSTANCE * 2);
    packMatrix([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 1], packed, 1);
    const out = unpackMatrices(packed, new Float32Array(32).fill(NaN), 2);
    expect(Array.from(out.subarray(16))).toEqual([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 1]);
    expect(Array.from(out.subarray(0, 16))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('packs and unpacks three.js matrices', () => {
    const packed = new Float32Array(FLOATS_PER_INSTANCE * 2);
    const m = [1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 1];
    packMatrix(m, packed, 1);
    const out = new Array<number>(16).fill(NaN);
    unpackMatrix(packed, 1, out);
    expect(out).toEqual(m);
  });

  it('refuses a wrong magic, a truncated body, an id at or above nextId and a non-finite value', () => {
    const good = encodeInstanceSet(set(4));
    const bad = good.slice();
    bad[0] = 0x58;
    expect(() => decodeInstanceSet(bad)).toThrow(/magic 'XXIS'/);
    expect(() => decodeInstanceSet(good.subarray(0, good.length - 1))).toThrow(/truncated/);
    expect(() => decodeInstanceSet(encodeInstanceSet({ ...set(4), nextId: 4 }))).toThrow(/not below nextId 4/);
    const nan = set(2);
    nan.matrices[5] = NaN;
    expect(() => decodeInstanceSet(encodeInstanceSet(nan))).toThrow(InstanceSetError);
  });
});

describe('instance changes', () => {
  const base = { uuid: 'c1', createdAt: 1, groupId: 'g1' };
  it('accepts set, add and remove and names what is wrong', () => {
    expect(ApplyInstanceChangesRequest.parse({ changes: [{ ...base, type: 'setInstances', ids: [5], matrices: new Array(12).fill(0) }] }).changes).toHaveLength(1);
    expect(() => ApplyInstanceChangesRequest.parse({ changes: [{ ...base, type: 'addInstances', ids: [5], matrices: [1, 2] }] })).toThrow(/12 numbers per id/);
    expect(() => ApplyInstanceChangesRequest.parse({ changes: [{ ...base, type: 'removeInstances', ids: [1, 1] }] })).toThrow(/must not repeat/);
    expect(() => ApplyInstanceChangesRequest.parse({ changes: [{ ...base, type: 'moveInstances', ids: [1] }] })).toThrow(/type must be/);
    expect(() => ApplyInstanceChangesRequest.parse({ changes: [{ ...base, groupId: undefined, type: 'removeInstances', ids: [1] }] })).toThrow(/groupId undefined\./);
  });
  it("speaks the spec's error for an unknown id", () => {
    expect(noInstanceError(42).message).toBe('No instance found with id 42');
  });
});
