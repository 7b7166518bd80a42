import { describe, expect, it } from 'vitest';
import { materialById } from '../../../src/engine/stable-ids';
import { setup } from './editor-setup';

/** The editor's material commands (src/editor/material-editing.ts), through the editor on a headless viewer. */

describe('material editing (src/editor/material-editing.ts)', () => {
  it('sets a material as one undoable step; a value the schema refuses is told, not made', () => {
    const { editor, record, notices } = setup();
    editor.enable();
    const id = editor.readNode(record.modelId, '3', ['material']).material!;
    const before = editor.readMaterial(record.modelId, id, ['roughness']).roughness;
    editor.setMaterial(record.modelId, id, { roughness: 0.125 }, 'Roughness');
    expect(editor.readMaterial(record.modelId, id, ['roughness']).roughness).toBe(0.125);
    expect(editor.history.steps().map((s) => s.name)).toEqual(['Roughness']);
    editor.undo();
    expect(editor.readMaterial(record.modelId, id, ['roughness']).roughness).toBe(before);
    editor.setMaterial(record.modelId, id, { roughness: 'rough' } as never);
    expect(notices).toEqual([expect.stringMatching(/^The edit was not made: /)]);
    expect(editor.history.steps()).toHaveLength(1);
  });

  it("creates a copy of a material assigned to a node in one step named after both; undo takes the node's material back", () => {
    const { editor, record } = setup();
    editor.enable();
    const from = editor.readNode(record.modelId, '3', ['material']).material!;
    editor.setMaterial(record.modelId, from, { roughness: 0.375 });
    const created = editor.createMaterial(record.modelId, { name: 'Steel', from, properties: { metalness: 1 }, nodeId: '3' });
    expect(created).toMatch(/^m-[0-9a-f-]{12}$/);
    expect(materialById(record, created)).toMatchObject({ name: 'Steel', roughness: 0.375, metalness: 1 });
    expect(editor.readNode(record.modelId, '3', ['material']).material).toBe(created);
    expect(editor.history.steps().at(-1)!.name).toBe('New material Steel on Base');
    editor.undo();
    expect(editor.readNode(record.modelId, '3', ['material']).material).toBe(from);
    // Without a node: only the material; disabled: refused.
    const alone = editor.createMaterial(record.modelId, { name: 'Plain' });
    expect(editor.listMaterials(record.modelId).map((m) => m.materialId)).toContain(alone);
    editor.disable();
    expect(() => editor.createMaterial(record.modelId, { name: 'X' })).toThrow('The editor is disabled: enable it to create materials.');
  });
});
