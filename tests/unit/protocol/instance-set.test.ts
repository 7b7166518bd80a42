import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as instances from '../../../src/protocol/instances';
import * as set from '../../../src/protocol/instance-set';

/**
 * The binary set's codec module (its encode and decode are tested with the instance service and in
 * tests/unit/protocol/instances.test.ts): the constants it repeats from src/protocol/instances.ts are
 * the same, and src/protocol/instances.ts (in the embed's first download) does not import it.
 */
describe('instance set codec module', () => {
  it('repeats the group limit, the floats per instance and the MIME type exactly', () => {
    expect(set.MAX_INSTANCES_PER_GROUP).toBe(instances.MAX_INSTANCES_PER_GROUP);
    expect(set.FLOATS_PER_INSTANCE).toBe(instances.FLOATS_PER_INSTANCE);
    expect(set.INSTANCE_SET_MIME).toBe(instances.INSTANCE_SET_MIME);
  });

  it('is not imported by src/protocol/instances.ts (which would put the codec in the first download)', () => {
    const source = readFileSync(new URL('../../../src/protocol/instances.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from '\.\/instance-set(\.ts)?'/);
  });

  it('round-trips a set', () => {
    const bytes = set.encodeInstanceSet({ ids: new Uint32Array([1, 0]), matrices: new Float32Array(24).fill(2), nextId: 2, revision: 7 });
    const back = set.decodeInstanceSet(bytes);
    expect([...back.ids]).toEqual([1, 0]);
    expect(back.revision).toBe(7);
    expect(() => set.decodeInstanceSet(bytes.subarray(0, 10))).toThrow(set.InstanceSetError);
  });
});
