import { describe, expect, it } from 'vitest';
import { Visibility } from '../../../components';
import type { QueueSnapshot } from '../../../src/editor/mutation-queue';
import { mergeSnapshots, restoreUnsaved, texturesToLoad } from '../../../src/editor/restore-unsaved';
import { SETTINGS_QUEUE } from '../../../src/editor/saver';
import { nodeEid } from '../../../src/engine/stable-ids';
import { setup } from './editor-setup';

/**
 * Unsaved edits of an earlier visit (src/editor/restore-unsaved.ts): offered back, restored or
 * discarded through the editor; what restoring keeps and drops; the store's merged queue.
 */

const edit = (key: string, uuid: string, properties: Record<string, unknown> = { name: 'x' }) =>
  ({ key, uuid, createdAt: 1, type: 'updateNode', nodeId: key.split('/')[1]!, properties }) as QueueSnapshot[string][number];

describe('unsaved edits of an earlier visit (src/editor/restore-unsaved.ts)', () => {
  it('are offered back, applied and queued when restored; dropped when discarded', () => {
    const restorable = {
      sceneId: 's1',
      savedAt: 1,
      queues: { m1: [{ key: 'node/3/visible', uuid: 'u1', createdAt: 1, type: 'updateNode' as const, nodeId: '3', properties: { visible: false } }] },
    };
    const written: unknown[] = [];
    const s = setup({ restorable, store: { write: async (snapshot) => void written.push(snapshot) } });
    s.editor.enable();
    expect(s.editor.restorable).toEqual({ count: 1, savedAt: 1 });
    expect(Visibility.visible[nodeEid(s.record, '3')]).toBe(1);
    s.editor.restoreUnsaved();
    expect(s.editor.restorable).toBeNull();
    expect(Visibility.visible[nodeEid(s.record, '3')]).toBe(0);
    expect(s.editor.queues.snapshot().m1).toEqual([expect.objectContaining({ uuid: 'u1' })]);

    const d = setup({ restorable, store: { write: async (snapshot) => void written.push(snapshot) } });
    written.length = 0;
    d.editor.discardUnsaved();
    expect(d.editor.restorable).toBeNull();
    expect(Visibility.visible[nodeEid(d.record, '3')]).toBe(1);
    expect(written).toEqual([{}]);
  });

  it('the store gets the earlier edits first, then the current ones, until the person answers', async () => {
    const restorable = { sceneId: 's1', savedAt: 1, queues: { m1: [edit('node/0/name', 'u0')] } };
    const written: QueueSnapshot[] = [];
    const s = setup({ restorable, store: { write: async (snapshot) => void written.push(snapshot) } });
    s.editor.enable();
    s.editor.setNode(s.record.modelId, '3', { name: 'New' });
    await new Promise((resolve) => setTimeout(resolve, 0)); // the saver writes the store after each change
    expect(written.at(-1)!.m1!.map((e) => e.uuid)[0]).toBe('u0');
    expect(written.at(-1)!.m1).toHaveLength(2);
    expect(mergeSnapshots({ a: [edit('k', '1')] }, { a: [edit('k', '2')], b: [edit('k', '3')] })).toEqual({
      a: [edit('k', '1'), edit('k', '2')],
      b: [edit('k', '3')],
    });
  });

  it('drops (and tells) edits of a model the scene no longer has, keeps the last settings only, and names the models whose textures must load first', () => {
    const s = setup();
    const notices: string[] = [];
    const settings: unknown[] = [];
    const target = {
      world: s.world,
      queues: s.editor.queues,
      objects: s.editor.objects,
      notice: (t: string) => notices.push(t),
      restoreSettings: (p: Record<string, unknown>) => settings.push(p),
    };
    restoreUnsaved(target, {
      gone: [edit('node/0/name', 'g1'), edit('node/1/name', 'g2')],
      [SETTINGS_QUEUE]: [
        { key: 'settings', uuid: 's1', createdAt: 1, type: 'setSettings', properties: { exposure: 1 } },
        { key: 'settings', uuid: 's2', createdAt: 2, type: 'setSettings', properties: { exposure: 2 } },
      ] as never,
      m1: [edit('node/3/visible', 'v', { visible: false })],
    });
    expect(notices).toEqual(["2 unsaved edit(s) of model 'gone' were dropped: the scene no longer has that model."]);
    expect(settings).toEqual([{ exposure: 2 }]);
    expect(Visibility.visible[nodeEid(s.record, '3')]).toBe(0);
    expect(Object.keys(s.editor.queues.snapshot()).sort()).toEqual(['m1', SETTINGS_QUEUE].sort());
    const map = { map: { textureId: 'u-0123456789abcdef01234567' } };
    const pending = texturesToLoad(s.world, {
      m1: [{ key: 'k', uuid: 'x', createdAt: 1, type: 'updateMaterial', materialId: '0', properties: map } as never],
      gone: [{ key: 'k', uuid: 'y', createdAt: 1, type: 'updateMaterial', materialId: '0', properties: map } as never],
    });
    expect(pending.map(([modelId]) => modelId)).toEqual(['m1']);
    expect(texturesToLoad(s.world, { m1: [edit('node/3/visible', 'v', { visible: false })] })).toEqual([]);
  });
});
