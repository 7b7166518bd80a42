import { readFileSync } from 'node:fs';
import { entityExists, hasComponent, query } from 'bitecs';
import { type BufferGeometry, type InstancedMesh, type Material, type Mesh, type Object3D } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it, vi } from 'vitest';
import '../support/progress-event';
import { Model, ModelMember, Renderable, Shadows, Transform, Visibility } from '../../../components';
import { refCount } from '../../../src/engine/resources';
import { createViewerWorld } from '../../../src/engine/world';
import { despawnModel, findModel, spawnModel } from '../../../src/scene/model-entities';
import { transformSystem } from '../../../systems/transformSystem';

// ---- glTF helpers: read the shared models, never copy them ----------------------------------

const MODELS = new URL('../../../../shared/models/', import.meta.url);

interface GltfJson {
  scene?: number;
  scenes?: { nodes?: number[] }[];
  nodes?: { children?: number[]; mesh?: number; extras?: Record<string, unknown> }[];
  meshes?: { primitives: { material?: number }[] }[];
  materials?: unknown[];
  animations?: { name?: string; channels: unknown[] }[];
  [key: string]: unknown;
}

/** The JSON chunk of a GLB, parsed here rather than trusting the loader. */
function glbJson(bytes: Uint8Array): GltfJson {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(view.getUint32(0, true)).toBe(0x46546c67); // 'glTF'
  const length = view.getUint32(12, true);
  expect(view.getUint32(16, true)).toBe(0x4e4f534a); // 'JSON'
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + length))) as GltfJson;
}

function readModel(file: string): { bytes: Uint8Array; json: GltfJson } {
  const bytes = new Uint8Array(readFileSync(new URL(file, MODELS)));
  return { bytes, json: glbJson(bytes) };
}

function parse(data: ArrayBuffer | string): Promise<GLTF> {
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

function loadModel(file: string): Promise<{ gltf: GLTF; json: GltfJson }> {
  const { bytes, json } = readModel(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parse(buffer).then((gltf) => ({ gltf, json }));
}

/** Node indices of the default scene's node tree, depth first. */
function sceneNodes(json: GltfJson): number[] {
  const out: number[] = [];
  const visit = (i: number) => {
    out.push(i);
    for (const c of json.nodes![i].children ?? []) visit(c);
  };
  for (const n of json.scenes![json.scene ?? 0].nodes ?? []) visit(n);
  return out;
}

function countObjects(root: Object3D): number {
  let n = 0;
  root.traverse(() => n++);
  return n;
}

function unique<T>(root: Object3D, pick: (o: Object3D) => T | T[] | undefined): Set<T> {
  const out = new Set<T>();
  root.traverse((o) => {
    const v = pick(o);
    if (v === undefined) return;
    for (const x of Array.isArray(v) ? v : [v]) out.add(x);
  });
  return out;
}

/**
 * World matrices are Float32: equal within 1e-5 relative to the matrix's largest element (a model
 * in millimetres has translations in the hundreds, whose Float32 rounding alone is ~1e-5).
 */
function expectMatrixClose(eid: number, expected: ArrayLike<number>): void {
  let scale = 1;
  for (let k = 0; k < 16; k++) scale = Math.max(scale, Math.abs(expected[k]));
  for (let k = 0; k < 16; k++) {
    const actual = Transform.world[eid * 16 + k];
    if (!(Math.abs(actual - expected[k]) <= 1e-5 * scale)) {
      throw new Error(`entity ${eid}, element ${k}: ${actual} vs ${expected[k]} (scale ${scale})`);
    }
  }
}

const geometryOf = (o: Object3D) => ((o as Mesh).isMesh ? (o as Mesh).geometry : undefined) as BufferGeometry | undefined;
const materialsOf = (o: Object3D) => ((o as Mesh).isMesh ? (o as Mesh).material : undefined) as Material | Material[] | undefined;

/** A tiny glTF with one triangle; nodes, meshes and animations to order; buffer as a data URI. */
function builtGltf(parts: Pick<GltfJson, 'nodes' | 'meshes' | 'animations'> & { scenes?: GltfJson['scenes'] }): string {
  // Accessor 0: 3 positions; accessor 1: 2 key times; accessor 2: 2 translations.
  const floats = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, /* times */ 0, 1, /* values */ 0, 0, 0, 1, 2, 3]);
  const uri = `data:application/octet-stream;base64,${Buffer.from(floats.buffer).toString('base64')}`;
  const json = {
    asset: { version: '2.0' },
    scene: 0,
    scenes: parts.scenes ?? [{ nodes: parts.nodes!.map((_, i) => i).filter((i) => !parts.nodes!.some((n) => n.children?.includes(i))) }],
    nodes: parts.nodes,
    meshes: parts.meshes,
    materials: [{ name: 'red' }, { name: 'blue' }],
    animations: parts.animations,
    buffers: [{ byteLength: floats.byteLength, uri }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 36 },
      { buffer: 0, byteOffset: 36, byteLength: 8 },
      { buffer: 0, byteOffset: 44, byteLength: 24 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 2, componentType: 5126, count: 2, type: 'VEC3' },
    ],
  };
  return JSON.stringify(json);
}

