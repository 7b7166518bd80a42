import { describe, expect, it } from 'vitest';
import { Visibility } from '../../../components';
import { nodeEid } from '../../../src/engine/stable-ids';
import { ERR_EDITOR_NOT_IMPLEMENTED } from '../../../src/protocol/editor';
import { hit, setup } from './editor-setup';

/** The editor's input (src/editor/editor-input.ts) on a headless viewer: clicks that select, and the key map's editor context. */

describe('editor input (src/editor/editor-input.ts): clicks', () => {
  it('a click on a node selects it, on the background selects nothing; neither while disabled', () => {
    const { editor, record, h } = setup();
    h.viewer.events.emit('hit', hit(record, '3'));
    expect(editor.selection).toBeNull();
    editor.enable();
    h.viewer.events.emit('hit', hit(record, '3'));
    expect(editor.selection).toMatchObject({ modelId: record.modelId, nodeId: '3', name: 'Base' });
    h.viewer.events.emit('hit', { ...hit(record, '3'), modelId: null } as never);
    expect(editor.selection?.nodeId).toBe('3'); // a hit on no model: nothing changes
    h.viewer.events.emit('background-hit', undefined as never);
    expect(editor.selection).toBeNull();
    // Removed on dispose: clicks select nothing after.
    editor.dispose();
    h.viewer.events.emit('hit', hit(record, '3'));
    expect(editor.selection).toBeNull();
  });

  it('the box-select key turns box selection on and off while enabled', () => {
    const { editor, h } = setup();
    expect(h.press('box-select')).toBe(false);
    editor.enable();
    expect(h.press('box-select')).toBe(true);
    expect(editor.boxSelect).toBe(true);
    h.press('box-select');
    expect(editor.boxSelect).toBe(false);
  });
});

describe('editor input (src/editor/editor-input.ts): keys of the editor context', () => {
  it('Delete (or Backspace) hides the selected model node: an updateNode visible=false mutation, undoable', () => {
    const { editor, record, h } = setup();
    editor.enable();
    const eid = nodeEid(record, '3');
    h.viewer.events.emit('hit', hit(record, '3'));
    expect(h.press('delete')).toBe(true);
    expect(Visibility.visible[eid]).toBe(0);
    expect(editor.selection).toBeNull();
    expect(editor.history.steps().map((s) => s.name)).toEqual(['Hide Base']);
    const queued = editor.queues.snapshot()[record.modelId]!;
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ type: 'updateNode', nodeId: '3', properties: { visible: false } });
    editor.undo();
    expect(Visibility.visible[eid]).toBe(1);
    // The undo's mutation replaces the hide (same key): the server gets the last state only.
    expect(editor.queues.snapshot()[record.modelId]).toEqual([expect.objectContaining({ properties: { visible: true } })]);
    // With nothing selected the key is not taken (the viewer tools may use it).
    expect(h.press('delete')).toBe(false);
  });

  it("copying a model node says 'Not implemented' to the person and throws nothing", () => {
    const { editor, record, h, notices } = setup();
    editor.enable();
    h.viewer.events.emit('hit', hit(record, '0'));
    expect(() => h.press('copy')).not.toThrow();
    expect(notices).toEqual([ERR_EDITOR_NOT_IMPLEMENTED]);
    expect(editor.history.steps()).toEqual([]);
    expect(editor.queues.size).toBe(0);
  });

  it('T and Ctrl+T set the move mode, Ctrl+R rotate, Ctrl+Shift+S scale (the key map actions)', () => {
    const { editor, h } = setup();
    editor.enable();
    h.press('rotate-mode');
    expect(editor.gizmo.mode).toBe('rotate');
    h.press('scale-mode');
    expect(editor.gizmo.mode).toBe('scale');
    h.press('translate-mode');
    expect(editor.gizmo.mode).toBe('translate');
  });
});
