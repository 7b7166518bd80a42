import { describe, expect, it } from 'vitest';
import type { Editor } from '../../../../src/editor/editor';
import { defaultSceneObject } from '../../../../src/protocol/scene-objects';
import { InstancesPanel, ObjectPanel } from '../../../../src/ui/editor/object-panel';
import { html, panelState } from '../../../support/editor-panels';

describe('the object panel', () => {
  const lamp = defaultSceneObject('PointLight', 'l1', 'Lamp');
  const group = defaultSceneObject('Group', 'g1', 'Furniture');

  it("shows a light's name, parent choices and its own number fields", () => {
    const editor = { readObject: (uuid: string) => (uuid === 'l1' ? lamp : null), objects: { list: () => [lamp, group] } } as unknown as Editor;
    const out = html(ObjectPanel, { state: panelState(editor), uuid: 'l1' });
    expect(out).toContain('value="Lamp"');
    expect(out).toContain('Furniture'); // a parent it may go under
    expect(out).toContain('Intensity');
    expect(out).toContain('data-testid="remove-object"');
  });

  it('renders nothing for an object that is gone', () => {
    const editor = { readObject: () => null, objects: { list: () => [] } } as unknown as Editor;
    expect(html(ObjectPanel, { state: panelState(editor), uuid: 'gone' })).toBe('');
  });

  it('names the selected instances, their group and asset', () => {
    const editor = { readObject: () => ({ ...group, name: 'Trees', assetId: 'a1' }) } as unknown as Editor;
    expect(html(InstancesPanel, { state: panelState(editor), groupId: 'g1', ids: [3, 4], name: 'Two trees' })).toContain('2 instances of Trees · asset a1');
    expect(html(InstancesPanel, { state: panelState(editor), groupId: 'g1', ids: [3], name: 'A tree' })).toContain('Instance 3 of Trees');
  });
});