const NODE_TREE_MODELS = [
  'BoxAnimated.glb',
  'AnimatedMorphCube.glb',
  'RiggedSimple.glb',
  '2CylinderEngine.glb',
  'SimpleInstancing.glb',
  'MultipleScenes.glb',
  'Cameras.glb',
];

// ---- tests --------------------------------------------------------------------------------

describe('spawnModel with real models', () => {
  for (const file of NODE_TREE_MODELS) {
    describe(file, () => {
      it('makes one entity per Object3D of the default scene plus the model root', async () => {
        const { gltf } = await loadModel(file);
        const objects = countObjects(gltf.scene);
        const world = createViewerWorld();
        const record = spawnModel(world, gltf, { modelId: 'm1', name: file });
        expect(record.entities.length).toBe(objects + 1);
        expect(query(world, [Transform]).length).toBe(objects + 1);
        expect(query(world, [ModelMember]).length).toBe(objects + 1);
        expect(new Set(record.entities).size).toBe(record.entities.length);
        expect(record.entities[0]).toBe(record.eid);
        expect(hasComponent(world, record.eid, Model)).toBe(true);
        expect(record.root.children[0]).toBe(gltf.scene);
        for (const eid of record.entities) {
          const object = world.objects[eid]!;
          expect(object.userData.eid).toBe(eid);
          expect(ModelMember.model[eid]).toBe(record.eid);
          expect(object.matrixAutoUpdate).toBe(false);
          expect(object.matrixWorldAutoUpdate).toBe(false);
          // Parents before children, and the parent link mirrors the Object3D graph.
          const parent = Transform.parent[eid];
          if (eid === record.eid) expect(parent).toBe(0);
          else {
            expect(world.objects[parent]).toBe(object.parent);
            expect(record.entities.indexOf(parent)).toBeLessThan(record.entities.indexOf(eid));
          }
        }
      });

      it('registers every node of the default scene once, under its glTF index', async () => {
        const { gltf, json } = await loadModel(file);
        const nodes = sceneNodes(json);
        const world = createViewerWorld();
        const record = spawnModel(world, gltf, { modelId: 'm1', name: file });
        expect(record.nodes.size).toBe(nodes.length);
        expect(new Set(record.nodes.keys())).toEqual(new Set(nodes.map(String)));
        expect(new Set(record.nodes.values()).size).toBe(nodes.length);
        for (const [id, eid] of record.nodes) expect(ModelMember.node[eid]).toBe(Number(id));
        expect(ModelMember.node[record.eid]).toBe(-1);
      });

      it('registers its materials, meshes/primitives and animations', async () => {
        const { gltf, json } = await loadModel(file);
        const world = createViewerWorld();
        const record = spawnModel(world, gltf, { modelId: 'm1', name: file });
        // Expected from the JSON: what the default scene's meshes use.
        const nodes = sceneNodes(json);
        const primitives = nodes.flatMap((n) => {
          const mesh = json.nodes![n].mesh;
          return mesh === undefined ? [] : json.meshes![mesh].primitives.map((p, i) => ({ node: n, i, material: p.material }));
        });
        const materialIds = new Set(primitives.map((p) => (p.material === undefined ? 'default' : String(p.material))));
        expect(record.materials.size).toBe(materialIds.size);
        for (const id of materialIds) if (id !== 'default') expect(record.materials.has(id)).toBe(true);
        if (!materialIds.has('default')) expect([...record.materials.keys()].every((k) => /^\d+$/.test(k))).toBe(true);

        const instanced = file === 'SimpleInstancing.glb';
        expect(record.primitives.size).toBe(primitives.length);
        expect(new Set(record.primitives.keys())).toEqual(new Set(primitives.map((p) => `${p.node}/${p.i}`)));
        const renderables = query(world, [Renderable]);
        expect(renderables.length).toBe(primitives.length);
        for (const p of primitives) {
          const eid = record.primitives.get(`${p.node}/${p.i}`)!;
          expect(renderables).toContain(eid);
          expect((world.objects[eid] as Mesh).isMesh).toBe(true);
          expect(ModelMember.node[eid]).toBe(p.node);
          // EXT_mesh_gpu_instancing meshes carry no primitive index from the loader.
          expect(ModelMember.primitive[eid]).toBe(instanced ? -1 : p.i);
          expect(ModelMember.material[eid]).toBe(p.material ?? -1);
        }

        const animations = json.animations ?? [];
        expect(record.animations.length).toBe(animations.length);
        record.animations.forEach((a, i) => {
          expect(a.id).toBe(String(i));
          expect(a.name).toBe(animations[i].name ?? `animation_${i}`);
          expect(a.clip.tracks.length).toBeGreaterThanOrEqual(animations[i].channels.length);
        });
        expect(record.mixer === null).toBe(animations.length === 0);
      });

      it('names the model after its sourceFileName and can be found by model id', async () => {
        const { gltf } = await loadModel(file);
        const world = createViewerWorld();
        const record = spawnModel(world, gltf, { modelId: 'abc123', name: `uploads/${file}` });
        expect(record.name).toBe(`uploads/${file}`);
        expect(record.root.name).toBe(`uploads/${file}`);
        expect(record.modelId).toBe('abc123');
        expect(findModel(world, 'abc123')).toBe(record);
        expect(findModel(world, 'other')).toBeUndefined();
        expect(world.models.get(record.eid)).toBe(record);
      });

      it("computes the same world matrices as three's updateMatrixWorld", async () => {
        const { gltf } = await loadModel(file);
        const twin = gltf.scene.clone();
        twin.updateMatrixWorld(true);
        const world = createViewerWorld();
        spawnModel(world, gltf, { modelId: 'm1', name: file });
        transformSystem(world);
        const originals: Object3D[] = [];
        const twins: Object3D[] = [];
        gltf.scene.traverse((o) => originals.push(o));
        twin.traverse((o) => twins.push(o));
        expect(twins.length).toBe(originals.length);
        originals.forEach((o, i) => expectMatrixClose(o.userData.eid as number, twins[i].matrixWorld.elements));
      });

      it('despawns: disposes each geometry and material exactly once and frees every entity', async () => {
        const { gltf } = await loadModel(file);
        const geometries = unique(gltf.scene, geometryOf);
        const materials = unique(gltf.scene, materialsOf);
        const spies = [...geometries, ...materials].map((r) => vi.spyOn(r, 'dispose'));
        const world = createViewerWorld();
        const record = spawnModel(world, gltf, { modelId: 'm1', name: file });
        for (const g of geometries) expect(refCount(g)).toBeGreaterThan(0);
        const entities = Array.from(record.entities);
        const objects = entities.map((e) => world.objects[e]!);
        despawnModel(world, record.eid);
        for (const spy of spies) expect(spy).toHaveBeenCalledTimes(1);
        for (const g of geometries) expect(refCount(g)).toBe(0);
        for (const e of entities) {
          expect(entityExists(world, e)).toBe(false);
          expect(world.objects[e]).toBeUndefined();
        }
        for (const o of objects) expect(o.userData.eid).toBeUndefined();
        expect(world.models.size).toBe(0);
        expect(findModel(world, 'm1')).toBeUndefined();
        expect(query(world, [Transform]).length).toBe(0);
        expect(record.root.parent).toBeNull();
        expect(() => despawnModel(world, record.eid)).toThrow(`No model is loaded as entity ${record.eid}.`);
      });
    });
  }

  it('keeps SimpleInstancing as one InstancedMesh entity with 125 instances', async () => {
    const { gltf } = await loadModel('SimpleInstancing.glb');
    const world = createViewerWorld();
    const record = spawnModel(world, gltf, { modelId: 'm1', name: 'SimpleInstancing.glb' });
    const renderables = query(world, [Renderable]);
    expect(renderables.length).toBe(1);
    const mesh = world.objects[renderables[0]] as InstancedMesh;
    expect(mesh.isInstancedMesh).toBe(true);
    expect(mesh.count).toBe(125);
    expect(mesh.instanceMatrix.count).toBe(125);
    expect(record.entities.length).toBe(3);
    const onDispose = vi.fn();
    mesh.addEventListener('dispose', onDispose);
    despawnModel(world, record.eid);
    expect(onDispose).toHaveBeenCalledTimes(1);
  });

  it('shares geometry between nodes that reuse a mesh, and releases it with the last one', async () => {
    const { gltf } = await loadModel('2CylinderEngine.glb');
    const world = createViewerWorld();
    spawnModel(world, gltf, { modelId: 'm1', name: '2CylinderEngine.glb' });
    const users = new Map<BufferGeometry, number>();
    gltf.scene.traverse((o) => {
      const g = geometryOf(o);
      if (g) users.set(g, (users.get(g) ?? 0) + 1);
    });
    expect([...users.values()].some((n) => n > 1)).toBe(true);
    for (const [g, n] of users) expect(refCount(g)).toBe(n);
  });

  it('gives reused entity ids fresh state after a despawn', async () => {
    const world = createViewerWorld();
    const first = spawnModel(world, (await loadModel('2CylinderEngine.glb')).gltf, { modelId: 'a', name: 'a' });
    transformSystem(world);
    const firstIds = new Set(first.entities);
    despawnModel(world, first.eid);
    const { gltf } = await loadModel('BoxAnimated.glb');
    const twin = gltf.scene.clone();
    twin.updateMatrixWorld(true);
    const second = spawnModel(world, gltf, { modelId: 'b', name: 'b' });
    expect([...second.entities].every((e) => firstIds.has(e))).toBe(true);
    transformSystem(world);
    expect(query(world, [Transform]).length).toBe(second.entities.length);
    for (const eid of second.entities) {
      expect(ModelMember.model[eid]).toBe(second.eid);
      expect(Visibility.visible[eid]).toBe(1);
      expect(Transform.worldChanged[eid]).toBe(1);
    }
    const twins: Object3D[] = [];
    twin.traverse((o) => twins.push(o));
    let i = 0;
    gltf.scene.traverse((o) => expectMatrixClose(o.userData.eid as number, twins[i++].matrixWorld.elements));
  });
});

