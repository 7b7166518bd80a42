import { useState } from 'react';
import { useSnapshot } from 'valtio';
import type { EditorUiState } from './editor-state';
import { describeEdit } from '../../editor/saver';
import { LABELS, SCENE_OBJECT_TYPES } from '../../protocol/scene-objects';
import { key, keysOf } from './shortcut-labels';

/** The editor page's toolbar, history and status bar; its outliner and properties panel live beside (./outliner.tsx, ./properties-panel.tsx). */

export { Outliner } from './outliner';
export { PropertiesPanel } from './properties-panel';

export function Toolbar({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  const editor = state.editor;
  const on = !!editor && snap.enabled;
  const mode = (m: 'translate' | 'rotate' | 'scale', label: string) => (
    <button type="button" aria-pressed={snap.gizmo.mode === m} disabled={!on} onClick={() => editor?.setGizmoMode(m)} title={`${label} (${keysOf(`${m}-mode`)})`}>
      {label}
    </button>
  );
  return (
    <header className="editor-toolbar" role="toolbar" aria-label="Editor">
      <a className="editor-home" href="/">
        Scenes
      </a>
      <div className="group">
        {mode('translate', 'Move')}
        {mode('rotate', 'Rotate')}
        {mode('scale', 'Scale')}
        <button type="button" disabled={!on} onClick={() => editor?.setGizmoSpace(snap.gizmo.space === 'world' ? 'local' : 'world')} title="Gizmo axes: world or the node's own">
          {snap.gizmo.space === 'world' ? 'World' : 'Local'}
        </button>
        <button type="button" aria-pressed={snap.boxSelect} disabled={!on} onClick={() => editor?.setBoxSelect(!snap.boxSelect)} title={`Box select instances: drag a rectangle in the view (${key('KeyB')})`} data-testid="box-select-toggle">
          Box select
        </button>
      </div>
      <div className="group">
        <button type="button" disabled={!on || !snap.history.canUndo} onClick={() => editor?.undo()} title={`Undo (${key('Mod+z')})`}>
          Undo
        </button>
        <button type="button" disabled={!on || !snap.history.canRedo} onClick={() => editor?.redo()} title={`Redo (${key('Mod+Shift+z')})`}>
          Redo
        </button>
        <button type="button" disabled={!on || snap.save.status === 'saving'} onClick={() => void editor?.save()} title={`Save (${key('Mod+s')})`} data-testid="save">
          Save
        </button>
      </div>
      <div className="group">
        <AddMenu state={state} disabled={!on} />
      </div>
      <label className="editor-enabled">
        <input type="checkbox" checked={snap.enabled} disabled={!editor} onChange={(e) => (e.target.checked ? editor?.enable() : editor?.disable())} /> Editing
      </label>
    </header>
  );
}

/** The toolbar's "Add…" menu: a light, camera or group, added at its default place and selected. */
function AddMenu({ state, disabled }: { state: EditorUiState; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="add-menu">
      <button type="button" disabled={disabled} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="add-object">
        Add…
      </button>
      {open && !disabled && (
        <ul role="menu" className="menu" onMouseLeave={() => setOpen(false)}>
          {SCENE_OBJECT_TYPES.filter((type) => type !== 'InstancedAssetGroup').map((type) => (
            <li key={type} role="none">
              <button
                type="button"
                role="menuitem"
                data-testid={`add-${type}`}
                onClick={() => {
                  setOpen(false);
                  state.editor?.addObject(type);
                }}
              >
                {LABELS[type]}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function HistoryPanel({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  return (
    <section className="editor-panel history" aria-label="History">
      <h2>History</h2>
      <ol data-testid="history">
        <li className={snap.history.steps.some((s) => s.done) ? '' : 'current'}>
          <button type="button" onClick={() => state.editor?.history.jumpTo(0)} disabled={!snap.enabled}>
            Opened
          </button>
        </li>
        {snap.history.steps.map((step) => (
          <li key={step.id} className={step.done ? 'done' : 'undone'}>
            <button type="button" onClick={() => state.editor?.history.jumpTo(step.id)} disabled={!snap.enabled}>
              {step.name}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

const STATUS_TEXT = { saved: 'All changes saved', unsaved: 'Unsaved changes', saving: 'Saving…', failed: 'Not saved' } as const;

export function StatusBar({ state, sceneId }: { state: EditorUiState; sceneId: string }) {
  const snap = useSnapshot(state);
  const save = snap.save;
  return (
    <footer className={`editor-status ${save.status}`} role="status" aria-live="polite">
      <span data-testid="save-status" data-status={save.status}>
        {STATUS_TEXT[save.status]}
        {save.pending > 0 && save.status !== 'saved' ? ` (${save.pending} edit${save.pending === 1 ? '' : 's'})` : ''}
      </span>
      {save.reason && <span className="reason" data-testid="save-reason">{save.reason}</span>}
      {save.signIn && (
        <a href={`/auth/sign-in?returnTo=${encodeURIComponent(`/edit/${sceneId}`)}`} target="_blank" rel="opener">
          Sign in again
        </a>
      )}
      {save.rejected.length > 0 && (
        <details className="rejected">
          <summary>{save.rejected.length} edit(s) refused by the server</summary>
          <ul>
            {save.rejected.map((r) => (
              <li key={r.mutation.uuid}>
                {describeEdit(r.mutation)}: {r.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <span className="spacer" />
      <a href={`/embed/${encodeURIComponent(sceneId)}`} target="_blank" rel="noopener">
        Open in the viewer
      </a>
    </footer>
  );
}
