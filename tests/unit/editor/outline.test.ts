import { describe, expect, it } from 'vitest';
import { setVisible } from '../../../src/engine/object-flags';
import { createViewerWorld } from '../../../src/engine/world';
import { nodeEid } from '../../../src/engine/stable-ids';
import { defaultSceneObject } from '../../../src/protocol/scene-objects';
import { createTreeCache, objectRows, outlinerView, treeRows } from '../../../src/editor/outline';
import { spawnTestModel } from '../../support/test-model';

function scene() {
  const world = createViewerWorld();
  const record = spawnTestModel(world, [
    { name: 'Pump', children: [{ name: 'Casing', mesh: true }, { name: 'Cover', mesh: true }] },
    { name: 'Base', mesh: true },
  ]);
  return { world, record };
}

describe('outliner: the model tree and what is drawn of it', () => {
  it('lists each model, then its nodes depth first with their kinds', () => {
    const { world } = scene();
    expect(treeRows(world).map((r) => [r.key, r.kind, r.depth])).toEqual([
      ['m1', 'model', 0],
      ['m1/0', 'group', 1],
      ['m1/1', 'mesh', 2],
      ['m1/2', 'mesh', 2],
      ['m1/3', 'mesh', 1],
    ]);
  });

  it('walks the tree again only when the structure changes, and reads names and visibility of the drawn rows now', () => {
    const { world, record } = scene();
    const cache = createTreeCache(world);
    const tree = cache.rows();
    expect(cache.rows()).toBe(tree);
    expect(cache.walks).toBe(1);
    // A rename and a hidden node: no walk, the drawn rows say so.
    world.objects[nodeEid(record, '1')]!.name = 'Pump casing';
    setVisible(world, nodeEid(record, '3'), false);
    expect(cache.rows()).toBe(tree);
    const { rows } = outlinerView(world, cache.rows(), [], '', 100);
    expect(rows.map((r) => [r.name, r.visible])).toEqual([
      ['test.glb', true],
      ['Pump', true],
      ['Pump casing', true],
      ['Cover', true],
      ['Base', false],
    ]);
    expect(cache.walks).toBe(1);
    // A second model: walked again.
    spawnTestModel(world, [{ name: 'Lamp', mesh: true }], 'm2', 'lamp.glb');
    expect(cache.rows()).toHaveLength(7);
    expect(cache.walks).toBe(2);
  });

  it('draws at most `limit` rows, counts the rest, and searches names (models and headings stay)', () => {
    const { world } = scene();
    const tree = treeRows(world);
    const objects = objectRows([{ ...defaultSceneObject('SpotLight', 's'), name: 'Key light' }]);
    const all = outlinerView(world, tree, objects, '', 3);
    expect(all.rows.map((r) => r.name)).toEqual(['Lights, cameras and groups', 'Key light', 'test.glb']);
    expect(all.matching).toBe(7);
    const found = outlinerView(world, tree, objects, 'cov', 100);
    expect(found.rows.map((r) => r.name)).toEqual(['Lights, cameras and groups', 'test.glb', 'Cover']);
    expect(found.matching).toBe(3);
  });
});
