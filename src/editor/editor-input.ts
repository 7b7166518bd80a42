import type { Viewer } from '../viewer/viewer';
import type { Editor } from './editor';

/**
 * The editor's input: selection by a click (the viewer's 'hit' / 'background-hit', raised for
 * clicks no tool took) and the editor context of the one key map. A key is taken only while the
 * editor is enabled; `snap.held` follows the key map's snapping key (Shift) during a gizmo drag.
 * Returns the removals.
 */
export function bindEditorInput(viewer: Viewer, editor: Editor, snap: { held: boolean }): (() => void)[] {
  const when = (fn: () => void) => () => {
    if (!editor.enabled) return false;
    fn();
    return true;
  };
  return [
    viewer.events.on('hit', (hit) => {
      if (!editor.enabled || editor.gizmo.dragging) return;
      if (hit.groupId && hit.instanceId !== null) return void editor.selectInstances(hit.groupId, [hit.instanceId]);
      if (!hit.modelId) return;
      editor.select(hit.modelId, hit.nodeId);
    }),
    viewer.events.on('background-hit', () => {
      if (editor.enabled && !editor.gizmo.dragging) editor.select(null);
    }),
    viewer.keys.bind(
      'undo',
      when(() => editor.undo()),
    ),
    viewer.keys.bind(
      'redo',
      when(() => editor.redo()),
    ),
    viewer.keys.bind(
      'save',
      when(() => void editor.save()),
    ),
    viewer.keys.bind(
      'translate-mode',
      when(() => editor.setGizmoMode('translate')),
    ),
    viewer.keys.bind(
      'rotate-mode',
      when(() => editor.setGizmoMode('rotate')),
    ),
    viewer.keys.bind(
      'scale-mode',
      when(() => editor.setGizmoMode('scale')),
    ),
    viewer.keys.bind('copy', () => {
      if (!editor.enabled || !editor.selection) return false;
      editor.copySelection();
      return true;
    }),
    viewer.keys.bind('delete', () => {
      if (!editor.enabled || (!editor.selection?.nodeId && !editor.selection?.objectId)) return false;
      editor.deleteSelection();
      return true;
    }),
    viewer.keys.bind(
      'box-select',
      when(() => editor.setBoxSelect(!editor.boxSelect)),
    ),
    viewer.keys.bind('gizmo-snap', (press) => {
      if (!press.pressed) {
        snap.held = false;
        return true;
      }
      if (!editor.enabled || (!editor.gizmo.eid && !editor.gizmo.instances)) return false;
      snap.held = true;
      return true;
    }),
  ];
}
