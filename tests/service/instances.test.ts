import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FLOATS_PER_INSTANCE } from '../../src/protocol/instances.ts';
import type { InstanceChange } from '../../src/protocol/instance-changes.ts';
import { decodeInstanceSet } from '../../src/protocol/instance-set.ts';
import { FOLD_AFTER, LiveInstanceSet, checkChanges, createInstanceService, setFromMatrices } from '../../src/server/instances.ts';
import { openStore, type Store } from '../../src/server/store.ts';
import { backendEnv, unavailable, useBackends } from './backends.ts';
import { tempDir } from './helpers.ts';

const at = (x: number, y = 0, z = 0) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
const packed = (x: number, y = 0, z = 0) => [1, 0, 0, 0, 1, 0, 0, 0, 1, x, y, z];
let n = 0;
const uuid = () => `c${++n}`;
const move = (groupId: string, ids: number[], x: number): InstanceChange => ({ uuid: uuid(), createdAt: 1, groupId, type: 'setInstances', ids, matrices: ids.flatMap(() => packed(x)) });
const add = (groupId: string, ids: number[], x: number): InstanceChange => ({ uuid: uuid(), createdAt: 1, groupId, type: 'addInstances', ids, matrices: ids.flatMap(() => packed(x)) });
const remove = (groupId: string, ids: number[]): InstanceChange => ({ uuid: uuid(), createdAt: 1, groupId, type: 'removeInstances', ids });

/** The current set as {id: x} (x = the translation's first component). */
function xs(set: { ids: Uint32Array; matrices: Float32Array }): Record<number, number> {
  const out: Record<number, number> = {};
  set.ids.forEach((id, slot) => (out[id] = set.matrices[slot * FLOATS_PER_INSTANCE + 9]!));
  return out;
}

describe('a live instance set', () => {
  it('moves, adds and removes by id; slots stay packed and ids stay', () => {
    const set = new LiveInstanceSet({ ...setFromMatrices([at(0), at(1), at(2), at(3)]), revision: 0 });
    set.apply(remove('g', [1]), 1);
    expect(set.count).toBe(3);
    expect(xs(set.snapshot())).toEqual({ 0: 0, 2: 2, 3: 3 });
    set.apply(add('g', [4, 5], 9), 2);
    set.apply(move('g', [3], 7), 3);
    expect(xs(set.snapshot())).toEqual({ 0: 0, 2: 2, 3: 7, 4: 9, 5: 9 });
    expect(set.nextId).toBe(6);
    expect(decodeInstanceSet(set.encode()).revision).toBe(3);
  });

  it('applies a revision once: a change applied again (two readers catching up at once) changes nothing', () => {
    const set = new LiveInstanceSet({ ...setFromMatrices([at(0), at(1), at(2)]), revision: 0 });
    const change = remove('g', [0]);
    set.apply(change, 1);
    set.apply(change, 1);
    expect(set.count).toBe(2);
    expect(xs(set.snapshot())).toEqual({ 1: 1, 2: 2 });
    set.apply(add('g', [3], 5), 2);
    set.apply(add('g', [3], 5), 2);
    expect([...set.snapshot().ids].sort()).toEqual([1, 2, 3]);
  });

  it('new ids count up from nextId: an id far beyond it is refused (it would blow up the id index)', () => {
    const set = new LiveInstanceSet({ ...setFromMatrices([at(0), at(1)]), revision: 0 });
    const one = (change: InstanceChange) => checkChanges(set, [{ change, index: 0 }]);
    expect(() => one(add('g', [4294967295], 0))).toThrow(/Instance id 4294967295 is beyond the ids of group g: new ids count up from its next id 2/);
    expect(() => one(add('g', [3], 0))).toThrow(/beyond/);
    expect(() => one(add('g', [3, 2], 0))).not.toThrow();
  });

  it("checks a batch in order: 'No instance found with id ...', an id that exists", () => {
    const set = new LiveInstanceSet({ ...setFromMatrices([at(0), at(1)]), revision: 0 });
    const one = (change: InstanceChange) => checkChanges(set, [{ change, index: 0 }]);
    expect(() => one(remove('g', [7]))).toThrow('No instance found with id 7');
    expect(() => one(move('g', [2], 0))).toThrow('No instance found with id 2');
    expect(() => one(add('g', [1], 0))).toThrow(/Instance id 1 already exists/);
    // A removed id may come back (an undo of a delete restores the same instance).
    set.apply(remove('g', [1]), 1);
    expect(() => one(add('g', [1], 0))).not.toThrow();
    // A removal followed by a move of the same id in one batch fails at the move.
    expect(() => checkChanges(set, [{ change: remove('g', [0]), index: 0 }, { change: move('g', [0], 1), index: 1 }])).toThrow(/changes\[1\]: No instance found with id 0/);
    // An add followed by a move of the new id is fine.
    expect(() => checkChanges(set, [{ change: add('g', [2], 0), index: 0 }, { change: move('g', [2], 1), index: 1 }])).not.toThrow();
  });
});

