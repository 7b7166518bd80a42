/**
 * The editor at CAD scale, each figure against a baseline measured in the same run:
 *
 *   (a) 10,000 undo + 10,000 redo steps of node moves through the editor's real path (History,
 *       SetNodeCommand, the mutation built and applied by src/scene/apply-mutations.ts to the ECS,
 *       queued for saving), against the three.js editor's way (commands holding the Object3D,
 *       setting its position and calling updateMatrixWorld) on the plain three.js twin graph.
 *   (b) per-frame CPU time while dragging an assembly (~400 nodes) with the gizmo in a scene of
 *       100,000 nodes, the whole frame of a real drag: the real editor on a headless viewer
 *       (tests/support/headless-viewer.ts), a pointer move on the canvas, the pointer router's
 *       input step, TransformControls' pointerMove, the gizmo's write of the node's Transform,
 *       every system of PIPELINE (the picture itself is a no-op: the GPU's drawing and three's
 *       own walk of the scene before drawing are not in the figure; the latter is printed for
 *       scale) with the selection outline's CPU part and the picker's refit of its bounds index,
 *       and TransformControls' matrix update of its handles; against the three.js editor's way on the twin graph (TransformControls on the
 *       object, scene.updateMatrixWorld()) (goal <= 4 ms). The release (one undo step, one queued
 *       mutation) is timed apart. Then the outliner at a change of the scene: a material slider's
 *       tick, a visibility change (400 drawn rows read) against walking every row (what each
 *       change did before), and a search.
 *   (c) selecting by click in that scene: the viewer's picker (the one the editor's click uses),
 *       against three's Raycaster.intersectObject(scene, true) on the same rays (goal <= 1 ms).
 *   (d) Ctrl+S to saved for 1,000 queued edits: the editor's saver against the model service
 *       process (one request: the queue in batches), against saving each edit by its own request
 *       (per-edit autosave), both to the same server, same edits.
 *
 * Medians; the machine may be shared (other engineers' builds and browsers): read the ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxGeometry, Group, Mesh, MeshStandardMaterial, Object3D, Raycaster, Scene, Vector2, Vector3, type Intersection } from 'three';
import { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { Transform } from '../components';
import { SetNodeCommand, type EditApplier } from '../src/editor/commands';
import { localMatrixOf } from '../src/editor/gizmo';
import { History } from '../src/editor/history';
import { MutationQueues, nodeMutation } from '../src/editor/mutation-queue';
import { createEditor } from '../src/editor/editor';
import { createSaver } from '../src/editor/saver';
import { markTransformDirty } from '../src/engine/hierarchy';
import { nodeEid, nodeIdOf } from '../src/engine/stable-ids';
import { createViewerWorld } from '../src/engine/world';
import type { Mutation } from '../src/protocol/mutation';
import { applyMutations } from '../src/scene/apply-mutations';
import { spawnModel } from '../src/scene/model-entities';
import { signTestToken } from '../src/server/auth/tokens';
import { openStore } from '../src/server/store';
import { createTreeCache, outlinerView, readRow, treeRows } from '../src/editor/outline';
import { createPicker } from '../src/viewer/picking';
import { runPipeline } from '../systems';
import { syncSystem } from '../systems/syncSystem';
import { transformSystem } from '../systems/transformSystem';
import { headlessViewer } from '../tests/support/headless-viewer';
import { startServer } from './server';
import type { BenchResult } from './types';
import { median } from './stats';

const NODES = 100_000;
const ASSEMBLY = 400;
const STEPS = 10_000;
const DRAG_FRAMES = 300;
/** Drags per round (DRAG_FRAMES moves in all). */
const DRAGS = 10;
/** The view the drags and picks are measured in (pixels). */
const VIEW = { width: 1280, height: 720 };
const PICKS = 300;
const BRUTE_PICKS = 30;
const SAVE_EDITS = 1000;
const SAVE_ROUNDS = 3;


