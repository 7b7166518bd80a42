import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Editor } from '../../src/editor/editor';
import { createEditorUiState, type EditorUiState } from '../../src/ui/editor/editor-state';

/** The editor page's panels rendered to HTML in Node, with a state whose editor is a fake. */

export function panelState(editor: Partial<Editor> | null, fields: Partial<EditorUiState> = {}): EditorUiState {
  const state = createEditorUiState();
  Object.assign(state, fields);
  state.editor = editor as Editor | null;
  return state;
}

export function html<P extends object>(component: FunctionComponent<P>, props: P): string {
  return renderToStaticMarkup(createElement(component, props));
}
