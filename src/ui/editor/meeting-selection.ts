import type { Editor, Selection } from '../../editor/editor';
import type { Meeting } from '../../meeting/meeting';
import { MAX_SHARED_SELECTION_IDS, type SharedSelection } from '../../protocol/shared-tools';

/** The editor's selection as the meeting carries it: by stable ids, a large instance selection cut to the ids one message holds. */
export function toSharedSelection(selection: Selection | null): SharedSelection {
  if (!selection) return null;
  if (selection.instances) {
    const { groupId, ids } = selection.instances;
    if (ids.length === 0) return null;
    return { kind: 'instances', groupId, ids: ids.slice(0, MAX_SHARED_SELECTION_IDS), count: ids.length };
  }
  if (selection.objectId) return { kind: 'object', uuid: selection.objectId };
  if (!selection.modelId) return null;
  return { kind: 'node', modelId: selection.modelId, nodeId: selection.nodeId };
}

/**
 * The editor page in a meeting: what the editor selects is shown to the others in this person's
 * colour (src/meeting/shared-selection.ts); their selections never change this one. Returns the
 * function that stops (and tells the others nothing is selected any more).
 */
export function shareEditorSelection(editor: Pick<Editor, 'events' | 'selection'>, meeting: Pick<Meeting, 'shareSelection'>): () => void {
  meeting.shareSelection(toSharedSelection(editor.selection));
  const off = editor.events.on('selection', (selection) => meeting.shareSelection(toSharedSelection(selection)));
  return () => {
    off();
    meeting.shareSelection(null);
  };
}