function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** 250 assemblies of 400 nodes (a group, sub-groups, box parts), as a glTF-like scene and its plain twin. */
function buildScene() {
  const rnd = random(7);
  const geometry = new BoxGeometry(0.2, 0.2, 0.2);
  const material = new MeshStandardMaterial();
  const content = new Group();
  const twin = new Scene();
  const associations = new Map<object, { nodes: number }>();
  const twins: Object3D[] = [];
  const assemblies: number[] = [];
  let n = 0;
  const node = (parent: Object3D, parentTwin: Object3D, leaf: boolean): [Object3D, Object3D] => {
    const o = leaf ? new Mesh(geometry, material) : new Object3D();
    const t = leaf ? new Mesh(geometry, material) : new Object3D();
    const p: [number, number, number] = [(rnd() - 0.5) * 4, (rnd() - 0.5) * 4, (rnd() - 0.5) * 4];
    o.position.set(...p);
    t.position.set(...p);
    o.name = t.name = `n${n}`;
    associations.set(o, { nodes: n });
    twins[n] = t;
    n++;
    parent.add(o);
    parentTwin.add(t);
    return [o, t];
  };
  const side = Math.ceil(Math.sqrt(NODES / ASSEMBLY));
  while (n < NODES) {
    const a = n;
    const [root, rootTwin] = node(content, twin, false);
    const k = assemblies.length;
    root.position.set((k % side) * 10, 0, Math.floor(k / side) * 10);
    rootTwin.position.copy(root.position);
    assemblies.push(a);
    let groups: [Object3D, Object3D][] = [[root, rootTwin]];
    while (n - a < ASSEMBLY && n < NODES) {
      const next: [Object3D, Object3D][] = [];
      for (const [g, gt] of groups) {
        if (n - a >= ASSEMBLY || n >= NODES) break;
        next.push(node(g, gt, false));
        for (let i = 0; i < 3 && n - a < ASSEMBLY && n < NODES; i++) node(g, gt, true);
      }
      groups = next.length ? next : groups;
    }
  }
  twin.updateMatrixWorld(true);
  return { content, twin, twins, associations, assemblies, side };
}

