import { describe, expect, it } from 'vitest';
import { OBJECTS_QUEUE } from '../../../src/editor/saver';
import { setup } from './editor-setup';

/**
 * The scene objects as the editor changes them (src/editor/scene-object-editing.ts), through the
 * editor: added with a counted name, changed, removed with what is under them, dragged, undone,
 * and each change queued.
 */

describe('scene object editing (src/editor/scene-object-editing.ts)', () => {
  it('adds objects named after the ones of their type, changes one (an unknown one throws), and queues each change', () => {
    const { editor } = setup();
    editor.enable();
    const first = editor.addObject('PointLight');
    const second = editor.addObject('PointLight', { intensity: 3 } as never);
    expect(editor.readObject(second)).toMatchObject({ name: `${editor.readObject(first)!.name} 2`, type: 'PointLight' });
    expect(editor.selection?.objectId).toBe(second);
    editor.setObject(second, { name: 'Lamp' });
    expect(editor.readObject(second)!.name).toBe('Lamp');
    expect(editor.selection?.name).toBe('Lamp'); // the selection follows its object's name
    expect(() => editor.setObject('nope', { name: 'x' })).toThrow("The scene has no object 'nope'.");
    const queued = editor.queues.snapshot()[OBJECTS_QUEUE]!;
    expect(queued.map((c) => [c.type, (c as { objectId: string }).objectId])).toEqual([
      ['putObject', first],
      ['putObject', second],
    ]);
    expect(editor.history.steps().map((s) => s.name)).toEqual([
      `Add ${editor.readObject(first)!.name}`,
      expect.stringMatching(/^Add /),
      expect.stringMatching(/^Set name of /),
    ]);
  });

  it('removes an object with everything under it in one step (letting go of the selection), and undo puts them back', () => {
    const { editor } = setup();
    editor.enable();
    const group = editor.addObject('Group', { name: 'Lights' });
    const lamp = editor.addObject('PointLight', { parent: group });
    editor.selectObject(lamp);
    editor.removeObject(group);
    expect(editor.readObject(group)).toBeNull();
    expect(editor.readObject(lamp)).toBeNull();
    expect(editor.selection).toBeNull();
    expect(editor.history.steps().at(-1)!.name).toBe('Remove Lights');
    const removes = editor.queues.snapshot()[OBJECTS_QUEUE]!.filter((c) => c.type === 'removeObject');
    expect(removes.map((c) => (c as { objectId: string }).objectId)).toEqual([lamp, group]); // deepest first
    editor.undo();
    expect(editor.readObject(lamp)).toMatchObject({ parent: group });
    // Disabled: nothing changes.
    editor.disable();
    editor.removeObject(group);
    expect(editor.readObject(group)).not.toBeNull();
    expect(() => editor.addObject('Group')).toThrow('The editor is disabled: enable it to add objects.');
  });
});
