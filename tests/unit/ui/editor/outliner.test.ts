import { describe, expect, it } from 'vitest';
import type { Editor } from '../../../../src/editor/editor';
import { createViewerWorld } from '../../../../src/engine/world';
import { defaultSceneObject } from '../../../../src/protocol/scene-objects';
import { Outliner } from '../../../../src/ui/editor/outliner';
import { html, panelState } from '../../../support/editor-panels';
import { spawnTestModel } from '../../../support/test-model';

describe('the outliner', () => {
  it("lists the scene objects, then each model's nodes, and marks the selected row", () => {
    const world = createViewerWorld();
    spawnTestModel(world, [{ name: 'Pump', children: [{ name: 'Casing', mesh: true }] }]);
    const light = defaultSceneObject('PointLight', 'l1', 'Lamp');
    const editor = { objects: { list: () => [light] } } as unknown as Editor;
    const state = panelState(editor, { selection: { modelId: '', nodeId: null, objectId: 'l1', name: 'Lamp', materialId: null } });
    const out = html(Outliner, { state, world });
    const names = [...out.matchAll(/role="treeitem"[^>]*>.*?<\/li>/g)].map((m) => m[0]);
    expect(out).toContain('Lights, cameras and groups');
    expect(out.indexOf('Lamp')).toBeLessThan(out.indexOf('Pump'));
    expect(out).toContain('Casing');
    expect(names.filter((row) => row.includes('aria-selected="true"')).map((row) => row.includes('Lamp'))).toEqual([true]);
  });
});
