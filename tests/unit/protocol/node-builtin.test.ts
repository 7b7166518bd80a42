import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nodeBuiltin } from '../../../src/protocol/node-builtin.ts';

describe('nodeBuiltin', () => {
  it("gives Node's own module, the same one each time", () => {
    expect(nodeBuiltin<typeof zlib>('node:zlib')?.inflateRawSync).toBe(zlib.inflateRawSync);
    expect(nodeBuiltin('node:zlib')).toBe(nodeBuiltin('node:zlib'));
  });

  it('gives null for a module Node does not have', () => {
    expect(nodeBuiltin('node:no-such-module')).toBeNull();
  });
});
