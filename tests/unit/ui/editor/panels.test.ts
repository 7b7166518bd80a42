import { describe, expect, it } from 'vitest';
import { HistoryPanel, Outliner, PropertiesPanel, StatusBar, Toolbar } from '../../../../src/ui/editor/panels';
import { Outliner as OutlinerItself } from '../../../../src/ui/editor/outliner';
import { PropertiesPanel as PropertiesItself } from '../../../../src/ui/editor/properties-panel';
import { html, panelState } from '../../../support/editor-panels';

describe("the editor page's bars", () => {
  it('the toolbar is disabled until there is an editor that is enabled', () => {
    const off = html(Toolbar, { state: panelState(null) });
    expect(off).toContain('data-testid="save"');
    expect(off.match(/<button[^>]*data-testid="save"[^>]*>/)![0]).toContain('disabled');
    const on = html(Toolbar, { state: panelState({}, { enabled: true }) });
    expect(on.match(/<button[^>]*data-testid="save"[^>]*>/)![0]).not.toContain('disabled');
  });

  it('the status bar says whether the changes are saved', () => {
    expect(html(StatusBar, { state: panelState(null), sceneId: 's1' })).toContain('All changes saved');
    const state = panelState(null);
    state.save = { ...state.save, status: 'unsaved', pending: 2 };
    expect(html(StatusBar, { state, sceneId: 's1' })).toContain('Unsaved changes');
  });

  it('the history panel renders with no steps', () => {
    expect(html(HistoryPanel, { state: panelState(null) })).toMatch(/<section[^>]*>/);
  });

  it('gives the outliner and the properties panel from their own files', () => {
    expect(Outliner).toBe(OutlinerItself);
    expect(PropertiesPanel).toBe(PropertiesItself);
  });
});
