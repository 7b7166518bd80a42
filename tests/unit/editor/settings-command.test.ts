import { describe, expect, it } from 'vitest';
import { History } from '../../../src/editor/history';
import { SetSettingsCommand, type SettingsApplier } from '../../../src/editor/settings-command';

describe('scene settings commands', () => {
  it('apply only the changed fields, merge a slider within 500 ms, undo to the values before', () => {
    const applied: object[] = [];
    const applier: SettingsApplier = { applySettings: (fields) => void applied.push(fields) };
    let now = 0;
    const history = new History({ clock: () => now });
    history.execute(new SetSettingsCommand(applier, { fogDensity: 0.002 }, { fogDensity: 0.01 }, 'Density'));
    now += 200;
    history.execute(new SetSettingsCommand(applier, { fogDensity: 0.01 }, { fogDensity: 0.02 }, 'Density'));
    now += 200;
    history.execute(new SetSettingsCommand(applier, { fogEnabled: false }, { fogEnabled: true }, 'Fog'));
    expect(history.steps().map((s) => s.name)).toEqual(['Density', 'Fog']);
    history.undo();
    history.undo();
    expect(applied).toEqual([{ fogDensity: 0.01 }, { fogDensity: 0.02 }, { fogEnabled: true }, { fogEnabled: false }, { fogDensity: 0.002 }]);
    expect(new SetSettingsCommand(applier, { a: 1 } as never, { sunAzimuth: 3 }).toJSON()).toMatchObject({ type: 'SetSettings', target: 'scene-settings', attribute: 'sunAzimuth' });
  });
});