describe('spawnModel with node extras', () => {
  const gltfJson = builtGltf({
    nodes: [
      { name: 'Hidden', mesh: 0, extras: { visible: false } } as never,
      { name: 'NoCast', mesh: 0, extras: { castShadow: false }, children: [3] } as never,
      { name: 'NoReceive', mesh: 1, extras: { receiveShadow: false } } as never,
      { name: 'Child', mesh: 0 } as never,
      { name: 'Plain', mesh: 1, translation: [1, 2, 3] } as never,
      { name: 'Off', extras: { visible: false, castShadow: false, receiveShadow: false }, children: [6] } as never,
      { name: 'UnderOff', mesh: 0 } as never,
    ],
    meshes: [
      { primitives: [{ attributes: { POSITION: 0 }, material: 0 }] } as never,
      { primitives: [{ attributes: { POSITION: 0 }, material: 0 }, { attributes: { POSITION: 0 }, material: 1 }] } as never,
    ],
  });

  async function spawnBuilt() {
    const gltf = await parse(gltfJson);
    const world = createViewerWorld();
    const record = spawnModel(world, gltf, { modelId: 'x', name: 'extras.gltf' });
    const node = (i: number) => record.nodes.get(String(i))!;
    const primitive = (n: number, p: number) => record.primitives.get(`${n}/${p}`)!;
    return { world, record, node, primitive };
  }

  it('registers all nodes and primitives of the built file', async () => {
    const { record } = await spawnBuilt();
    expect(record.nodes.size).toBe(7);
    expect(record.primitives.size).toBe(1 + 1 + 2 + 1 + 2 + 1);
    expect([...record.materials.keys()].sort()).toEqual(['0', '1']);
  });

  it('respects visible:false', async () => {
    const { world, node } = await spawnBuilt();
    for (const i of [0, 5]) {
      expect(Visibility.visible[node(i)]).toBe(0);
      expect(world.objects[node(i)]!.visible).toBe(false);
    }
    for (const i of [1, 2, 3, 4, 6]) {
      expect(Visibility.visible[node(i)]).toBe(1);
      expect(world.objects[node(i)]!.visible).toBe(true);
    }
  });

  it('respects castShadow:false and receiveShadow:false, per node, down to its primitives', async () => {
    const { world, node, primitive } = await spawnBuilt();
    const flags = (eid: number) => [Shadows.cast[eid], Shadows.receive[eid]];
    const meshFlags = (eid: number) => {
      const m = world.objects[eid] as Mesh;
      return [m.castShadow ? 1 : 0, m.receiveShadow ? 1 : 0];
    };
    // Node 0 (single primitive: the node is the mesh).
    expect(flags(node(0))).toEqual([1, 1]);
    expect(meshFlags(primitive(0, 0))).toEqual([1, 1]);
    // Node 1: no cast; its child node 3 has its own (default) flags.
    expect(flags(node(1))).toEqual([0, 1]);
    expect(meshFlags(primitive(1, 0))).toEqual([0, 1]);
    expect(flags(node(3))).toEqual([1, 1]);
    expect(meshFlags(primitive(3, 0))).toEqual([1, 1]);
    // Node 2: a two-primitive mesh (a Group with two Mesh children) that receives no shadows.
    expect(flags(node(2))).toEqual([1, 0]);
    expect(primitive(2, 0)).not.toBe(node(2));
    expect(meshFlags(primitive(2, 0))).toEqual([1, 0]);
    expect(meshFlags(primitive(2, 1))).toEqual([1, 0]);
    expect(flags(primitive(2, 1))).toEqual([1, 0]);
    // Node 4: defaults, shadows on.
    expect(meshFlags(primitive(4, 0))).toEqual([1, 1]);
    expect(meshFlags(primitive(4, 1))).toEqual([1, 1]);
    // Node 5: all off on an empty node; node 6 below it has its own defaults.
    expect(flags(node(5))).toEqual([0, 0]);
    expect(flags(node(6))).toEqual([1, 1]);
  });

  it('writes the node translation into Transform', async () => {
    const { node } = await spawnBuilt();
    const e = node(4);
    expect(Array.from(Transform.position.subarray(e * 3, e * 3 + 3))).toEqual([1, 2, 3]);
  });

  it("folds a three.js pivot (GLTFExporter's pivot pattern, extras.pivot) into the world matrices", async () => {
    const gltf = await parse(
      builtGltf({
        nodes: [
          { name: 'Door', translation: [3, 0, 0], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2], scale: [2, 1, 1], extras: { pivot: [1, 0.5, 0] }, children: [1] } as never,
          { name: 'Panel', mesh: 0, translation: [-1, -0.5, 0] } as never,
        ],
        meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] } as never],
      }),
    );
    expect(gltf.scene.children[0].pivot).not.toBeNull();
    const twin = gltf.scene.clone();
    twin.updateMatrixWorld(true);
    const world = createViewerWorld();
    spawnModel(world, gltf, { modelId: 'p', name: 'pivot.gltf' });
    transformSystem(world);
    const twins: Object3D[] = [];
    twin.traverse((o) => twins.push(o));
    let i = 0;
    gltf.scene.traverse((o) => expectMatrixClose(o.userData.eid as number, twins[i++].matrixWorld.elements));
  });

  it('keeps the primitive index and material of each primitive entity', async () => {
    const { primitive } = await spawnBuilt();
    expect(ModelMember.primitive[primitive(2, 0)]).toBe(0);
    expect(ModelMember.primitive[primitive(2, 1)]).toBe(1);
    expect(ModelMember.material[primitive(2, 0)]).toBe(0);
    expect(ModelMember.material[primitive(2, 1)]).toBe(1);
    expect(ModelMember.node[primitive(2, 1)]).toBe(2);
  });
});
