import { entityExists, hasComponent } from 'bitecs';
import { describe, expect, it } from 'vitest';
import { Transform } from '../../../components';
import {
  addTransform,
  markTransformDirty,
  rebuildTransformOrder,
  removeTransformEntity,
  setParent,
  setPosition,
  spawnTransformEntity,
} from '../../../src/engine/hierarchy';
import { addViewerEntity, createViewerWorld, type ViewerWorld } from '../../../src/engine/world';

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function read(array: Float32Array, eid: number, size: number): number[] {
  return Array.from(array.subarray(eid * size, eid * size + size));
}

function order(world: ViewerWorld): number[] {
  return Array.from(world.transform.order.subarray(0, world.transform.count));
}

describe('addTransform', () => {
  it('writes the given local transform and every other field', () => {
    const world = createViewerWorld();
    const parent = spawnTransformEntity(world);
    const eid = addViewerEntity(world);
    addTransform(world, eid, parent, [1, 2, 3], [0, 0, 0.6, 0.8], [2, 3, 4]);
    expect(hasComponent(world, eid, Transform)).toBe(true);
    expect(read(Transform.position, eid, 3)).toEqual([1, 2, 3]);
    expect(read(Transform.rotation, eid, 4)).toEqual([0, 0, Math.fround(0.6), Math.fround(0.8)]);
    expect(read(Transform.scale, eid, 3)).toEqual([2, 3, 4]);
    expect(read(Transform.world, eid, 16)).toEqual(IDENTITY);
    expect(Transform.parent[eid]).toBe(parent);
    expect(Transform.depth[eid]).toBe(0);
    expect(Transform.dirty[eid]).toBe(1);
    expect(Transform.worldChanged[eid]).toBe(0);
    expect(world.transform.anyDirty).toBe(true);
  });

  it('defaults to the identity transform', () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    expect(read(Transform.position, eid, 3)).toEqual([0, 0, 0]);
    expect(read(Transform.rotation, eid, 4)).toEqual([0, 0, 0, 1]);
    expect(read(Transform.scale, eid, 3)).toEqual([1, 1, 1]);
    expect(Transform.parent[eid]).toBe(0);
  });

  it('overwrites whatever a removed entity left in a reused id', () => {
    const world = createViewerWorld();
    const parent = spawnTransformEntity(world);
    const old = spawnTransformEntity(world, parent);
    setPosition(world, old, 9, 9, 9);
    Transform.rotation.set([1, 0, 0, 0], old * 4);
    Transform.scale.set([5, 5, 5], old * 3);
    Transform.world.fill(7, old * 16, old * 16 + 16);
    Transform.depth[old] = 12;
    Transform.worldChanged[old] = 1;
    removeTransformEntity(world, old);

    const reused = spawnTransformEntity(world);
    expect(reused).toBe(old);
    expect(read(Transform.position, reused, 3)).toEqual([0, 0, 0]);
    expect(read(Transform.rotation, reused, 4)).toEqual([0, 0, 0, 1]);
    expect(read(Transform.scale, reused, 3)).toEqual([1, 1, 1]);
    expect(read(Transform.world, reused, 16)).toEqual(IDENTITY);
    expect(Transform.parent[reused]).toBe(0);
    expect(Transform.depth[reused]).toBe(0);
    expect(Transform.worldChanged[reused]).toBe(0);
    expect(Transform.dirty[reused]).toBe(1);
  });

  it('bumps the hierarchy version so the order is rebuilt', () => {
    const world = createViewerWorld();
    const v = world.transform.version;
    spawnTransformEntity(world);
    expect(world.transform.version).toBe(v + 1);
  });
});

