import { proxy, ref } from 'valtio';
import type { Editor, Selection } from '../../editor/editor';
import type { HistoryStep } from '../../editor/history';
import type { SaveState } from '../../editor/saver';
import type { GizmoMode, GizmoSpace } from '../../editor/gizmo';

/** Who may edit the open scene, as the page found out. */
export type Access =
  | { kind: 'checking' }
  | { kind: 'signed-out' }
  | { kind: 'editor'; userName: string; /** The scene's owner (who alone sets its sharing and hostOrigins). */ owner: boolean }
  | { kind: 'may-duplicate'; userName: string }
  | { kind: 'forbidden'; userName: string; reason: string };

/** The editor page's one store, fed by the editor's events (bindEditorState). */
export interface EditorUiState {
  access: Access;
  enabled: boolean;
  selection: Selection | null;
  history: { steps: HistoryStep[]; canUndo: boolean; canRedo: boolean };
  save: SaveState;
  gizmo: { mode: GizmoMode; space: GizmoSpace };
  /** Box selection of instances is on. */
  boxSelect: boolean;
  /** Bumped when the scene settings changed: the scene panel re-reads. */
  settingsVersion: number;
  /** Bumped at every change of the scene: the properties panel re-reads. */
  sceneVersion: number;
  /** Bumped when names, visibility or scene objects change: the outliner re-reads (a material slider's ticks do not). */
  outlineVersion: number;
  notices: { id: number; text: string }[];
  restorable: { count: number; savedAt: number } | null;
  editor: Editor | null;
}

export function createEditorUiState(): EditorUiState {
  return proxy<EditorUiState>({
    access: { kind: 'checking' },
    enabled: false,
    selection: null,
    history: { steps: [], canUndo: false, canRedo: false },
    save: { status: 'saved', reason: null, signIn: false, pending: 0, rejected: [], retryAt: null },
    gizmo: { mode: 'translate', space: 'world' },
    boxSelect: false,
    sceneVersion: 0,
    outlineVersion: 0,
    settingsVersion: 0,
    notices: [],
    restorable: null,
    editor: null,
  });
}

let nextNotice = 1;
export function addEditorNotice(state: EditorUiState, text: string): void {
  // The same notice again (a redo of the same change) is not stacked.
  if (state.notices[state.notices.length - 1]?.text === text) return;
  state.notices.push({ id: nextNotice++, text });
  if (state.notices.length > 5) state.notices.shift();
}

/** Keeps the store current from the editor's events; returns the unsubscribe. */
export function bindEditorState(editor: Editor, state: EditorUiState): () => void {
  state.editor = ref(editor);
  state.enabled = editor.enabled;
  state.restorable = editor.restorable;
  state.gizmo = { mode: editor.gizmo.mode, space: editor.gizmo.space };
  state.save = { ...editor.saver.state, rejected: [...editor.saver.state.rejected] };
  const offs = [
    editor.events.on('enabled', (e) => (state.enabled = e.enabled)),
    editor.events.on('selection', (s) => (state.selection = s ? { ...s } : null)),
    editor.events.on('history', (h) => (state.history = h)),
    editor.events.on('save', (s) => (state.save = s)),
    editor.events.on('gizmo', (g) => (state.gizmo = g)),
    editor.events.on('box-select', (b) => (state.boxSelect = b.on)),
    editor.events.on('scene', ({ outline }) => {
      state.sceneVersion++;
      if (outline) state.outlineVersion++;
      state.restorable = editor.restorable;
    }),
    editor.events.on('settings', () => state.settingsVersion++),
    editor.events.on('notice', (n) => addEditorNotice(state, n.text)),
  ];
  return () => {
    for (const off of offs) off();
    state.editor = null;
  };
}
