/**
 * Transform propagation at CAD/building scale: 100,000 nodes in ~250 assemblies of ~10-level-deep
 * subtrees, as ECS entities (transformSystem + syncObjectMatrices into their Object3Ds) and as an
 * equivalent plain three.js Object3D graph (scene.updateMatrixWorld(), three's default).
 *
 *   (a) a typical frame: 1% of the nodes move (goal: three / ours >= 5x)
 *   (b) a still frame: nothing moves (the steady state, after the first still frame)
 *   (c) every node moves
 *   (d) for the record: the traversal three.js still does inside renderer.render over the
 *       ECS-controlled graph (matrix auto-update off) unless the scene's matrixWorldAutoUpdate is off
 *
 * Medians over many frames after a warm-up; both sides get the same moves in the same order.
 */
import { Object3D } from 'three';
import { Transform } from '../components';
import { setPosition, spawnTransformEntity } from '../src/engine/hierarchy';
import { bindObject } from '../src/engine/registry';
import { detachFromThreeMatrixUpdates, syncObjectMatrices } from '../src/engine/sync';
import { createViewerWorld, type ViewerWorld } from '../src/engine/world';
import { transformSystem } from '../systems/transformSystem';
import type { BenchResult } from './types';
import { median } from './stats';

const NODES = 100_000;
const ASSEMBLY_NODES = 400;
const MAX_DEPTH = 10;
const MOVING_SHARE = 0.01;
const WARMUP_FRAMES = 30;
const FRAMES = 240;
/** Frames are measured in rounds that alternate between the two sides. */
const ROUNDS = 4;
const GOAL_RATIO = 5;

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

interface Scenes {
  world: ViewerWorld;
  /** eid of node i */
  eids: Uint32Array;
  /** ECS-controlled objects (matrix auto-update off), under `ecsScene` */
  ecsObjects: Object3D[];
  ecsScene: Object3D;
  /** The plain three.js twin graph, under `threeScene` */
  threeObjects: Object3D[];
  threeScene: Object3D;
}

/**
 * Builds the tree breadth first per assembly: each group node gets one or two sub-groups and two
 * to four parts (leaves), down to MAX_DEPTH levels, until the assembly has ASSEMBLY_NODES nodes.
 */
function build(): Scenes {
  const rnd = random(12345);
  const world = createViewerWorld();
  const eids = new Uint32Array(NODES);
  const ecsObjects: Object3D[] = [];
  const threeObjects: Object3D[] = [];
  const ecsScene = new Object3D();
  const threeScene = new Object3D();
  let n = 0;

  const add = (parent: number): number => {
    const i = n++;
    const eid = spawnTransformEntity(world, parent < 0 ? 0 : eids[parent]);
    eids[i] = eid;
    const x = (rnd() - 0.5) * 20, y = (rnd() - 0.5) * 20, z = (rnd() - 0.5) * 20;
    const angle = rnd() * Math.PI * 2;
    const qz = Math.sin(angle / 2), qw = Math.cos(angle / 2);
    const s = 0.8 + rnd() * 0.4;
    setPosition(world, eid, x, y, z);
    Transform.rotation.set([0, 0, qz, qw], eid * 4);
    Transform.scale.set([s, s, s], eid * 3);

    const ecs = new Object3D();
    detachFromThreeMatrixUpdates(ecs);
    bindObject(world, eid, ecs);
    const plain = new Object3D();
    for (const o of [ecs, plain]) {
      o.position.fromArray(Transform.position, eid * 3);
      o.quaternion.fromArray(Transform.rotation, eid * 4);
      o.scale.fromArray(Transform.scale, eid * 3);
    }
    (parent < 0 ? ecsScene : ecsObjects[parent]).add(ecs);
    (parent < 0 ? threeScene : threeObjects[parent]).add(plain);
    ecsObjects.push(ecs);
    threeObjects.push(plain);
    return i;
  };

  const root = add(-1); // the model root
  while (n < NODES) {
    const budget = Math.min(ASSEMBLY_NODES, NODES - n);
    const start = n;
    let level = [add(root)];
    for (let depth = 1; depth < MAX_DEPTH && n - start < budget; depth++) {
      const next: number[] = [];
      for (const group of level) {
        const groups = depth < 3 || rnd() < 0.5 ? 2 : 1;
        for (let g = 0; g < groups && n - start < budget; g++) next.push(add(group));
        const parts = 2 + Math.floor(rnd() * 3);
        for (let p = 0; p < parts && n - start < budget; p++) add(group);
      }
      level = next;
    }
    // Whatever the depth limit left of the budget: more parts on the deepest groups.
    for (let k = 0; n - start < budget && level.length; k++) add(level[k % level.length]);
  }
  return { world, eids, ecsObjects, ecsScene, threeObjects, threeScene };
}


