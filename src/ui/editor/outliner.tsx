import { useMemo, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { Viewer } from '../../viewer/viewer';
import type { EditorUiState } from './editor-state';
import { createTreeCache, objectRows, outlinerView } from '../../editor/outline';

/** The outliner: the scene's models, nodes and objects as rows, searched, collapsible. */

/** Rows the outliner draws at most (the search narrows a large scene). */
const MAX_ROWS = 400;

const KIND_ICON = { model: '▣', group: '◇', mesh: '△', light: '☀', camera: '⌖', objects: '✦' } as const;

export function Outliner({ state, world }: { state: EditorUiState; world: Viewer['world'] }) {
  const snap = useSnapshot(state);
  const [search, setSearch] = useState('');
  // The model tree is walked once per change of the scene's structure; names and visibility are
  // read for the drawn rows only, when they may have changed (outlineVersion: not at a material
  // slider's ticks).
  const tree = useMemo(() => createTreeCache(world), [world]);
  const outlineVersion = snap.outlineVersion;
  const objects = useMemo(() => objectRows(state.editor?.objects.list() ?? []), [state.editor, outlineVersion]);
  const { rows: shown, matching } = useMemo(() => outlinerView(world, tree.rows(), objects, search, MAX_ROWS), [world, tree, objects, search, outlineVersion]);
  const editor = state.editor;
  return (
    <section className="editor-panel outliner" aria-label="Outliner">
      <h2>Scene</h2>
      <input type="search" placeholder="Search by name" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search nodes by name" />
      <ul role="tree" data-testid="outliner">
        {shown.map((row) => {
          const selected = row.objectId
            ? snap.selection?.objectId === row.objectId
            : snap.selection?.modelId === row.modelId && snap.selection?.nodeId === row.nodeId && row.nodeId !== null;
          return (
            <li
              key={row.key}
              role="treeitem"
              aria-selected={selected}
              className={`${row.kind}${selected ? ' selected' : ''}${row.visible ? '' : ' hidden'}`}
              style={{ paddingLeft: 6 + row.depth * 12 }}
            >
              <button
                type="button"
                className="name"
                onClick={() => (row.objectId ? editor?.selectObject(row.objectId) : row.nodeId && editor?.select(row.modelId, row.nodeId))}
                disabled={!row.nodeId && !row.objectId}
              >
                <span className="kind" aria-hidden="true">
                  {KIND_ICON[row.kind]}
                </span>
                {row.name}
              </button>
              {row.objectId && (
                <button
                  type="button"
                  className="eye"
                  aria-label={`${row.visible ? 'Hide' : 'Show'} ${row.name}`}
                  aria-pressed={!row.visible}
                  disabled={!snap.enabled}
                  onClick={() => editor?.setObject(row.objectId!, { visible: !row.visible }, `${row.visible ? 'Hide' : 'Show'} ${row.name}`)}
                >
                  {row.visible ? '●' : '○'}
                </button>
              )}
              {row.nodeId && (
                <button
                  type="button"
                  className="eye"
                  aria-label={`${row.visible ? 'Hide' : 'Show'} ${row.name}`}
                  aria-pressed={!row.visible}
                  disabled={!snap.enabled}
                  onClick={() => editor?.setNode(row.modelId, row.nodeId!, { visible: !row.visible }, `${row.visible ? 'Hide' : 'Show'} ${row.name}`)}
                >
                  {row.visible ? '●' : '○'}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {matching > shown.length && <p className="more">{matching - shown.length} more: narrow the search.</p>}
    </section>
  );
}
