import { describe, expect, it } from 'vitest';
import type { EditorEventMap, Selection } from '../../../../src/editor/editor';
import { MAX_SHARED_SELECTION_IDS, type SharedSelection } from '../../../../src/protocol/shared-tools';
import { shareEditorSelection, toSharedSelection } from '../../../../src/ui/editor/meeting-selection';
import { Emitter } from '../../../../src/viewer/events';

const node: Selection = { modelId: 'office', objectId: null, nodeId: 'chair', name: 'Chair', materialId: 'wood' };

describe("the editor's selection in a meeting", () => {
  it('goes by stable ids: a node, a scene object, instances (cut to what a message holds, with the count)', () => {
    expect(toSharedSelection(null)).toBeNull();
    expect(toSharedSelection(node)).toEqual({ kind: 'node', modelId: 'office', nodeId: 'chair' });
    expect(toSharedSelection({ ...node, nodeId: null })).toEqual({ kind: 'node', modelId: 'office', nodeId: null });
    expect(toSharedSelection({ modelId: '', objectId: 'lamp', nodeId: null, name: 'Lamp', materialId: null })).toEqual({ kind: 'object', uuid: 'lamp' });
    const ids = Array.from({ length: 600 }, (_, i) => i * 2);
    expect(toSharedSelection({ modelId: '', objectId: 'g', nodeId: null, name: '600 instances', materialId: null, instances: { groupId: 'g', ids } })).toEqual({
      kind: 'instances',
      groupId: 'g',
      ids: ids.slice(0, MAX_SHARED_SELECTION_IDS),
      count: 600,
    });
  });

  it('is shared at once and on every change, and cleared when sharing stops', () => {
    const events = new Emitter<EditorEventMap>();
    const shared: SharedSelection[] = [];
    const stop = shareEditorSelection({ events, selection: node }, { shareSelection: (s) => void shared.push(s) });
    events.emit('selection', { modelId: '', objectId: 'lamp', nodeId: null, name: 'Lamp', materialId: null });
    events.emit('selection', null);
    stop();
    events.emit('selection', node);
    expect(shared).toEqual([{ kind: 'node', modelId: 'office', nodeId: 'chair' }, { kind: 'object', uuid: 'lamp' }, null, null]);
  });
});
