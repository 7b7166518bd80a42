import { BoxGeometry, MeshBasicMaterial } from 'three';
import { describe, expect, it } from 'vitest';
import { instanceGroupByUuid, instanceIds, type InstanceAsset } from '../../../src/engine/instances';
import { setup } from './editor-setup';

/**
 * The asset library's Place and Delete and Ctrl+C on selected instances (src/editor/instance-actions.ts),
 * through the editor on a headless viewer with an asset that loads at once.
 */

const asset: InstanceAsset = {
  assetId: 'crate',
  parts: [{ name: 'box', geometry: new BoxGeometry(1, 1, 1), material: new MeshBasicMaterial() }],
  box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
  placeholder: false,
};

describe('instance actions (src/editor/instance-actions.ts)', () => {
  it('places a first instance in a new group, the next one in that group; copies and deletes the selected ones, each one undoable step', async () => {
    const { editor, world } = setup({ loadAsset: async () => ({ asset }) });
    editor.enable();
    await editor.placeAsset('crate', 'Crates');
    const groupId = editor.selection!.instances!.groupId;
    expect(editor.selection!.instances!.ids).toEqual([0]);
    expect(editor.readObject(groupId)).toMatchObject({ type: 'InstancedAssetGroup', assetId: 'crate', name: 'Crates' });
    await editor.placeAsset('crate');
    expect(editor.selection!.instances).toEqual({ groupId, ids: [1] });
    const ids = () => Array.from(instanceIds(instanceGroupByUuid(world, groupId)!));
    expect(ids()).toEqual([0, 1]);
    editor.copySelection();
    expect(editor.selection!.instances).toEqual({ groupId, ids: [2] });
    expect(ids()).toEqual([0, 1, 2]);
    editor.deleteSelection();
    expect(editor.selection).toBeNull();
    expect(ids()).toEqual([0, 1]);
    expect(editor.history.steps().map((s) => s.name)).toEqual(['Place Crates', 'Place Crates #1', 'Copy Crates #1', 'Delete Crates #2']);
    editor.undo();
    expect(ids()).toEqual([0, 1, 2]);
  });

  it('an asset that does not load is told and nothing is placed; disabled, placing is refused', async () => {
    const { editor, notices } = setup({ loadAsset: async () => ({ asset, error: new Error('404') }) });
    await expect(editor.placeAsset('crate')).rejects.toThrow('The editor is disabled: enable it to place assets.');
    editor.enable();
    await editor.placeAsset('crate', 'Crates');
    expect(notices).toEqual(['The asset "Crates" could not be placed: 404']);
    expect(editor.history.steps()).toEqual([]);
    expect(editor.selection).toBeNull();
  });
});