/** The nodes that move in each frame, and where to; the same list for both sides. */
function movePlans(count: number, frames: number, seed: number): { nodes: Uint32Array; xyz: Float32Array }[] {
  const rnd = random(seed);
  const plans = [];
  for (let f = 0; f < frames; f++) {
    const nodes = new Uint32Array(count);
    const xyz = new Float32Array(count * 3);
    for (let k = 0; k < count; k++) {
      nodes[k] = count === NODES ? k : Math.floor(rnd() * NODES);
      xyz[k * 3] = (rnd() - 0.5) * 20;
      xyz[k * 3 + 1] = (rnd() - 0.5) * 20;
      xyz[k * 3 + 2] = (rnd() - 0.5) * 20;
    }
    plans.push({ nodes, xyz });
  }
  return plans;
}

type Frame = (frame: number) => void;

/** Median ms per frame of each side, measured in alternating rounds after a warm-up. */
function measure(ours: Frame, theirs: Frame): { ours: number; three: number } {
  const times = { ours: [] as number[], three: [] as number[] };
  let frame = 0;
  for (let i = 0; i < WARMUP_FRAMES; i++) {
    ours(frame);
    theirs(frame++);
  }
  const perRound = Math.ceil(FRAMES / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    const first = frame;
    for (const [side, run] of [['ours', ours], ['three', theirs]] as const) {
      frame = first;
      for (let i = 0; i < perRound; i++) {
        const t0 = performance.now();
        run(frame++);
        times[side].push(performance.now() - t0);
      }
    }
  }
  return { ours: median(times.ours), three: median(times.three) };
}

/** Both sides must end up with the same world matrices, or the comparison means nothing. */
function checkSame(s: Scenes): void {
  s.threeScene.updateMatrixWorld();
  for (let i = 0; i < NODES; i += 97) {
    const a = s.ecsObjects[i].matrixWorld.elements;
    const b = s.threeObjects[i].matrixWorld.elements;
    let scale = 1;
    for (let k = 0; k < 16; k++) scale = Math.max(scale, Math.abs(b[k]));
    for (let k = 0; k < 16; k++) {
      if (Math.abs(a[k] - b[k]) > 1e-4 * scale) throw new Error(`node ${i}: ECS and three.js disagree (${a[k]} vs ${b[k]})`);
    }
  }
}

export default async function run(): Promise<BenchResult[]> {
  const s = build();
  const { world, eids, threeObjects, threeScene, ecsScene } = s;
  let maxDepth = 0;
  // First frame: everything is new on both sides.
  transformSystem(world);
  syncObjectMatrices(world);
  for (let i = 0; i < world.transform.count; i++) maxDepth = Math.max(maxDepth, Transform.depth[world.transform.order[i]]);
  checkSame(s);

  const moveFrame = (plans: ReturnType<typeof movePlans>) => ({
    ours: (frame: number) => {
      const { nodes, xyz } = plans[frame % plans.length];
      for (let k = 0; k < nodes.length; k++) setPosition(world, eids[nodes[k]], xyz[k * 3], xyz[k * 3 + 1], xyz[k * 3 + 2]);
      transformSystem(world);
      if (world.transform.changed > 0) syncObjectMatrices(world);
    },
    three: (frame: number) => {
      const { nodes, xyz } = plans[frame % plans.length];
      for (let k = 0; k < nodes.length; k++) threeObjects[nodes[k]].position.set(xyz[k * 3], xyz[k * 3 + 1], xyz[k * 3 + 2]);
      threeScene.updateMatrixWorld();
    },
  });

  // (a) 1% of the nodes move.
  const some = moveFrame(movePlans(Math.round(NODES * MOVING_SHARE), 64, 7));
  const typical = measure(some.ours, some.three);
  checkSame(s);
  const changedTypical = world.transform.changed;

  // (b) still frames (after one still frame has cleared the last move's flags).
  transformSystem(world);
  const still = measure(
    () => {
      transformSystem(world);
      if (world.transform.changed > 0) syncObjectMatrices(world);
    },
    () => threeScene.updateMatrixWorld(),
  );

  // (c) every node moves.
  const every = moveFrame(movePlans(NODES, 2, 11));
  const all = measure(every.ours, every.three);
  checkSame(s);

  // (d) three.js's own traversal of the ECS-controlled graph (renderer.render calls it).
  const traversal = measure(
    () => ecsScene.updateMatrixWorld(),
    () => threeScene.updateMatrixWorld(),
  );

  const ratio = (r: { ours: number; three: number }) => r.three / r.ours;
  const tree = `${NODES} nodes, depth ${maxDepth}`;
  return [
    {
      name: `transform: 1% of nodes move (${tree}; ~${changedTypical} world matrices recomputed)`,
      value: typical.ours,
      unit: 'ms/frame',
      baseline: typical.three,
      ratio: ratio(typical),
      goal: `three / ours >= ${GOAL_RATIO}x`,
      pass: ratio(typical) >= GOAL_RATIO,
    },
    { name: `transform: still frame (${tree})`, value: still.ours, unit: 'ms/frame', baseline: still.three, ratio: ratio(still) },
    { name: `transform: every node moves (${tree})`, value: all.ours, unit: 'ms/frame', baseline: all.three, ratio: ratio(all) },
    {
      name: 'three.js traversal of the ECS-controlled graph (inside renderer.render, auto-update off)',
      value: traversal.ours,
      unit: 'ms/frame',
      baseline: traversal.three,
      ratio: ratio(traversal),
    },
  ];
}
