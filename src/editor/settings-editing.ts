import { SceneSettings, type SceneSettingsInput, type SceneSettingsValues } from '../protocol/scene-settings';
import type { Emitter } from '../viewer/events';
import { applySceneSettings, readSceneSettings } from '../viewer/scene-settings';
import type { Viewer } from '../viewer/viewer';
import type { EditorEventMap } from './editor';
import type { History } from './history';
import { newUuid, type MutationQueues } from './mutation-queue';
import { SETTINGS_QUEUE } from './saver';
import { SetSettingsCommand, type SettingsApplier } from './settings-command';

export interface SettingsEditing {
  readonly applier: SettingsApplier;
  /** Changes the fields given as one undoable step (merged within 500 ms). */
  set(fields: SceneSettingsInput, name?: string): void;
  /** Unsaved settings of an earlier visit: applied, and what a change saves from now on. */
  restore(properties: Record<string, unknown>): void;
}

/**
 * The scene settings as the editor changes them: applied (src/viewer/scene-settings.ts), then
 * queued as the scene's saved settings with the changed fields (PATCH viewer-config).
 */
export function createSettingsEditing(
  viewer: Viewer,
  queues: MutationQueues,
  history: History,
  events: Emitter<EditorEventMap>,
  sceneSettings: Record<string, unknown>,
): SettingsEditing {
  let savedSettings: Record<string, unknown> = { ...sceneSettings };
  const onWarning = (text: string) => events.emit('notice', { text });
  const applier: SettingsApplier = {
    applySettings(fields) {
      const parsed = SceneSettings.safeParse(fields);
      if (!parsed.success) {
        events.emit('notice', {
          text: `The scene settings were not changed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        });
        return;
      }
      const keys = Object.keys(parsed.data) as (keyof SceneSettingsValues)[];
      const save = () => {
        // What was applied (a rule may have kept a field: an environment background without an environment).
        const now = readSceneSettings(viewer) as Record<string, unknown>;
        for (const key of keys) savedSettings[key] = now[key];
        queues.add(SETTINGS_QUEUE, { key: 'settings', uuid: newUuid(), createdAt: Date.now(), type: 'setSettings', properties: { ...savedSettings } });
        events.emit('settings', readSceneSettings(viewer));
      };
      applySceneSettings(viewer, fields, { onWarning }).then(save, (error) => {
        events.emit('notice', { text: `The scene settings could not be applied: ${(error as Error).message}` });
      });
    },
  };
  return {
    applier,
    set(fields, name) {
      const now = readSceneSettings(viewer) as Record<string, unknown>;
      const before: Record<string, unknown> = {};
      for (const key of Object.keys(fields)) before[key] = now[key];
      history.execute(new SetSettingsCommand(applier, before as SceneSettingsInput, fields, name));
    },
    restore(properties) {
      savedSettings = { ...properties };
      void applySceneSettings(viewer, properties, { onWarning }).then((values) => events.emit('settings', values));
    },
  };
}
