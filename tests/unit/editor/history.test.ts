import { describe, expect, it } from 'vitest';
import { MultiCommand, reviveCommand, SetMaterialCommand, SetNodeCommand, type EditApplier } from '../../../src/editor/commands';
import { History } from '../../../src/editor/history';

function fakeScene() {
  const nodes = new Map<string, Record<string, unknown>>();
  const materials = new Map<string, Record<string, unknown>>();
  const log: string[] = [];
  const applier: EditApplier = {
    applyNode(modelId, nodeId, props) {
      log.push(`node ${modelId}/${nodeId} ${JSON.stringify(props)}`);
      nodes.set(`${modelId}/${nodeId}`, { ...nodes.get(`${modelId}/${nodeId}`), ...props });
    },
    applyMaterial(modelId, materialId, props) {
      log.push(`material ${modelId}#${materialId} ${JSON.stringify(props)}`);
      materials.set(`${modelId}#${materialId}`, { ...materials.get(`${modelId}#${materialId}`), ...props });
    },
  };
  return { nodes, materials, log, applier };
}

describe('History', () => {
  it('merges updatable commands on the same target and attribute less than 500 ms apart', () => {
    let now = 1000;
    const history = new History({ clock: () => now });
    const scene = fakeScene();
    const set = (roughness: number, before: number) => new SetMaterialCommand(scene.applier, 'm', '3', { roughness: before }, { roughness });
    history.execute(set(0.2, 0.5));
    now += 499;
    history.execute(set(0.3, 0.2));
    expect(history.steps()).toHaveLength(1);
    now += 500; // exactly the window: a new step
    history.execute(set(0.4, 0.3));
    expect(history.steps()).toHaveLength(2);
    expect(scene.materials.get('m#3')).toEqual({ roughness: 0.4 });
    history.undo();
    expect(scene.materials.get('m#3')).toEqual({ roughness: 0.3 });
    history.undo();
    // The merged step goes back to the value before its first command.
    expect(scene.materials.get('m#3')).toEqual({ roughness: 0.5 });
    history.redo();
    expect(scene.materials.get('m#3')).toEqual({ roughness: 0.3 });
  });

  it('does not merge different attributes, targets or non-updatable commands', () => {
    const now = 0;
    const history = new History({ clock: () => now });
    const { applier } = fakeScene();
    history.execute(new SetNodeCommand(applier, 'm', '1', { visible: true }, { visible: false }));
    history.execute(new SetNodeCommand(applier, 'm', '1', { name: 'a' }, { name: 'b' }));
    history.execute(new SetNodeCommand(applier, 'm', '2', { name: 'a' }, { name: 'b' }));
    history.execute(new SetNodeCommand(applier, 'm', '2', { name: 'b' }, { name: 'c' }, { updatable: false }));
    expect(history.steps()).toHaveLength(4);
  });

  it('clears redo on a new command and undoes a multi-command in reverse', () => {
    const history = new History({ clock: () => 0 });
    const scene = fakeScene();
    history.execute(new SetNodeCommand(scene.applier, 'm', '1', { visible: true }, { visible: false }));
    history.undo();
    expect(history.canRedo).toBe(true);
    const multi = new MultiCommand(
      [new SetNodeCommand(scene.applier, 'm', '1', { name: 'a' }, { name: 'b' }), new SetNodeCommand(scene.applier, 'm', '2', { name: 'x' }, { name: 'y' })],
      'Rename two',
    );
    history.execute(multi);
    expect(history.canRedo).toBe(false);
    scene.log.length = 0;
    history.undo();
    expect(scene.log).toEqual(['node m/2 {"name":"x"}', 'node m/1 {"name":"a"}']);
  });

  it('jumps to a step, lists done and undone steps, and survives toJSON and fromJSON', () => {
    let now = 0;
    const history = new History({ clock: () => now });
    const scene = fakeScene();
    for (let i = 1; i <= 4; i++) {
      now += 1000;
      history.execute(new SetNodeCommand(scene.applier, 'm', '1', { name: `n${i - 1}` }, { name: `n${i}` }, { name: `Rename ${i}` }));
    }
    const ids = history.steps().map((s) => s.id);
    expect(history.jumpTo(ids[1])).toBe(true);
    expect(scene.nodes.get('m/1')).toEqual({ name: 'n2' });
    expect(history.steps().map((s) => s.done)).toEqual([true, true, false, false]);
    history.jumpTo(ids[3]);
    expect(scene.nodes.get('m/1')).toEqual({ name: 'n4' });
    history.jumpTo(0);
    expect(scene.nodes.get('m/1')).toEqual({ name: 'n0' });
    expect(history.jumpTo(999)).toBe(false);
    history.jumpTo(ids[2]);

    const json = JSON.parse(JSON.stringify(history.toJSON()));
    const restored = new History();
    const fresh = fakeScene();
    // A command whose node is gone is left out, not kept to fail later.
    const { dropped } = restored.fromJSON(json, (j) => reviveCommand(fresh.applier, j, (c) => c.name !== 'Rename 2'));
    expect(dropped).toBe(1);
    expect(restored.steps().map((s) => [s.name, s.done])).toEqual([
      ['Rename 1', true],
      ['Rename 3', true],
      ['Rename 4', false],
    ]);
    restored.undo();
    expect(fresh.nodes.get('m/1')).toEqual({ name: 'n2' });
  });
});
