import { describe, expect, it } from 'vitest';
import { hasStableId, indexId, instancedNodeId, instanceSourceId, MATERIAL_ID_KEY, NODE_ID_KEY, primitiveId, stableId } from '../../../src/protocol/stable-ids';

describe('stable ids', () => {
  it('uses the id in the extras when there is a non-empty one, else the index', () => {
    expect(stableId({ nodeId: 'pump' }, NODE_ID_KEY, 3)).toBe('pump');
    expect(stableId({ nodeId: '' }, NODE_ID_KEY, 3)).toBe('3');
    expect(stableId({ nodeId: 7 }, NODE_ID_KEY, 3)).toBe('3');
    expect(stableId(undefined, MATERIAL_ID_KEY, 0)).toBe('0');
    expect(stableId({}, MATERIAL_ID_KEY, -1)).toBeNull();
    expect(indexId(12)).toBe('12');
  });

  it('tells whether extras carry an id', () => {
    expect(hasStableId({ materialId: 'm' }, MATERIAL_ID_KEY)).toBe(true);
    expect(hasStableId({ materialId: '' }, MATERIAL_ID_KEY)).toBe(false);
    expect(hasStableId(null, NODE_ID_KEY)).toBe(false);
  });

  it('names primitives and merged instanced nodes from node ids', () => {
    expect(primitiveId('4', 1)).toBe('4/1');
    expect(instancedNodeId('9')).toBe('instances:9');
  });

  it('finds the source node of an instance of a merged node', () => {
    const extras = { nodeId: 'instances:2', instanceNodeIds: ['2', '5', ''] };
    expect(instanceSourceId(extras, 1)).toBe('5');
    expect(instanceSourceId(extras, 2)).toBeNull();
    expect(instanceSourceId(extras, 3)).toBeNull();
    expect(instanceSourceId({}, 0)).toBeNull();
  });
});
