import { BoxGeometry, Group, Matrix4, MeshBasicMaterial, PerspectiveCamera } from 'three';
import { describe, expect, it } from 'vitest';
import { bindObject } from '../../../src/engine/registry';
import { createInstanceGroup, getInstanceMatrix, instanceIds, type InstanceAsset } from '../../../src/engine/instances';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';
import { FLOATS_PER_INSTANCE } from '../../../src/protocol/instances';
import { ApplyInstanceChangesRequest } from '../../../src/protocol/instance-changes';
import { AddInstancesCommand, RemoveInstancesCommand, SetInstancesCommand } from '../../../src/editor/instance-commands';
import { besideMatrices, createInstanceApplier, IDS_PER_CHANGE, idsKey, instanceChanges, instancesInRect, readInstanceMatrices } from '../../../src/editor/instance-editing';
import { MutationQueues } from '../../../src/editor/mutation-queue';
import { INSTANCES_QUEUE } from '../../../src/editor/saver';

const asset: InstanceAsset = {
  assetId: 'crate',
  parts: [{ name: 'box', geometry: new BoxGeometry(1, 1, 1), material: new MeshBasicMaterial() }],
  box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
  placeholder: false,
};

function setup(n: number, groupX = 0) {
  const world = createViewerWorld();
  const eid = addViewerEntity(world);
  const object = new Group();
  object.position.x = groupX;
  object.updateMatrixWorld(true);
  bindObject(world, eid, object);
  const matrices = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) new Matrix4().makeTranslation(i * 2, 0, 0).toArray(matrices, i * 16);
  const group = createInstanceGroup(world, eid, { uuid: 'g1', asset, ids: new Uint32Array(n).map((_, i) => i), matrices });
  return { world, group };
}

const at = (x: number) => new Float32Array(new Matrix4().makeTranslation(x, 0, 0).elements);

describe('instance changes to save', () => {
  it('pack 16-number matrices into 12, chunk large edits and give a drag of the same instances one key', () => {
    const ids = Array.from({ length: IDS_PER_CHANGE + 5 }, (_, i) => i);
    const matrices = new Float32Array(ids.length * 16);
    for (let i = 0; i < ids.length; i++) matrices.set(at(i), i * 16);
    const changes = instanceChanges('setInstances', 'g1', ids, matrices, 7);
    expect(changes.map((c) => c.ids.length)).toEqual([IDS_PER_CHANGE, 5]);
    const last = changes[1]! as { matrices: number[] };
    expect(last.matrices).toHaveLength(5 * FLOATS_PER_INSTANCE);
    expect(last.matrices[9]).toBe(IDS_PER_CHANGE); // x of the first instance of the second chunk
    // The server takes them as they are.
    expect(() => ApplyInstanceChangesRequest.parse({ changes })).not.toThrow();
    // The same instances moved again: the same key (the queue keeps only the last); others differ.
    expect(instanceChanges('setInstances', 'g1', [3], at(1))[0]!.key).toBe(instanceChanges('setInstances', 'g1', [3], at(2))[0]!.key);
    expect(idsKey([1, 2, 3])).not.toBe(idsKey([1, 2, 4]));
    // Adds and removes never replace one another.
    expect(instanceChanges('removeInstances', 'g1', [3])[0]!.key).not.toBe(instanceChanges('removeInstances', 'g1', [3])[0]!.key);
  });
});

describe('instance commands', () => {
  it('move, remove and copy by id with undo, queuing each change', () => {
    const { world, group } = setup(4);
    const queues = new MutationQueues();
    const touched: string[] = [];
    const applier = createInstanceApplier(world, queues, (groupId, removed) => touched.push(`${groupId}:${removed ? removed.join(',') : 'changed'}`));
    const m = new Matrix4();

    const move = new SetInstancesCommand(applier, 'g1', [2], readInstanceMatrices(group, [2]), at(10), 'Move');
    move.execute();
    expect(getInstanceMatrix(group, 2, m).elements[12]).toBe(10);
    move.undo();
    expect(getInstanceMatrix(group, 2, m).elements[12]).toBe(4);

    const remove = new RemoveInstancesCommand(applier, 'g1', [1, 3], readInstanceMatrices(group, [1, 3]), 'Delete');
    remove.execute();
    expect([...instanceIds(group)].sort()).toEqual([0, 2]);
    remove.undo();
    expect([...instanceIds(group)].sort()).toEqual([0, 1, 2, 3]);
    expect(getInstanceMatrix(group, 3, m).elements[12]).toBe(6);

    const copy = new AddInstancesCommand(applier, 'g1', [group.nextId], besideMatrices(group, [3]), 'Copy');
    copy.execute();
    expect(getInstanceMatrix(group, 4, m).elements[12]).toBeCloseTo(6 + 1.1, 5);
    copy.undo();
    expect(() => getInstanceMatrix(group, 4, m)).toThrow('No instance found with id 4');

    const queued = queues.snapshot()[INSTANCES_QUEUE]! as unknown as { type: string; ids: number[] }[];
    // The move and its undo are one key: the last write stays.
    expect(queued.map((c) => `${c.type}:${c.ids.join(',')}`)).toEqual(['setInstances:2', 'removeInstances:1,3', 'addInstances:1,3', 'addInstances:4', 'removeInstances:4']);
    expect(touched).toContain('g1:1,3');
  });

  it("refuses an unknown id with the spec's error and queues nothing", () => {
    const { world } = setup(2);
    const queues = new MutationQueues();
    const applier = createInstanceApplier(world, queues, () => {});
    expect(() => applier.removeInstances('g1', [9])).toThrow('No instance found with id 9');
    expect(() => applier.setInstances('g1', [9], at(0))).toThrow('No instance found with id 9');
    expect(queues.size).toBe(0);
    expect(() => applier.removeInstances('nope', [0])).toThrow(/no instanced asset group 'nope'/);
  });
});

describe('box selection', () => {
  it('takes the instances whose centres project inside the rectangle, in the group transform', () => {
    const { group } = setup(5, -4); // instances at world x = -4, -2, 0, 2, 4
    const camera = new PerspectiveCamera(60, 1, 0.1, 100);
    camera.position.set(0, 0, 10);
    camera.lookAt(0, 0, 0);
    camera.updateMatrixWorld();
    camera.updateProjectionMatrix();
    // The middle of the view: world x = 0 (instance 2) and its neighbours within about 2.5 m.
    expect(instancesInRect(group, camera, -0.45, -0.2, 0.45, 0.2).sort()).toEqual([1, 2, 3]);
    expect(instancesInRect(group, camera, 0.9, 0.9, 1, 1)).toEqual([]);
    // Behind the camera nothing is taken.
    camera.lookAt(0, 0, 20);
    camera.updateMatrixWorld();
    expect(instancesInRect(group, camera, -1, -1, 1, 1)).toEqual([]);
  });
});
