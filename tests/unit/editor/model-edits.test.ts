import { describe, expect, it } from 'vitest';
import type { EditorEventMap, Selection } from '../../../src/editor/editor';
import { createModelEdits, nodeDragStep, recordOf } from '../../../src/editor/model-edits';
import { MutationQueues } from '../../../src/editor/mutation-queue';
import { readNodeProperties } from '../../../src/editor/read-properties';
import { nodeEid } from '../../../src/engine/stable-ids';
import { createViewerWorld } from '../../../src/engine/world';
import { Emitter } from '../../../src/viewer/events';
import { spawnTestModel } from '../../support/test-model';

/** The node and material commands' applier (src/editor/model-edits.ts): live, queued, told. */

function edits() {
  const world = createViewerWorld();
  const record = spawnTestModel(world, [
    { name: 'Casing', mesh: true },
    { name: 'Base', mesh: true },
  ]);
  const queues = new MutationQueues();
  const events = new Emitter<EditorEventMap>();
  const seen: string[] = [];
  events.on('scene', (e) => void seen.push(`scene:${e.outline}`));
  events.on('selection', (s) => void seen.push(`selection:${s?.materialId}`));
  events.on('notice', (n) => void seen.push(`notice:${n.text}`));
  const state = { selection: null as Selection | null };
  return { world, record, queues, seen, state, applier: createModelEdits(world, queues, events, state) };
}

describe('model edits (src/editor/model-edits.ts)', () => {
  it('applies a node change live and queues it; names and visibility re-read the outline, a material the panel', () => {
    const { world, record, queues, seen, applier } = edits();
    applier.applyNode(record.modelId, '1', { name: 'Plinth' });
    expect(world.objects[nodeEid(record, '1')]!.name).toBe('Plinth');
    expect(queues.snapshot()[record.modelId]).toEqual([expect.objectContaining({ type: 'updateNode', nodeId: '1', properties: { name: 'Plinth' } })]);
    expect(queues.snapshot()[record.modelId]![0]).not.toHaveProperty('modelId');
    const other = readNodeProperties(world, record, '0', ['material']).material!;
    applier.applyNode(record.modelId, '1', { material: other });
    expect(seen).toEqual(['scene:true', 'scene:false']);
  });

  it("a material assigned to the selected node becomes the selection's; a material created twice is made once", () => {
    const { world, record, queues, seen, state, applier } = edits();
    state.selection = { modelId: record.modelId, objectId: null, nodeId: '1', name: 'Base', materialId: 'old' };
    const other = readNodeProperties(world, record, '0', ['material']).material!;
    applier.applyNode(record.modelId, '1', { material: other });
    expect(state.selection.materialId).toBe(other);
    expect(seen).toEqual([`selection:${other}`, 'scene:false']);
    applier.createMaterial!(record.modelId, 'm-new', 'Steel', { roughness: 0.3 } as never);
    applier.createMaterial!(record.modelId, 'm-new', 'Steel', { roughness: 0.3 } as never);
    expect(queues.snapshot()[record.modelId]!.filter((m) => m.type === 'createMaterial')).toHaveLength(1);
    applier.applyMaterial(record.modelId, 'm-new', { roughness: 0.6 });
    expect(record.materials.get('m-new')).toMatchObject({ roughness: 0.6 });
  });

  it('a drag of a node is one step named after the node; not a node: none; an unknown model throws', () => {
    const { world, record, applier } = edits();
    const eid = nodeEid(record, '1');
    const before = readNodeProperties(world, record, '1', ['matrix']).matrix!;
    const after = [...before];
    after[12] = 5;
    const step = nodeDragStep(world, applier, eid, before, after, 'Move')!;
    expect(step.name).toBe('Move Base');
    step.execute();
    expect(readNodeProperties(world, record, '1', ['matrix']).matrix![12]).toBe(5);
    expect(nodeDragStep(world, applier, 9999, before, after, 'Move')).toBeNull();
    expect(() => recordOf(world, 'nope')).toThrow("The scene has no model 'nope'.");
  });
});
