import { describe, expect, it } from 'vitest';
import { materialMutation, MutationQueues, nodeMutation, pickListed } from '../../../src/editor/mutation-queue';
import { Mutation } from '../../../src/protocol/mutation';

const m = (nodeId: string, properties: Record<string, unknown>) => nodeMutation('model-1', nodeId, properties)!;

describe('mutations', () => {
  it('raise the specification error texts for missing ids', () => {
    expect(() => nodeMutation(undefined, '1', { visible: false })).toThrow(/^modelId undefined\.$/);
    expect(() => nodeMutation('m', undefined, { visible: false })).toThrow(/^nodeId undefined\.$/);
    expect(() => materialMutation('m', undefined, { roughness: 1 })).toThrow(/^materialId undefined\.$/);
    expect(() => materialMutation('', '1', { roughness: 1 })).toThrow(/^modelId undefined\.$/);
    expect(() => new MutationQueues().add(undefined, m('1', { visible: false }))).toThrow(/^Missing model ID in mutation\.$/);
  });

  it('keep only the listed properties, and make none from unlisted ones', () => {
    expect(pickListed('node', { visible: false, position: [1, 2, 3], userData: {} })).toEqual({ visible: false });
    expect(pickListed('material', { color: 0xff0000, wireframe: true })).toEqual({ color: 0xff0000 });
    expect(nodeMutation('m', '1', { position: [1, 2, 3] })).toBeNull();
    const mutation = m('4', { visible: false, foo: 1 });
    expect(mutation.properties).toEqual({ visible: false });
    // What the queue makes is what the server accepts.
    const { modelId: _ignored, ...wire } = mutation;
    expect(Mutation.safeParse(wire).success).toBe(true);
  });
});

describe('mutations: refused before queuing', () => {
  it('a name longer than the protocol allows or a non-finite number throws a clear error, never a mutation', () => {
    expect(() => nodeMutation('m', 'n', { name: 'x'.repeat(1001) })).toThrow(/The edit was not made: name must be at most 1000 characters/);
    const matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, Number.NaN, 0, 0, 1];
    expect(() => nodeMutation('m', 'n', { matrix })).toThrow(/The edit was not made: matrix.*must be a number/);
    expect(() => materialMutation('m', 'mat', { roughness: Number.POSITIVE_INFINITY })).toThrow(/The edit was not made: .*roughness/);
    expect(nodeMutation('m', 'n', { name: 'x'.repeat(1000) })).not.toBeNull();
  });
});

describe('MutationQueues', () => {
  it('replaces the last mutation of a model when the key is the same, and only the last', () => {
    const q = new MutationQueues();
    q.add('a', m('1', { matrix: new Array(16).fill(1) }));
    const second = m('1', { matrix: new Array(16).fill(2) });
    q.add('a', second);
    expect(q.pending('a')).toHaveLength(1);
    expect(q.pending('a')[0].uuid).toBe(second.uuid);
    q.add('a', m('2', { visible: false }));
    q.add('a', m('1', { matrix: new Array(16).fill(3) }));
    // Not the last any more: a new entry.
    expect(q.pending('a').map((x) => x.key)).toEqual(['node/1/matrix', 'node/2/visible', 'node/1/matrix']);
    // Queues are per model.
    q.add('b', m('1', { matrix: new Array(16).fill(4) }));
    expect(q.pending('a')).toHaveLength(3);
    expect(q.pending('b')).toHaveLength(1);
    expect(q.size).toBe(4);
    expect(q.pending('a')[0]).not.toHaveProperty('modelId');
  });

  it('never replaces a mutation that is being sent, and keeps edits made during a save', () => {
    const q = new MutationQueues();
    q.add('a', m('1', { visible: false }));
    const batch = q.takeBatch('a');
    q.add('a', m('1', { visible: true }));
    expect(q.pending('a')).toHaveLength(2);
    q.remove('a', batch.map((x) => x.uuid));
    expect(q.pending('a').map((x) => ('properties' in x ? x.properties : null))).toEqual([{ visible: true }]);
  });

  it('takes batches of at most the server limit, and restores snapshots', () => {
    const q = new MutationQueues();
    for (let i = 0; i < 5; i++) q.add('a', m(String(i), { visible: false }));
    expect(q.takeBatch('a', 2)).toHaveLength(2);
    const copy = new MutationQueues();
    copy.restore(q.snapshot());
    expect(copy.pending('a').map((x) => ('nodeId' in x ? x.nodeId : null))).toEqual(['0', '1', '2', '3', '4']);
  });

  it('restores old unsaved edits before the current queue, never over a newer edit of the same key', () => {
    const old = new MutationQueues();
    const oldMove = nodeMutation('m', 'a', { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1] })!;
    const oldName = nodeMutation('m', 'b', { name: 'old b' })!;
    old.add('m', oldMove);
    old.add('m', oldName);
    const q = new MutationQueues();
    const newMove = nodeMutation('m', 'a', { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 9, 0, 0, 1] })!;
    q.add('m', newMove);
    const restored = q.restore(old.snapshot());
    expect(q.pending('m').map((m) => m.uuid)).toEqual([oldName.uuid, newMove.uuid]);
    expect(restored).toEqual({ m: [expect.objectContaining({ uuid: oldName.uuid })] });
    // Restoring twice queues nothing twice.
    expect(q.restore(old.snapshot())).toEqual({});
    expect(q.size).toBe(2);
  });
});
