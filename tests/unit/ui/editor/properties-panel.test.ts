import { describe, expect, it } from 'vitest';
import type { Editor, Selection } from '../../../../src/editor/editor';
import { defaultSceneObject } from '../../../../src/protocol/scene-objects';
import { PropertiesPanel } from '../../../../src/ui/editor/properties-panel';
import { html, panelState } from '../../../support/editor-panels';

const selection = (fields: Partial<Selection>): Selection => ({ modelId: 'm1', objectId: null, nodeId: null, name: 'X', materialId: null, ...fields });

describe('the properties panel', () => {
  it('asks for a selection when there is none', () => {
    expect(html(PropertiesPanel, { state: panelState(null) })).toContain('Click an object in the view or in the outliner.');
  });

  it("shows a node's fields and its material", () => {
    const editor = {
      readNode: () => ({ name: 'Casing', visible: true, castShadow: false, receiveShadow: true, matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] }),
      readMaterial: () => ({ name: 'Steel', color: 0xff0000, metalness: 0.5 }),
      listMaterials: () => [{ materialId: 'mat1', name: 'Steel' }],
      listTextures: () => [],
    } as unknown as Editor;
    const out = html(PropertiesPanel, { state: panelState(editor, { selection: selection({ nodeId: 'n1', materialId: 'mat1', name: 'Casing' }) }) });
    expect(out).toContain('value="Casing"');
    expect(out).toContain('data-testid="material-panel"');
    expect(out).toContain('Material Steel');
    expect(out).toContain('value="#ff0000"');
    expect(out).toContain('<output>0.50</output>');
  });

  it('gives a scene object and selected instances their own panels', () => {
    const lamp = defaultSceneObject('PointLight', 'l1', 'Lamp');
    const editor = { readObject: () => lamp, objects: { list: () => [lamp] } } as unknown as Editor;
    expect(html(PropertiesPanel, { state: panelState(editor, { selection: selection({ objectId: 'l1' }) }) })).toContain('data-testid="remove-object"');
    const instances = selection({ objectId: 'g1', instances: { groupId: 'g1', ids: [1] } });
    expect(html(PropertiesPanel, { state: panelState(editor, { selection: instances }) })).toContain('data-testid="instances-panel"');
  });
});
