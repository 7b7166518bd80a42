import type { SceneSettingsInput } from '../protocol/scene-settings';
import type { Command, CommandJSON } from './history';

/**
 * A change of scene settings (editor specification section 3 "Scene settings"): the fields
 * changed, their values before and after. Applied through the editor (applySceneSettings: only the
 * fields present) and saved as the scene's settings (PATCH viewer-config). Consecutive changes of
 * the same fields within 500 ms merge (a slider).
 */
export interface SettingsApplier {
  applySettings(fields: SceneSettingsInput): void;
}

export class SetSettingsCommand implements Command {
  readonly type = 'SetSettings';
  readonly target = 'scene-settings';
  readonly attribute: string;
  readonly updatable = true;
  readonly name: string;
  constructor(
    private readonly applier: SettingsApplier,
    readonly before: SceneSettingsInput,
    public after: SceneSettingsInput,
    name?: string,
  ) {
    this.attribute = Object.keys(after).sort().join(',');
    this.name = name ?? `Set ${this.attribute}`;
  }
  execute(): void {
    this.applier.applySettings(this.after);
  }
  undo(): void {
    this.applier.applySettings(this.before);
  }
  update(next: Command): void {
    this.after = (next as SetSettingsCommand).after;
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, before: this.before, after: this.after };
  }
}
