import { Group, Vector3, type Mesh } from 'three';
import { describe, expect, it } from 'vitest';
import { Transform } from '../../../../components';
import { markTransformDirty } from '../../../../src/engine/hierarchy';
import { setVisible, syncObjectFlags } from '../../../../src/engine/object-flags';
import { createPicker } from '../../../../src/viewer/picking';
import { SceneMeshIndex } from '../../../../src/viewer/picking/scene-index';
import { getEid } from '../../../../src/engine/registry';
import { addModel, box, fixture, node, perspective, settle } from './fixture';

/** A grid of boxes seen from above at an angle, some of them nested in groups. */
function city(f: ReturnType<typeof fixture>, modelId: string, side: number, offset = 0) {
  const nodes = [];
  for (let i = 0; i < side; i++) {
    for (let j = 0; j < side; j++) {
      const k = i * side + j;
      if (k % 5 === 0) {
        const g = new Group();
        g.position.set(i * 3 + offset, 0, j * 3);
        g.add(box(1, 0, (k % 3) * 0.5, 0));
        nodes.push(node(g, `${modelId}-g${k}`));
      } else nodes.push(node(box(1 + (k % 4) * 0.4, i * 3 + offset, (k % 3) * 0.5, j * 3), `${modelId}-n${k}`));
    }
  }
  return addModel(f, modelId, nodes);
}

const grid = (n: number) => Array.from({ length: n * n }, (_, i) => [((i % n) / (n - 1)) * 1.8 - 0.9, (Math.floor(i / n) / (n - 1)) * 1.8 - 0.9] as const);

describe('the scene mesh bounds index', () => {
  it('gives the same hits as the full scan, testing only the meshes the ray reaches', () => {
    const f = fixture(perspective(new Vector3(15, 25, 45), new Vector3(15, 0, 15)));
    city(f, 'm', 12);
    const scan = createPicker({ world: f.world, useWorker: false, sceneIndex: false });
    let hits = 0;
    for (const [x, y] of grid(25)) {
      const a = f.picker.pick(x, y);
      const b = scan.pick(x, y);
      expect(a?.nodeId ?? null).toBe(b?.nodeId ?? null);
      if (a && b) {
        hits++;
        expect(a.distance).toBeCloseTo(b.distance, 6);
      }
    }
    expect(hits).toBeGreaterThan(100);
    const index = new SceneMeshIndex(f.world);
    index.build();
    expect(index.size).toBe(144);
    expect(index.loose).toHaveLength(0);
  });

  it('follows a node moved through the ECS, a hidden node and a model added', () => {
    const f = fixture(perspective(new Vector3(0, 0, 20), new Vector3(0, 0, 0)));
    const record = addModel(f, 'a', [node(box(2, -6, 0, 0), 'left'), node(box(2, 6, 0, 0), 'right')]);
    expect(f.picker.pick(0, 0)).toBeNull();
    // Move 'left' to the centre: the refit follows the transform system's flags.
    const left = getEid(record.root.getObjectByName('left')!);
    Transform.position[left * 3] = 0;
    markTransformDirty(f.world, left);
    settle(f.world);
    expect(f.picker.pick(0, 0)?.nodeId).toBe('left');
    // Frames pass (flags cleared, moves missed by the picker's step when no loop runs): still right.
    Transform.position[left * 3] = -6;
    markTransformDirty(f.world, left);
    settle(f.world);
    settle(f.world);
    settle(f.world);
    expect(f.picker.pick(0, 0)).toBeNull();
    // The picker's frame step refits during frames.
    const right = getEid(record.root.getObjectByName('right')!);
    Transform.position[right * 3] = 0;
    markTransformDirty(f.world, right);
    settle(f.world);
    for (const step of f.world.steps.helpers) step.run(f.world);
    expect(f.picker.pick(0, 0)?.nodeId).toBe('right');
    // Hidden: not hit; the box behind it is.
    addModel(f, 'b', [node(box(2, 0, 0, -5), 'behind')]);
    expect(f.picker.pick(0, 0)?.nodeId).toBe('right');
    setVisible(f.world, right, false);
    syncObjectFlags(f.world);
    expect((record.root.getObjectByName('right') as Mesh).visible).toBe(false);
    expect(f.picker.pick(0, 0)?.nodeId).toBe('behind');
  });
});