export default async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const built = buildScene();
  const world = createViewerWorld();
  const headless = headlessViewer(world, VIEW);
  const scene = headless.scene;
  const camera = headless.camera;
  camera.far = 5000;
  camera.position.set(built.side * 5, 200, built.side * 5 + 300);
  camera.lookAt(built.side * 5, 0, built.side * 5);
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld();
  const gltf = { scene: built.content, scenes: [built.content], animations: [], parser: { associations: built.associations, json: {} } };
  const record = spawnModel(world, gltf as unknown as GLTF, { modelId: 'bench', name: 'plant.glb' });
  scene.add(record.root);
  transformSystem(world);
  syncSystem(world);
  const nodeIds = [...record.nodes.keys()];
  if (nodeIds.length < NODES) throw new Error(`expected ${NODES} nodes, got ${nodeIds.length}`);

  // ---- (a) undo / redo ----
  const queues = new MutationQueues();
  const applier: EditApplier = {
    applyNode(modelId, nodeId, properties) {
      const mutation = nodeMutation(modelId, nodeId, properties as Record<string, unknown>)!;
      const { modelId: _m, ...wire } = mutation;
      const { problems } = applyMutations(world, record, [wire]);
      if (problems.length) throw new Error(problems[0]);
      queues.add(modelId, wire as Mutation);
    },
    applyMaterial() {},
  };
  const rnd = random(99);
  let clock = 0;
  const history = new History({ clock: () => (clock += 1000) });
  for (let i = 0; i < STEPS; i++) {
    const nodeId = nodeIds[Math.floor(rnd() * nodeIds.length)];
    const eid = nodeEid(record, nodeId);
    const before = localMatrixOf(eid);
    const after = [...before];
    after[12] += 1;
    history.execute(new SetNodeCommand(applier, 'bench', nodeId, { matrix: before }, { matrix: after }));
  }
  let t0 = performance.now();
  for (let i = 0; i < STEPS; i++) history.undo();
  for (let i = 0; i < STEPS; i++) history.redo();
  transformSystem(world);
  const ours = performance.now() - t0;
  // The three.js editor's way: object references, position set, updateMatrixWorld.
  const rnd2 = random(99);
  const undos: { object: Object3D; from: number; to: number }[] = [];
  for (let i = 0; i < STEPS; i++) {
    const object = built.twins[Math.floor(rnd2() * NODES)];
    const from = object.position.x;
    undos.push({ object, from, to: from + 1 });
    object.position.x = from + 1;
    object.updateMatrixWorld(true);
  }
  t0 = performance.now();
  for (let i = STEPS - 1; i >= 0; i--) {
    const u = undos[i];
    u.object.position.x = u.from;
    u.object.updateMatrixWorld(true);
  }
  for (let i = 0; i < STEPS; i++) {
    const u = undos[i];
    u.object.position.x = u.to;
    u.object.updateMatrixWorld(true);
  }
  const base = performance.now() - t0;
  results.push({ name: `editor: ${STEPS} undo + ${STEPS} redo (node moves, applied and queued)`, value: ours, unit: 'ms', baseline: base, ratio: base / ours });

  // The viewer's picker (the one the editor's click uses), made as the viewer makes it: its
  // frame step refits the scene's mesh bounds index while a drag moves meshes (in (b)'s frames).
  const picker = createPicker({ world, useWorker: false });
  await picker.prepare([record.root]);
  picker.pick(0, 0);

  // ---- (b) dragging an assembly with the gizmo: per-frame CPU of the whole frame ----
  // The real editor on a headless viewer (tests/support/headless-viewer.ts): a pointer move on the
  // canvas -> the pointer router's input step -> TransformControls.pointerMove -> the gizmo's write
  // of the node's Transform -> every system of PIPELINE (the render system's picture is a no-op:
  // the GPU's work is not in the figure; its 'afterDraw' steps, the selection outline's bounds and
  // mask pass set-up, are; so is the picker's refit of its bounds index) -> TransformControls' own
  // matrix update of its handles (the renderer's scene.updateMatrixWorld reaches it). The release,
  // where the drag becomes one undo step and one queued mutation, is timed on its own.
  const dragNode = built.content.getObjectByName(`n${built.assemblies[Math.floor(built.assemblies.length / 2)]}`)!;
  const dragEid = dragNode.userData.eid as number;
  if (!dragEid) throw new Error('the dragged assembly is not an entity');
  const dragNodeId = nodeIdOf(record, dragEid)!;
  const dragTwin = built.twins[Number(dragNode.name.slice(1))];
  const editor = createEditor(headless.viewer, { sceneId: 'bench', modelService: 'http://bench.invalid', getToken: async () => 'token', fetch: (async () => new Response('{}', { status: 503 })) as typeof fetch });
  editor.enable();
  headless.viewer.events.emit('hit', { point: { x: 0, y: 0, z: 0 }, normal: { x: 0, y: 1, z: 0 }, modelId: 'bench', nodeId: dragNodeId, nodeName: dragNode.name, materialId: null, groupId: null, instanceId: null } as never);
  if (editor.gizmo.eid !== dragEid) throw new Error('the click did not select the assembly');
  const gizmoHelper = scene.getObjectByName('Editor gizmo')!;
  const frameOf = () => {
    runPipeline(world);
    gizmoHelper.updateMatrixWorld();
    headless.rendered.length = 0;
  };
  const centre = () => {
    const p = new Vector3().setFromMatrixPosition(dragNode.matrixWorld).project(camera);
    return { x: ((p.x + 1) / 2) * VIEW.width, y: ((1 - p.y) / 2) * VIEW.height };
  };
  // The twin, as the three.js editor drags: TransformControls on the object itself, then three's
  // scene.updateMatrixWorld() of the whole graph.
  const twinControls = new TransformControls(camera);
  twinControls.setSize(0.9);
  built.twin.add(twinControls.getHelper());
  twinControls.attach(dragTwin);
  const frames: number[] = [];
  const baseFrames: number[] = [];
  const releases: number[] = [];
  const stepsBefore = editor.history.steps().length;
  for (let round = 0; round < 2; round++) {
    for (let d = 0; d < DRAGS; d++) {
      frameOf();
      const c = centre();
      headless.pointer('pointermove', c.x, c.y);
      frameOf();
      headless.pointer('pointerdown', c.x, c.y);
      if (!editor.gizmo.dragging) throw new Error('the press on the gizmo did not start a drag');
      const ndc = new Vector2((c.x / VIEW.width) * 2 - 1, -(c.y / VIEW.height) * 2 + 1);
      twinControls.pointerHover({ x: ndc.x, y: ndc.y, button: 0 } as unknown as PointerEvent);
      twinControls.pointerDown({ x: ndc.x, y: ndc.y, button: 0 } as unknown as PointerEvent);
      for (let f = 1; f <= DRAG_FRAMES / DRAGS; f++) {
        const x = c.x + f * 0.5;
        const start = performance.now();
        headless.pointer('pointermove', x, c.y);
        frameOf();
        if (round === 1) frames.push(performance.now() - start);
        const b = performance.now();
        twinControls.pointerMove({ x: ndc.x + (f * 0.5 * 2) / VIEW.width, y: ndc.y, button: -1 } as unknown as PointerEvent);
        built.twin.updateMatrixWorld();
        if (round === 1) baseFrames.push(performance.now() - b);
      }
      const r = performance.now();
      headless.pointer('pointerup', c.x + (DRAG_FRAMES / DRAGS) * 0.5, c.y);
      if (round === 1) releases.push(performance.now() - r);
      twinControls.pointerUp({ x: 0, y: 0, button: 0 } as unknown as PointerEvent);
    }
  }
  if (editor.history.steps().length !== stepsBefore + 2 * DRAGS) throw new Error(`expected one undo step per drag, got ${editor.history.steps().length - stepsBefore} for ${2 * DRAGS}`);
  const frame = median(frames);
  const baseFrame = median(baseFrames);
  results.push({ name: `editor: drag frame CPU with the gizmo, ${NODES.toLocaleString('en')} nodes (assembly of ${ASSEMBLY}; pointer move, TransformControls, systems, outline)`, value: frame, unit: 'ms', baseline: baseFrame, ratio: baseFrame / frame, goal: '<= 4 ms', pass: frame <= 4 });
  results.push({ name: `editor: drag release (one undo step, one queued mutation), ${NODES.toLocaleString('en')} nodes`, value: median(releases), unit: 'ms' });
  // Not the editor's: what three's renderer does before every picture of this scene (it walks the
  // whole graph, scene.matrixWorldAutoUpdate), for scale.
  const walks: number[] = [];
  for (let i = 0; i < 30; i++) {
    const start = performance.now();
    scene.updateMatrixWorld();
    walks.push(performance.now() - start);
  }
  results.push({ name: `editor: (for scale) three's renderer-side scene.updateMatrixWorld per picture, ${NODES.toLocaleString('en')} nodes`, value: median(walks), unit: 'ms' });

  // ---- (b2) the outliner at each change of the scene ----
  // Before: every 'scene' event (each tick of a material slider) walked all nodes and read every
  // row. Now a material tick does not concern the outliner; a rename or a visibility change reads
  // the drawn rows only; the tree is walked once per change of the structure.
  const outlinerEvents: string[] = [];
  editor.events.on('scene', ({ outline }) => outlinerEvents.push(outline ? 'outline' : 'properties'));
  const materialId = [...record.materials.keys()][0]!;
  const tickTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    editor.setMaterial('bench', materialId, { roughness: (i % 10) / 10 });
    tickTimes.push(performance.now() - start);
  }
  if (outlinerEvents.some((e) => e === 'outline')) throw new Error('a material tick concerned the outliner');
  const fullWalks: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    const rows = treeRows(world).map((r) => readRow(world, r));
    fullWalks.push(performance.now() - start);
    if (rows.length < NODES) throw new Error('the walk missed nodes');
  }
  const cache = createTreeCache(world);
  cache.rows();
  const viewTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    editor.setNode('bench', nodeIds[i]!, { visible: i % 2 === 0 });
    const start = performance.now();
    outlinerView(world, cache.rows(), [], '', 400);
    viewTimes.push(performance.now() - start);
  }
  if (cache.walks !== 1) throw new Error(`the outliner walked the tree ${cache.walks} times for visibility changes`);
  const searchTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    outlinerView(world, cache.rows(), [], `n${i}9`, 400);
    searchTimes.push(performance.now() - start);
  }
  results.push({ name: `editor: a material slider tick (command, mutation applied and queued; no outliner work), ${NODES.toLocaleString('en')} nodes`, value: median(tickTimes), unit: 'ms' });
  results.push({ name: `editor: outliner after a visibility change (400 drawn rows read), ${NODES.toLocaleString('en')} nodes, against walking every row (each scene change before)`, value: median(viewTimes), unit: 'ms', baseline: median(fullWalks), ratio: median(fullWalks) / median(viewTimes) });
  results.push({ name: `editor: outliner with a search (every name read once), ${NODES.toLocaleString('en')} nodes`, value: median(searchTimes), unit: 'ms' });
  editor.dispose();

  // ---- (c) click to select ----
  // In a square view, as this figure has always been measured.
  camera.aspect = 1;
  camera.updateProjectionMatrix();
  const raycaster = new Raycaster();
  const pickRnd = random(5);
  const points = Array.from({ length: PICKS }, () => new Vector2(pickRnd() * 1.6 - 0.8, pickRnd() * 1.2 - 0.6));
  const pickTimes: number[] = [];
  let found = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (const p of points) {
      const start = performance.now();
      const hit = picker.pick(p.x, p.y);
      if (pass === 1) {
        pickTimes.push(performance.now() - start);
        if (hit) found++;
      }
    }
  }
  const bruteTimes: number[] = [];
  const hits: Intersection[] = [];
  for (const p of points.slice(0, BRUTE_PICKS)) {
    raycaster.setFromCamera(p, camera);
    hits.length = 0;
    const start = performance.now();
    raycaster.intersectObject(built.twin, true, hits);
    bruteTimes.push(performance.now() - start);
  }
  const pick = median(pickTimes);
  const brute = median(bruteTimes);
  results.push({ name: `editor: select by click, ${NODES.toLocaleString('en')} nodes (${found}/${PICKS} hits)`, value: pick, unit: 'ms', baseline: brute, ratio: brute / pick, goal: '<= 1 ms', pass: pick <= 1 });
  // The same picker without the scene's mesh bounds index (the full scan it replaced): same answers, its time.
  const scan = createPicker({ world, useWorker: false, sceneIndex: false });
  await scan.prepare([record.root]);
  const scanTimes: number[] = [];
  let same = 0;
  for (const p of points.slice(0, BRUTE_PICKS)) {
    const start = performance.now();
    const hit = scan.pick(p.x, p.y);
    scanTimes.push(performance.now() - start);
    const indexed = picker.pick(p.x, p.y);
    if ((hit === null && indexed === null) || (hit && indexed && hit.nodeId === indexed.nodeId && Math.abs(hit.distance - indexed.distance) < 1e-6)) same++;
  }
  const scanned = median(scanTimes);
  results.push({ name: `editor: select by click, ${NODES.toLocaleString('en')} nodes, mesh bounds index vs the full scan (${same}/${Math.min(BRUTE_PICKS, points.length)} same hits)`, value: pick, unit: 'ms', baseline: scanned, ratio: scanned / pick, goal: '<= 1 ms', pass: pick <= 1 && same === Math.min(BRUTE_PICKS, points.length) });
  // The first pick after a structural change builds the index.
  const fresh = createPicker({ world, useWorker: false });
  await fresh.prepare([record.root]);
  let t1 = performance.now();
  fresh.pick(points[0]!.x, points[0]!.y);
  results.push({ name: `editor: first pick, ${NODES.toLocaleString('en')} nodes (builds the mesh bounds index)`, value: performance.now() - t1, unit: 'ms' });
  // A drag frame's refit: one node's assembly moved, then the picker's frame step.
  const refitTimes: number[] = [];
  for (let f = 0; f < 50; f++) {
    Transform.position[dragEid * 3] += 0.01;
    markTransformDirty(world, dragEid);
    transformSystem(world);
    syncSystem(world);
    t1 = performance.now();
    for (const step of world.steps.helpers) step.run(world);
    refitTimes.push(performance.now() - t1);
  }
  results.push({ name: `editor: mesh bounds index refit per drag frame (assembly of ${ASSEMBLY}), ${NODES.toLocaleString('en')} nodes`, value: median(refitTimes), unit: 'ms' });
  scan.dispose();
  fresh.dispose();

  // ---- (d) Ctrl+S to saved, 1,000 edits ----
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-editor-'));
  const { token, user } = await signTestToken(dataDir, { firstName: 'Bench', lastName: 'Mark' });
  const seed = await openStore({ dataDir });
  await seed.putScene({ _id: 'bench-scene', name: 'Bench', viewerConfig: {}, models: [{ _id: 'bench-model', latestVersionKey: 'bench/v1', outputFormat: 'glb', sourceFileName: 'b.glb' }], ownerId: user.id });
  await seed.close();
  const server = await startServer(dataDir, { build: false });
  try {
    const saveTimes: number[] = [];
    const perEditTimes: number[] = [];
    for (let round = 0; round < SAVE_ROUNDS; round++) {
      const q = new MutationQueues();
      const saver = createSaver({ queues: q, modelService: server.base, sceneId: 'bench-scene', getToken: async () => token, enabled: () => true });
      for (let i = 0; i < SAVE_EDITS; i++) q.add('bench-model', nodeMutation('bench-model', `n${i}`, { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, round, i, 0, 1] })!);
      const start = performance.now();
      await saver.save();
      if (saver.state.status !== 'saved') throw new Error(`the save ended ${saver.state.status}: ${saver.state.reason}`);
      saveTimes.push(performance.now() - start);
      saver.dispose();
      // Per-edit saving: one request each.
      const edits = Array.from({ length: SAVE_EDITS }, (_, i) => {
        const { modelId: _m, ...m } = nodeMutation('bench-model', `p${i}`, { visible: (i + round) % 2 === 0 })!;
        return m;
      });
      const b = performance.now();
      for (const m of edits) {
        const response = await fetch(`${server.base}/v1/models/bench-model/apply-mutations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ mutations: [m] }),
        });
        if (!response.ok) throw new Error(`per-edit save: ${response.status}`);
        await response.arrayBuffer();
      }
      perEditTimes.push(performance.now() - b);
    }
    const save = median(saveTimes);
    const perEdit = median(perEditTimes);
    results.push({ name: `editor: Ctrl+S to saved, ${SAVE_EDITS} queued edits`, value: save, unit: 'ms', baseline: perEdit, ratio: perEdit / save });
  } finally {
    server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}