describe.each(useBackends())('instance service on %s', (backend) => {
  let dir: string;
  let databaseUrl: string | undefined;
  let store: Store;
  const sceneId = 'city';
  const open = () => openStore({ dataDir: dir, databaseUrl });

  beforeEach(async ({ skip }) => {
    if (unavailable(backend)) skip();
    dir = await tempDir('instances-');
    databaseUrl = (await backendEnv(backend)).DATABASE_URL;
    store = await open();
    await store.createScene({ _id: sceneId, name: 'City' });
  });
  afterEach(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores a move as one small log row and serves the current set', async () => {
    const service = createInstanceService(store);
    const big = setFromMatrices(Array.from({ length: 5000 }, (_, i) => at(i)));
    expect(await service.replace(sceneId, 'trees', big)).toBe(1);
    const change = move('trees', [4321], -5);
    const result = await service.apply(sceneId, [change], 'ada');
    expect(result).toEqual({ applied: [change.uuid], skipped: [], groups: { trees: { revision: 2, nextId: 5000, count: 5000 } } });
    const log = await store.listInstanceChanges(sceneId, 'trees', 1);
    expect(log).toHaveLength(1);
    expect(log[0]!.body.length).toBeLessThan(400);
    // A second process (a fresh service on the same database) sees the same set.
    const other = createInstanceService(store);
    const served = decodeInstanceSet((await other.read(sceneId, 'trees'))!.bytes);
    expect(served.revision).toBe(2);
    expect(xs(served)[4321]).toBe(-5);
    expect(xs(served)[4320]).toBe(4320);
  });

  it('is idempotent by change uuid and refuses a reused uuid with other content', async () => {
    const service = createInstanceService(store);
    await service.replace(sceneId, 'cars', setFromMatrices([at(0), at(1), at(2)]));
    const change = remove('cars', [1]);
    expect((await service.apply(sceneId, [change], null)).applied).toEqual([change.uuid]);
    // The retried request: skipped, not 'No instance found with id 1'.
    expect(await service.apply(sceneId, [change], null)).toEqual({ applied: [], skipped: [change.uuid], groups: {} });
    await expect(service.apply(sceneId, [{ ...change, ids: [2] }], null)).rejects.toThrow(/already saved with different content/);
    await expect(service.apply(sceneId, [remove('cars', [9])], null)).rejects.toMatchObject({ statusCode: 404, message: 'changes[0]: No instance found with id 9' });
  });

  it('two reads catching up at once from the log give the same set, not a change applied twice', async () => {
    const a = createInstanceService(store);
    const b = createInstanceService(store);
    await a.replace(sceneId, 'poles', setFromMatrices([at(0), at(1), at(2)]));
    await b.read(sceneId, 'poles');
    await a.apply(sceneId, [remove('poles', [0]), add('poles', [3], 9)], null);
    const [one, two] = await Promise.all([b.read(sceneId, 'poles'), b.read(sceneId, 'poles')]);
    for (const read of [one, two]) expect(xs(decodeInstanceSet(read!.bytes))).toEqual({ 1: 1, 2: 2, 3: 9 });
  });

  it('keeps two writers in step: a writer that planned on an old revision reads the log and plans again', async () => {
    const a = createInstanceService(store);
    const b = createInstanceService(store);
    await a.replace(sceneId, 'lamps', setFromMatrices([at(0), at(1)]));
    await b.read(sceneId, 'lamps'); // b caches revision 1
    await a.apply(sceneId, [remove('lamps', [0])], null);
    // b's cache is behind; its move of 0 must fail as a missing id, and its add must take id 2.
    await expect(b.apply(sceneId, [move('lamps', [0], 3)], null)).rejects.toThrow('No instance found with id 0');
    await expect(b.apply(sceneId, [add('lamps', [1], 3)], null)).rejects.toThrow(/already exists/);
    const added = await b.apply(sceneId, [add('lamps', [2], 3)], null);
    expect(added.groups.lamps).toEqual({ revision: 3, nextId: 3, count: 2 });
    expect(xs(decodeInstanceSet((await a.read(sceneId, 'lamps'))!.bytes))).toEqual({ 1: 1, 2: 3 });
  });

  it(`folds the log into a new base after ${FOLD_AFTER} changes, keeping ids and the uuids of the folded changes`, async () => {
    const service = createInstanceService(store);
    await service.replace(sceneId, 'benches', setFromMatrices(Array.from({ length: 50 }, (_, i) => at(i))));
    const first = move('benches', [0], 100);
    await service.apply(sceneId, [first], null);
    const changes = Array.from({ length: FOLD_AFTER }, (_, i) => move('benches', [1 + (i % 49)], 1000 + i));
    for (let i = 0; i < changes.length; i += 100) await service.apply(sceneId, changes.slice(i, i + 100), null);
    const record = (await store.getInstanceGroup(sceneId, 'benches'))!;
    expect(record.baseRevision).toBeGreaterThan(1);
    expect(decodeInstanceSet(record.base).revision).toBe(record.baseRevision);
    // A fresh reader from the new base gets the same set as the writer's.
    const fresh = createInstanceService(store);
    expect(xs(decodeInstanceSet((await fresh.read(sceneId, 'benches'))!.bytes))).toEqual(xs(decodeInstanceSet((await service.read(sceneId, 'benches'))!.bytes)));
    expect((await fresh.apply(sceneId, [first], null)).skipped).toEqual([first.uuid]);
  });

  it('a replacement never gives an id twice; removing the group removes its instances', async () => {
    const service = createInstanceService(store);
    await service.replace(sceneId, 'g', setFromMatrices([at(0), at(1), at(2)]));
    await service.apply(sceneId, [add('g', [3], 0)], null);
    await service.replace(sceneId, 'g', setFromMatrices([at(5)]));
    const set = decodeInstanceSet((await service.read(sceneId, 'g'))!.bytes);
    expect(set.nextId).toBe(4);
    await service.remove(sceneId, 'g');
    expect(await service.read(sceneId, 'g')).toBeUndefined();
  });
});