describe('setParent', () => {
  it('moves an entity under another parent, keeping its local transform', () => {
    const world = createViewerWorld();
    const a = spawnTransformEntity(world);
    const b = spawnTransformEntity(world);
    const child = spawnTransformEntity(world, a);
    setPosition(world, child, 1, 2, 3);
    Transform.dirty[child] = 0;
    world.transform.anyDirty = false;
    const v = world.transform.version;

    setParent(world, child, b);
    expect(Transform.parent[child]).toBe(b);
    expect(read(Transform.position, child, 3)).toEqual([1, 2, 3]);
    expect(Transform.dirty[child]).toBe(1);
    expect(world.transform.anyDirty).toBe(true);
    expect(world.transform.version).toBe(v + 1);

    setParent(world, child, 0);
    expect(Transform.parent[child]).toBe(0);
  });

  it('refuses to make an entity its own parent', () => {
    const world = createViewerWorld();
    const a = spawnTransformEntity(world);
    expect(() => setParent(world, a, a)).toThrow(`Entity ${a} is a descendant of ${a}; it cannot become its parent.`);
    expect(Transform.parent[a]).toBe(0);
  });

  it('refuses a cycle through any number of generations and changes nothing', () => {
    const world = createViewerWorld();
    const root = spawnTransformEntity(world);
    const child = spawnTransformEntity(world, root);
    const grandchild = spawnTransformEntity(world, child);
    const deep = spawnTransformEntity(world, grandchild);
    const v = world.transform.version;
    expect(() => setParent(world, root, child)).toThrow(`Entity ${child} is a descendant of ${root}; it cannot become its parent.`);
    expect(() => setParent(world, root, deep)).toThrow('cannot become its parent');
    expect(() => setParent(world, child, deep)).toThrow('cannot become its parent');
    expect(Transform.parent[root]).toBe(0);
    expect(Transform.parent[child]).toBe(root);
    expect(world.transform.version).toBe(v);
    // Moving down a branch that is not its own is fine.
    const other = spawnTransformEntity(world);
    setParent(world, root, other);
    expect(Transform.parent[root]).toBe(other);
  });

  it('refuses a parent without a Transform (or one that does not exist)', () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    const bare = addViewerEntity(world);
    const v = world.transform.version;
    expect(() => setParent(world, eid, bare)).toThrow(`Entity ${bare} has no Transform.`);
    expect(() => setParent(world, eid, 9999)).toThrow('Entity 9999 has no Transform.');
    expect(Transform.parent[eid]).toBe(0);
    expect(world.transform.version).toBe(v);
  });

  it('refuses an entity without a Transform', () => {
    const world = createViewerWorld();
    const bare = addViewerEntity(world);
    const parent = spawnTransformEntity(world);
    expect(() => setParent(world, bare, parent)).toThrow(`Entity ${bare} has no Transform.`);
  });
});

describe('markTransformDirty and setPosition', () => {
  it('flag the entity and the world', () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    Transform.dirty[eid] = 0;
    world.transform.anyDirty = false;
    markTransformDirty(world, eid);
    expect(Transform.dirty[eid]).toBe(1);
    expect(world.transform.anyDirty).toBe(true);

    Transform.dirty[eid] = 0;
    world.transform.anyDirty = false;
    setPosition(world, eid, -1, 0.5, 4);
    expect(read(Transform.position, eid, 3)).toEqual([-1, 0.5, 4]);
    expect(Transform.dirty[eid]).toBe(1);
    expect(world.transform.anyDirty).toBe(true);
  });

  it('do not change the hierarchy version', () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    const v = world.transform.version;
    setPosition(world, eid, 1, 1, 1);
    markTransformDirty(world, eid);
    expect(world.transform.version).toBe(v);
  });
});

describe('removeTransformEntity', () => {
  it('removes the entity and clears its flags and parent link', () => {
    const world = createViewerWorld();
    const parent = spawnTransformEntity(world);
    const eid = spawnTransformEntity(world, parent);
    Transform.worldChanged[eid] = 1;
    const v = world.transform.version;
    removeTransformEntity(world, eid);
    expect(entityExists(world, eid)).toBe(false);
    expect(Transform.parent[eid]).toBe(0);
    expect(Transform.dirty[eid]).toBe(0);
    expect(Transform.worldChanged[eid]).toBe(0);
    expect(world.transform.version).toBe(v + 1);
    rebuildTransformOrder(world);
    expect(order(world)).toEqual([parent]);
  });
});

