import { describe, expect, it } from 'vitest';
import { MultiCommand } from '../../../src/editor/commands';
import { History } from '../../../src/editor/history';
import { changedFields, SetObjectCommand, type ObjectApplier } from '../../../src/editor/object-commands';
import { defaultSceneObject, type SceneObject } from '../../../src/protocol/scene-objects';

function setup() {
  const state = new Map<string, SceneObject>();
  const log: string[] = [];
  const applier: ObjectApplier = {
    applyObject(uuid, data) {
      log.push(`${uuid}:${data ? data.intensity ?? data.name : 'removed'}`);
      if (data) state.set(uuid, data);
      else state.delete(uuid);
    },
  };
  let now = 0;
  const history = new History({ clock: () => now });
  return { state, log, applier, history, tick: (ms: number) => (now += ms) };
}

describe('scene object commands', () => {
  it('adds, changes with the 500 ms merge, removes, and undoes each by uuid', () => {
    const { state, applier, history, tick } = setup();
    const spot = defaultSceneObject('SpotLight', 's');
    history.execute(new SetObjectCommand(applier, 's', null, spot));
    expect(history.steps().map((s) => s.name)).toEqual(['Add Spot light']);
    // A slider: two changes 100 ms apart merge; one 600 ms later is a new step.
    tick(100);
    history.execute(new SetObjectCommand(applier, 's', spot, { ...spot, intensity: 30 }));
    tick(100);
    history.execute(new SetObjectCommand(applier, 's', { ...spot, intensity: 30 }, { ...spot, intensity: 35 }));
    tick(600);
    history.execute(new SetObjectCommand(applier, 's', { ...spot, intensity: 35 }, { ...spot, intensity: 40 }));
    expect(history.steps()).toHaveLength(3);
    expect(state.get('s')!.intensity).toBe(40);
    history.undo();
    expect(state.get('s')!.intensity).toBe(35);
    history.undo();
    expect(state.get('s')!.intensity).toBe(25);
    history.undo();
    expect(state.has('s')).toBe(false);
    history.redo();
    expect(state.get('s')).toEqual(spot);
  });

  it('never merges an add or a remove; a multi-remove undoes parents first', () => {
    const { state, log, applier, history } = setup();
    const group = defaultSceneObject('Group', 'g');
    const child = { ...defaultSceneObject('PointLight', 'p'), parent: 'g' };
    history.execute(new SetObjectCommand(applier, 'g', null, group));
    history.execute(new SetObjectCommand(applier, 'p', null, child));
    expect(history.steps()).toHaveLength(2);
    log.length = 0;
    history.execute(new MultiCommand([new SetObjectCommand(applier, 'p', child, null), new SetObjectCommand(applier, 'g', group, null)], 'Remove Group'));
    expect(state.size).toBe(0);
    history.undo();
    expect(log.slice(2)).toEqual(['g:Group', 'p:10']);
    expect([...state.keys()]).toEqual(['g', 'p']);
  });

  it('names the changed fields and serialises by value', () => {
    const a = defaultSceneObject('PointLight', 'p');
    expect(changedFields(a, { ...a, intensity: 2, color: 0xff0000 })).toBe('color,intensity');
    expect(changedFields(null, a)).toBe('add');
    expect(changedFields(a, null)).toBe('remove');
    const json = new SetObjectCommand({ applyObject() {} }, 'p', a, { ...a, intensity: 2 }).toJSON();
    expect(json).toMatchObject({ type: 'SetObject', target: 'p', attribute: 'intensity', before: a });
    expect(JSON.parse(JSON.stringify(json)).after.intensity).toBe(2);
  });
});

describe('material commands on texture maps', () => {
  it('a scale edit and a rotation edit of one map are two steps; two rotation edits merge', async () => {
    const { SetMaterialCommand } = await import('../../../src/editor/commands');
    const applier = { applyNode() {}, applyMaterial() {} };
    const map = { textureId: '0', scale: [1, 1] as [number, number], rotation: 0 };
    let now = 0;
    const history = new History({ clock: () => now });
    history.execute(new SetMaterialCommand(applier, 'm', 'x', { map }, { map: { ...map, scale: [2, 1] } }));
    now += 100;
    history.execute(new SetMaterialCommand(applier, 'm', 'x', { map: { ...map, scale: [2, 1] } }, { map: { ...map, scale: [2, 1], rotation: 1 } }));
    now += 100;
    history.execute(new SetMaterialCommand(applier, 'm', 'x', { map: { ...map, scale: [2, 1], rotation: 1 } }, { map: { ...map, scale: [2, 1], rotation: 2 } }));
    expect(history.steps()).toHaveLength(2);
    expect(new SetMaterialCommand(applier, 'm', 'x', { roughness: 0.1 }, { roughness: 0.2 }).attribute).toBe('roughness');
  });
});
