import { Matrix4, Object3D, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Transform } from '../../../components';
import { removeTransformEntity, setParent, setPosition, spawnTransformEntity, markTransformDirty } from '../../../src/engine/hierarchy';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { transformSystem } from '../../../systems/transformSystem';

/** A small deterministic generator (Park-Miller), so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

interface Pair {
  eid: number;
  object: Object3D;
}

/** Gives an entity and its Object3D twin the same random local transform. */
function randomLocal(world: ViewerWorld, pair: Pair, rnd: () => number): void {
  const p = new Vector3(rnd() * 10 - 5, rnd() * 10 - 5, rnd() * 10 - 5);
  const q = new Quaternion(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
  const s = new Vector3(0.7 + rnd() * 0.7, 0.7 + rnd() * 0.7, 0.7 + rnd() * 0.7);
  setLocal(world, pair, p, q, s);
}

function setLocal(world: ViewerWorld, { eid, object }: Pair, p: Vector3, q: Quaternion, s: Vector3): void {
  p.toArray(Transform.position, eid * 3);
  q.toArray(Transform.rotation, eid * 4);
  s.toArray(Transform.scale, eid * 3);
  markTransformDirty(world, eid);
  // The twin gets exactly what the Float32 arrays hold.
  object.position.fromArray(Transform.position, eid * 3);
  object.quaternion.fromArray(Transform.rotation, eid * 4);
  object.scale.fromArray(Transform.scale, eid * 3);
}

/**
 * A random forest of n nodes, in the ECS and as an equivalent Object3D graph under `scene`.
 * With `parentsLater`, every node is spawned as a root first and attached to a parent spawned
 * after it, so the spawn order is the reverse of the hierarchy.
 */
function randomForest(world: ViewerWorld, n: number, seed: number, parentsLater = false): { pairs: Pair[]; scene: Object3D } {
  const rnd = random(seed);
  const scene = new Object3D();
  const pairs: Pair[] = [];
  for (let i = 0; i < n; i++) {
    const pair = { eid: spawnTransformEntity(world), object: new Object3D() };
    pair.object.name = String(pair.eid);
    randomLocal(world, pair, rnd);
    pairs.push(pair);
    scene.add(pair.object);
  }
  // Node i's parent is a node with a smaller index (or none); with parentsLater, a larger one.
  for (let i = 0; i < n; i++) {
    const candidates = parentsLater ? n - 1 - i : i;
    if (candidates === 0 || rnd() < 0.05) continue;
    const j = parentsLater ? i + 1 + Math.floor(rnd() * candidates) : Math.floor(rnd() * candidates);
    setParent(world, pairs[i].eid, pairs[j].eid);
    pairs[j].object.add(pairs[i].object);
  }
  return { pairs, scene };
}

function worldOf(eid: number): number[] {
  return Array.from(Transform.world.subarray(eid * 16, eid * 16 + 16));
}

/** Float32 storage: equal within 1e-5, relative to the magnitude for values above 1. */
function expectMatrixClose(actual: ArrayLike<number>, expected: ArrayLike<number>, label = ''): void {
  for (let k = 0; k < 16; k++) {
    const tolerance = 1e-5 * Math.max(1, Math.abs(expected[k]));
    if (!(Math.abs(actual[k] - expected[k]) <= tolerance)) {
      throw new Error(`${label} element ${k}: ${actual[k]} vs ${expected[k]}\n${Array.from(actual)}\n${Array.from(expected)}`);
    }
  }
}

function expectSameAsThree(pairs: Pair[], scene: Object3D): void {
  scene.updateMatrixWorld(true);
  for (const { eid, object } of pairs) expectMatrixClose(worldOf(eid), object.matrixWorld.elements, `entity ${eid}`);
}

function changedSet(pairs: Pair[]): Set<number> {
  return new Set(pairs.filter((p) => Transform.worldChanged[p.eid] === 1).map((p) => p.eid));
}

function subtree(root: Pair, pairs: Pair[]): Set<number> {
  const out = new Set<number>();
  root.object.traverse((o) => out.add(Number(o.name)));
  return new Set(pairs.filter((p) => out.has(p.eid)).map((p) => p.eid));
}

describe('transformSystem', () => {
  it('matches Matrix4.compose and multiplyMatrices along a chain', () => {
    const world = createViewerWorld();
    const a = spawnTransformEntity(world);
    const b = spawnTransformEntity(world, a);
    const c = spawnTransformEntity(world, b);
    const locals = [
      [new Vector3(1, 2, 3), new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), 0.7), new Vector3(2, 2, 2)],
      [new Vector3(-4, 0.5, 0), new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), -1.2), new Vector3(1, 0.5, 3)],
      [new Vector3(0, 0, 9), new Quaternion().setFromAxisAngle(new Vector3(0.6, 0, 0.8), 2.5), new Vector3(0.25, 1, 1)],
    ] as const;
    const eids = [a, b, c];
    eids.forEach((e, i) => setLocal(world, { eid: e, object: new Object3D() }, locals[i][0].clone(), locals[i][1].clone(), locals[i][2].clone()));
    transformSystem(world);

    let expected = new Matrix4();
    eids.forEach((e, i) => {
      const local = new Matrix4().compose(
        new Vector3().fromArray(Transform.position, e * 3),
        new Quaternion().fromArray(Transform.rotation, e * 4),
        new Vector3().fromArray(Transform.scale, e * 3),
      );
      expected = new Matrix4().multiplyMatrices(expected, local);
      expectMatrixClose(worldOf(e), expected.elements, `level ${i}`);
    });
  });

  it('matches three.js updateMatrixWorld for random trees', () => {
    for (const seed of [1, 42, 20240601]) {
      const world = createViewerWorld();
      const { pairs, scene } = randomForest(world, 400, seed);
      transformSystem(world);
      expectSameAsThree(pairs, scene);
      expect(world.transform.changed).toBe(400);
    }
  });

  it('orders parents before children when parents were spawned after their children', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 300, 9, true);
    // The first spawned entities are the deepest: the spawn order is no use as an update order.
    expect(Transform.parent[pairs[0].eid]).not.toBe(0);
    transformSystem(world);
    expectSameAsThree(pairs, scene);
    const order = Array.from(world.transform.order.subarray(0, world.transform.count));
    const at = new Map(order.map((e, i) => [e, i]));
    for (const { eid } of pairs) {
      const p = Transform.parent[eid];
      if (p) expect(at.get(p)!).toBeLessThan(at.get(eid)!);
    }
  });

  it('recomputes only dirty entities and their descendants, and flags exactly those', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 300, 5);
    transformSystem(world);
    const rnd = random(77);
    // A node with a real subtree, and an unrelated leaf elsewhere.
    const moved = pairs.find((p) => p.object.children.length >= 2 && p.object.parent !== scene)!;
    const inside = subtree(moved, pairs);
    const outside = pairs.filter((p) => !inside.has(p.eid));
    // Poison world matrices outside the subtree (but not its ancestors, which it reads): a
    // recompute would overwrite them.
    const ancestors = new Set<number>();
    for (let e = Transform.parent[moved.eid]; e !== 0; e = Transform.parent[e]) ancestors.add(e);
    const poisoned = outside.filter((p) => !ancestors.has(p.eid)).slice(0, 40);
    expect(poisoned.length).toBe(40);
    for (const p of poisoned) Transform.world.fill(123, p.eid * 16, p.eid * 16 + 16);

    randomLocal(world, moved, rnd);
    transformSystem(world);

    expect(changedSet(pairs)).toEqual(inside);
    expect(world.transform.changed).toBe(inside.size);
    for (const p of poisoned) expect(worldOf(p.eid)).toEqual(new Array(16).fill(123));
    for (const p of pairs) expect(Transform.dirty[p.eid]).toBe(0);
    expect(world.transform.anyDirty).toBe(false);
    scene.updateMatrixWorld(true);
    for (const p of pairs) if (inside.has(p.eid)) expectMatrixClose(worldOf(p.eid), p.object.matrixWorld.elements);
  });

  it('clears last frame’s flags on a still frame and recomputes nothing', () => {
    const world = createViewerWorld();
    const { pairs } = randomForest(world, 100, 3);
    transformSystem(world);
    expect(changedSet(pairs).size).toBe(100);
    const before = pairs.map((p) => worldOf(p.eid));
    Transform.world.fill(5, pairs[10].eid * 16, pairs[10].eid * 16 + 16);
    transformSystem(world);
    expect(changedSet(pairs).size).toBe(0);
    expect(world.transform.changed).toBe(0);
    expect(worldOf(pairs[10].eid)).toEqual(new Array(16).fill(5));
    Transform.world.set(before[10], pairs[10].eid * 16);
    // A second still frame stays still.
    transformSystem(world);
    expect(changedSet(pairs).size).toBe(0);
  });

  it('flags each of several dirty entities in one subtree once and gets the same result', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 200, 11);
    transformSystem(world);
    const rnd = random(5);
    const parent = pairs.find((p) => p.object.children.length > 0)!;
    const child = pairs.find((p) => p.eid === Number(parent.object.children[0].name))!;
    randomLocal(world, child, rnd);
    randomLocal(world, parent, rnd);
    transformSystem(world);
    expect(changedSet(pairs)).toEqual(subtree(parent, pairs));
    expectSameAsThree(pairs, scene);
  });

  it('moves a subtree with its new parent after reparenting', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 200, 21);
    transformSystem(world);
    const moving = pairs.find((p) => p.object.children.length > 0 && p.object.parent !== scene)!;
    const inside = subtree(moving, pairs);
    const target = pairs.find((p) => !inside.has(p.eid) && p.object.parent !== moving.object.parent)!;
    setParent(world, moving.eid, target.eid);
    target.object.add(moving.object); // keeps the local transform, like setParent
    transformSystem(world);
    expect(changedSet(pairs)).toEqual(subtree(moving, pairs));
    expectSameAsThree(pairs, scene);

    // And back to the root.
    setParent(world, moving.eid, 0);
    scene.add(moving.object);
    transformSystem(world);
    expectSameAsThree(pairs, scene);
    expectMatrixClose(worldOf(moving.eid), new Matrix4().compose(moving.object.position, moving.object.quaternion, moving.object.scale).elements);
  });

  it('refuses a cycle and keeps the tree intact', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 100, 8);
    transformSystem(world);
    const top = pairs.find((p) => p.object.parent === scene && p.object.children.length > 0)!;
    const leaf = pairs.find((p) => p.object.children.length === 0 && subtree(top, pairs).has(p.eid) && p !== top)!;
    expect(() => setParent(world, top.eid, leaf.eid)).toThrow('cannot become its parent');
    expect(() => setParent(world, top.eid, top.eid)).toThrow('cannot become its parent');
    expect(Transform.parent[top.eid]).toBe(0);
    randomLocal(world, top, random(1));
    transformSystem(world);
    expectSameAsThree(pairs, scene);
  });

  it('leaves no stale state in entity ids reused after removal', () => {
    const world = createViewerWorld();
    const { pairs, scene } = randomForest(world, 150, 13);
    transformSystem(world);
    // Remove a whole subtree, children first (leaves before parents).
    const victim = pairs.find((p) => p.object.children.length >= 2 && p.object.parent !== scene)!;
    const removed: Pair[] = [];
    victim.object.traverse((o) => removed.push(pairs.find((p) => p.object === o)!));
    for (const p of removed.reverse()) removeTransformEntity(world, p.eid);
    victim.object.removeFromParent();
    const survivors = pairs.filter((p) => !removed.includes(p));
    // Something moves so the removed entities had fresh flags when they went.
    markTransformDirty(world, survivors[0].eid);
    transformSystem(world);
    expect(world.transform.count).toBe(survivors.length);

    // New entities take the freed ids; give them other parents and transforms.
    const rnd = random(99);
    const fresh: Pair[] = [];
    for (let i = 0; i < removed.length; i++) {
      const parent = survivors[Math.floor(rnd() * survivors.length)];
      const pair = { eid: spawnTransformEntity(world, parent.eid), object: new Object3D() };
      pair.object.name = String(pair.eid);
      parent.object.add(pair.object);
      randomLocal(world, pair, rnd);
      fresh.push(pair);
    }
    expect(new Set(fresh.map((p) => p.eid))).toEqual(new Set(removed.map((p) => p.eid)));
    // Reused ids must not keep their old children: those are gone, and nothing points at them.
    transformSystem(world);
    const all = [...survivors, ...fresh];
    expect(world.transform.count).toBe(all.length);
    expect(changedSet(all)).toEqual(new Set(fresh.map((p) => p.eid)));
    expectSameAsThree(all, scene);
  });

  it('rebuilds the order after a removal even when nothing moved', () => {
    const world = createViewerWorld();
    const a = spawnTransformEntity(world);
    const b = spawnTransformEntity(world, a);
    transformSystem(world);
    removeTransformEntity(world, b);
    transformSystem(world);
    expect(world.transform.count).toBe(1);
    expect(world.transform.order[0]).toBe(a);
    expect(Transform.worldChanged[a]).toBe(0);
  });

  it('propagates a parent move to children that did not move', () => {
    const world = createViewerWorld();
    const parent = spawnTransformEntity(world);
    const child = spawnTransformEntity(world, parent);
    setPosition(world, child, 1, 0, 0);
    transformSystem(world);
    setPosition(world, parent, 0, 10, 0);
    transformSystem(world);
    expect(Transform.worldChanged[child]).toBe(1);
    expect(worldOf(child).slice(12)).toEqual([1, 10, 0, 1]);
  });
});
