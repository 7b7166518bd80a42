import { describe, expect, it } from 'vitest';
import { defaultSceneObject } from '../../../src/protocol/scene-objects';
import { filterRows, objectRows } from '../../../src/editor/outline';

describe('outliner rows of lights, cameras and groups', () => {
  it('lists each under its parent, depth first; a missing parent or a cycle shows at the top', () => {
    const g = { ...defaultSceneObject('Group', 'g'), name: 'Rig' };
    const s = { ...defaultSceneObject('SpotLight', 's'), parent: 'g', name: 'Key' };
    const c = { ...defaultSceneObject('PerspectiveCamera', 'c'), parent: 'gone' };
    const x = { ...defaultSceneObject('Group', 'x'), parent: 'y' };
    const y = { ...defaultSceneObject('Group', 'y'), parent: 'x' };
    const rows = objectRows([s, g, c, x, y]);
    expect(rows.map((r) => [r.name, r.kind, r.depth, r.objectId ?? null])).toEqual([
      ['Lights, cameras and groups', 'objects', 0, null],
      ['Rig', 'group', 1, 'g'],
      ['Key', 'light', 2, 's'],
      ['Camera', 'camera', 1, 'c'],
      ['Group', 'group', 1, 'x'],
      ['Group', 'group', 1, 'y'],
    ]);
    expect(objectRows([])).toEqual([]);
    expect(filterRows(rows, 'key').map((r) => r.name)).toEqual(['Lights, cameras and groups', 'Key']);
  });
});
