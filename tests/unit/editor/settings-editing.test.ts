import { describe, expect, it, vi } from 'vitest';
import type { EditorEventMap } from '../../../src/editor/editor';
import { History } from '../../../src/editor/history';
import { MutationQueues } from '../../../src/editor/mutation-queue';
import { SETTINGS_QUEUE } from '../../../src/editor/saver';
import { createSettingsEditing } from '../../../src/editor/settings-editing';
import { Emitter } from '../../../src/viewer/events';
import type { Viewer } from '../../../src/viewer/viewer';

/**
 * The scene settings as the editor changes them (src/editor/settings-editing.ts), with the
 * viewer's settings (src/viewer/scene-settings.ts) held in memory: applying may keep a field.
 */

const scene = vi.hoisted(() => ({ values: {} as Record<string, unknown>, fail: false }));
vi.mock('../../../src/viewer/scene-settings', () => ({
  readSceneSettings: () => ({ ...scene.values }),
  applySceneSettings: async (_viewer: unknown, fields: Record<string, unknown>, options: { onWarning(text: string): void }) => {
    if (scene.fail) throw new Error('no renderer');
    // As a rule of the viewer's: fog stays off without a colour.
    const { fogEnabled, ...rest } = fields;
    if (fogEnabled !== undefined) options.onWarning('Fog needs a colour.');
    Object.assign(scene.values, rest);
    return { ...scene.values };
  },
}));

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function editing(saved: Record<string, unknown> = {}) {
  scene.values = { toneMappingExposure: 0, fogEnabled: false };
  scene.fail = false;
  const queues = new MutationQueues();
  const history = new History();
  const events = new Emitter<EditorEventMap>();
  const notices: string[] = [];
  const applied: unknown[] = [];
  events.on('notice', (n) => void notices.push(n.text));
  events.on('settings', (v) => void applied.push(v.toneMappingExposure));
  const settings = createSettingsEditing({} as Viewer, queues, history, events, saved);
  const queued = () => queues.snapshot()[SETTINGS_QUEUE]?.map((e) => (e as { properties: unknown }).properties);
  return { settings, history, notices, applied, queued };
}

describe('settings editing (src/editor/settings-editing.ts)', () => {
  it('a change is one step; what was applied is queued with the saved settings; undo puts the value back', async () => {
    const { settings, history, applied, queued } = editing({ keep: 'me' });
    settings.set({ toneMappingExposure: 1 }, 'Exposure');
    await settle();
    expect(history.steps().map((s) => s.name)).toEqual(['Exposure']);
    expect(queued()).toEqual([{ keep: 'me', toneMappingExposure: 1 }]);
    history.undo();
    await settle();
    expect(scene.values.toneMappingExposure).toBe(0);
    expect(queued()).toEqual([{ keep: 'me', toneMappingExposure: 0 }]);
    expect(applied).toEqual([1, 0]);
  });

  it('saves the value the viewer kept, tells its warnings, and tells a refused or failed change without queuing it', async () => {
    const { settings, notices, queued } = editing();
    settings.set({ fogEnabled: true });
    await settle();
    expect(queued()).toEqual([{ fogEnabled: false }]);
    expect(notices).toEqual(['Fog needs a colour.']);
    settings.applier.applySettings({ toneMappingExposure: 'bright' } as never);
    scene.fail = true;
    settings.applier.applySettings({ toneMappingExposure: 3 });
    await settle();
    expect(notices.slice(1)).toEqual([
      expect.stringMatching(/^The scene settings were not changed: toneMappingExposure: /),
      'The scene settings could not be applied: no renderer',
    ]);
    expect(queued()).toHaveLength(1);
  });

  it("restoring an earlier visit's settings applies them and makes them what a change saves with", async () => {
    const { settings, applied, queued } = editing({ old: 1 });
    settings.restore({ toneMappingExposure: 2, restored: true });
    await settle();
    expect(applied).toEqual([2]);
    settings.set({ toneMappingExposure: 3 });
    await settle();
    expect(queued()).toEqual([{ toneMappingExposure: 3, restored: true }]);
  });
});
