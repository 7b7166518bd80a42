import { describe, expect, it } from 'vitest';
import { NodeTreeEntry, Ok, SectionInfo, Vec3Out } from '../../../src/protocol/host-api-results';

describe('host API results', () => {
  it('reads a node tree of any depth', () => {
    const leaf = { nodeId: 'b', name: 'B', type: 'Mesh', children: [] };
    const tree = { nodeId: 'a', name: 'A', type: 'Group', children: [{ ...leaf, children: [leaf] }] };
    expect(NodeTreeEntry.parse(tree)).toEqual(tree);
    expect(NodeTreeEntry.safeParse({ ...tree, children: [{ nodeId: 'b' }] }).success).toBe(false);
  });

  it('reads a section plane and the small shapes the functions share', () => {
    expect(SectionInfo.parse({ id: 1, normal: [0, 1, 0], constant: -2 })).toEqual({ id: 1, normal: [0, 1, 0], constant: -2 });
    expect(Vec3Out.safeParse([1, 2]).success).toBe(false);
    expect(Ok.safeParse({ ok: false }).success).toBe(false);
    expect(Ok.parse({ ok: true })).toEqual({ ok: true });
  });
});
