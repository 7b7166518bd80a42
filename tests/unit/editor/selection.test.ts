import { describe, expect, it } from 'vitest';
import { nodeEid } from '../../../src/engine/stable-ids';
import { setup } from './editor-setup';

/** What is selected (src/editor/selection.ts), through the editor: the selection, the gizmo on it and 'selection' events. */

describe('selection (src/editor/selection.ts)', () => {
  it("selects a node with its material and the gizmo on it; a node that has no object, only its model's name; null, nothing", () => {
    const { editor, record } = setup();
    const seen: unknown[] = [];
    editor.events.on('selection', (s) => void seen.push(s));
    editor.select(record.modelId, '3');
    expect(editor.selection).toEqual({ modelId: record.modelId, objectId: null, nodeId: '3', name: 'Base', materialId: expect.any(String) });
    expect(editor.gizmo.eid).toBe(nodeEid(record, '3'));
    editor.select(record.modelId, '99');
    expect(editor.selection).toMatchObject({ nodeId: null, name: '99', materialId: null });
    expect(editor.gizmo.eid).toBe(0);
    editor.select(null);
    expect(editor.selection).toBeNull();
    expect(seen).toHaveLength(3);
    expect(() => editor.select('nope', '0')).toThrow("The scene has no model 'nope'.");
  });

  it('selects a scene object (an ambient light without a gizmo); an unknown object or group of instances selects nothing', () => {
    const { editor } = setup();
    editor.enable();
    const ambient = editor.addObject('AmbientLight');
    expect(editor.selection).toMatchObject({ modelId: '', objectId: ambient, nodeId: null });
    expect(editor.gizmo.eid).toBe(0);
    const lamp = editor.addObject('PointLight');
    expect(editor.gizmo.eid).not.toBe(0);
    editor.selectObject('nope');
    expect(editor.selection).toBeNull();
    editor.selectObject(lamp);
    editor.selectInstances('no-group', [1, 2]);
    expect(editor.selection).toBeNull();
  });
});
