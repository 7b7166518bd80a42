import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { Object3D } from 'three';
import { Transform } from '../../../../components';
import { spawnTransformEntity } from '../../../../src/engine/hierarchy';
import { transformSystem } from '../../../../systems/transformSystem';
import { addModel, setup } from '../../support/viewer-api';

describe('viewer API: models and nodes', () => {
  it('keeps the present highlight when a highlight is refused', async () => {
    const { world, run, viewer } = setup();
    const { rec } = addModel(world);
    const node = new Object3D();
    rec.root.add(node);
    rec.nodes.set('n1', 7);
    rec.nodeIds.set(7, 'n1');
    world.objects[7] = node;
    const highlights = () => viewer.context.scene.children.filter((o) => o.name === 'host-api-highlight');
    await run('highlightObject', { modelId: 'm1', nodeId: 'n1' });
    expect(highlights()).toHaveLength(1);
    await expect(run('highlightObject', { modelId: 'm1', nodeId: 'nope' })).rejects.toThrow("Model 'm1' has no node 'nope'.");
    expect(highlights()).toHaveLength(1);
    await run('highlightObject', { nodeId: null });
    expect(highlights()).toHaveLength(0);
  });

  it("writes a node's translation, rotation (degrees) and scale through the one door: Transform and the object in step", async () => {
    const { world, run } = setup();
    const { rec } = addModel(world);
    const eid = spawnTransformEntity(world);
    const node = new Object3D();
    node.name = 'Valve';
    rec.root.add(node);
    rec.nodes.set('n1', eid);
    rec.nodeIds.set(eid, 'n1');
    world.objects[eid] = node;
    transformSystem(world);
    world.render.needsRender = false;

    const moved = await run('setObjectTranslation', { modelId: 'm1', nodeId: 'n1', translation: [1, 2, 3] });
    expect(moved).toMatchObject({ nodeId: 'n1', name: 'Valve', translation: [1, 2, 3], scale: [1, 1, 1] });
    expect(Array.from(Transform.position.subarray(eid * 3, eid * 3 + 3))).toEqual([1, 2, 3]);
    expect(node.position.toArray()).toEqual([1, 2, 3]);
    expect(Transform.dirty[eid]).toBe(1);
    expect(world.render.needsRender).toBe(true);

    const turned = await run('setObjectRotation', { modelId: 'm1', nodeId: 'n1', rotation: [0, 60, 0] });
    expect(turned.rotation.map((v: number) => Math.round(v * 1e3) / 1e3 + 0)).toEqual([0, 60, 0]);
    expect(turned.translation).toEqual([1, 2, 3]);
    expect(node.quaternion.y).toBeCloseTo(0.5, 6);

    const scaled = await run('setObjectScale', { modelId: 'm1', nodeId: 'n1', scale: [2, 2, 2] });
    expect(scaled.scale).toEqual([2, 2, 2]);
    expect(node.scale.toArray()).toEqual([2, 2, 2]);
    await expect(run('setObjectScale', { modelId: 'm1', nodeId: 'n1', scale: [0, 1, 1] })).rejects.toThrow('scale must not have a 0 component');
    expect(node.scale.toArray()).toEqual([2, 2, 2]);
    await expect(run('setObjectTranslation', { modelId: 'm1', nodeId: 'nope', translation: [0, 0, 0] })).rejects.toThrow("Model 'm1' has no node 'nope'.");
  });
});