describe('rebuildTransformOrder', () => {
  it('puts parents before children even when parents were spawned later', () => {
    const world = createViewerWorld();
    // Spawn leaves first, then attach them under parents created afterwards.
    const leaf = spawnTransformEntity(world);
    const mid = spawnTransformEntity(world);
    const top = spawnTransformEntity(world);
    const otherLeaf = spawnTransformEntity(world);
    setParent(world, leaf, mid);
    setParent(world, mid, top);
    setParent(world, otherLeaf, top);
    rebuildTransformOrder(world);
    const o = order(world);
    expect(o).toHaveLength(4);
    expect(new Set(o)).toEqual(new Set([leaf, mid, top, otherLeaf]));
    expect(o.indexOf(top)).toBeLessThan(o.indexOf(mid));
    expect(o.indexOf(mid)).toBeLessThan(o.indexOf(leaf));
    expect(o.indexOf(top)).toBeLessThan(o.indexOf(otherLeaf));
    expect([Transform.depth[top], Transform.depth[mid], Transform.depth[leaf], Transform.depth[otherLeaf]]).toEqual([0, 1, 2, 1]);
    expect(world.transform.builtVersion).toBe(world.transform.version);
  });

  it('sorts by depth for a random forest', () => {
    const world = createViewerWorld();
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const eids: number[] = [];
    for (let i = 0; i < 500; i++) eids.push(spawnTransformEntity(world));
    // Random parent with a lower index keeps it acyclic, then shuffle the spawn-order meaning.
    const shuffled = eids.slice().sort(() => random() - 0.5);
    for (let i = 1; i < shuffled.length; i++) {
      if (random() < 0.1) continue; // some roots
      setParent(world, shuffled[i], shuffled[Math.floor(random() * i)]);
    }
    rebuildTransformOrder(world);
    const o = order(world);
    expect(o).toHaveLength(500);
    const position = new Map(o.map((e, i) => [e, i]));
    for (const e of eids) {
      const p = Transform.parent[e];
      const expectedDepth = p === 0 ? 0 : Transform.depth[p] + 1;
      expect(Transform.depth[e]).toBe(expectedDepth);
      if (p !== 0) expect(position.get(p)!).toBeLessThan(position.get(e)!);
    }
    for (let i = 1; i < o.length; i++) expect(Transform.depth[o[i]]).toBeGreaterThanOrEqual(Transform.depth[o[i - 1]]);
  });

  it('updates depths after a subtree moves', () => {
    const world = createViewerWorld();
    const a = spawnTransformEntity(world);
    const b = spawnTransformEntity(world, a);
    const c = spawnTransformEntity(world, b);
    const d = spawnTransformEntity(world, c);
    rebuildTransformOrder(world);
    expect(Transform.depth[d]).toBe(3);
    setParent(world, c, 0);
    rebuildTransformOrder(world);
    expect(Transform.depth[c]).toBe(0);
    expect(Transform.depth[d]).toBe(1);
  });

  it('grows the order buffer past its initial size', () => {
    const world = createViewerWorld();
    const initial = world.transform.order.length;
    for (let i = 0; i < initial + 10; i++) spawnTransformEntity(world);
    rebuildTransformOrder(world);
    expect(world.transform.count).toBe(initial + 10);
    expect(world.transform.order.length).toBeGreaterThanOrEqual(initial + 10);
  });

  it('handles a 10,000-deep chain', () => {
    const world = createViewerWorld();
    let parent = 0;
    const n = 10_000;
    for (let i = 0; i < n; i++) parent = spawnTransformEntity(world, parent);
    rebuildTransformOrder(world);
    expect(Transform.depth[parent]).toBe(n - 1);
    expect(world.transform.order[n - 1]).toBe(parent);
  });

  it('ignores entities without a Transform', () => {
    const world = createViewerWorld();
    addViewerEntity(world);
    const eid = spawnTransformEntity(world);
    rebuildTransformOrder(world);
    expect(order(world)).toEqual([eid]);
  });
});
