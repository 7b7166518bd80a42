import {
  Euler,
  Matrix4,
  MeshPhysicalMaterial,
  MirroredRepeatWrapping,
  NearestFilter,
  Quaternion,
  RepeatWrapping,
  Texture,
  Vector3,
  type Material,
  type Mesh,
  type MeshStandardMaterial,
  type Object3D,
} from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { beforeEach, describe, expect, it } from 'vitest';
import '../support/progress-event';
import { Shadows, Transform, Visibility } from '../../../components';
import { refCount } from '../../../src/engine/resources';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import type { Mutation } from '../../../src/protocol/mutation';
import { applyMutations } from '../../../src/scene/apply-mutations';
import { despawnModel, spawnModel } from '../../../src/scene/model-entities';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

/**
 * Node 0 'A' (translated by x=1) draws mesh 0: two primitives, materials 0 'red' and 1 'blue', so
 * its object is a group of two primitive meshes. Node 1 'B' draws mesh 1: one primitive, material
 * 0, so its object is the mesh itself. Both are top-level nodes.
 */
function testGltf(): string {
  const floats = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const uri = `data:application/octet-stream;base64,${Buffer.from(floats.buffer).toString('base64')}`;
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0, 1] }],
    nodes: [
      { name: 'A', mesh: 0, translation: [1, 0, 0] },
      { name: 'B', mesh: 1 },
    ],
    meshes: [
      { primitives: [{ attributes: { POSITION: 0 }, material: 0 }, { attributes: { POSITION: 0 }, material: 1 }] },
      { primitives: [{ attributes: { POSITION: 0 }, material: 0 }] },
    ],
    materials: [
      { name: 'red', pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } },
      { name: 'blue', pbrMetallicRoughness: { baseColorFactor: [0, 0, 1, 1] } },
    ],
    buffers: [{ byteLength: floats.byteLength, uri }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
  });
}

function parse(data: string): Promise<GLTF> {
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

let seq = 0;
function node(nodeId: string, properties: Record<string, unknown>): Mutation {
  seq++;
  return { type: 'updateNode', nodeId, properties, key: `${nodeId}/${seq}`, uuid: `n${seq}`, createdAt: 1_700_000_000_000 + seq } as Mutation;
}
function material(materialId: string, properties: Record<string, unknown>): Mutation {
  seq++;
  return { type: 'updateMaterial', materialId, properties, key: `${materialId}/${seq}`, uuid: `m${seq}`, createdAt: 1_700_000_000_000 + seq } as Mutation;
}
function create(materialId: string, name: string, properties: Record<string, unknown>): Mutation {
  seq++;
  return { type: 'createMaterial', materialId, name, properties, key: `${materialId}/${seq}`, uuid: `c${seq}`, createdAt: 1_700_000_000_000 + seq } as Mutation;
}

/** The names of the resources disposed from now on, in order (each resource's 'dispose' event). */
function disposals(...resources: (Material | Texture)[]): () => string[] {
  const names: string[] = [];
  for (const r of resources) r.addEventListener('dispose', () => names.push(r.name));
  return () => names;
}

function worldMatrix(eid: number): number[] {
  return Array.from(Transform.world.subarray(eid * 16, eid * 16 + 16));
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let k = 0; k < expected.length; k++) expect(actual[k]).toBeCloseTo(expected[k], 5);
}

const isMesh = (o: Object3D): o is Mesh => (o as Mesh).isMesh === true;

describe('applyMutations', () => {
  let world: ViewerWorld;
  let record: ModelRecord;
  let a: number;
  let b: number;
  let objA: Object3D;
  let meshB: Mesh;
  /** The two primitive meshes of node A (not nodes themselves). */
  let primitivesA: Mesh[];

  beforeEach(async () => {
    world = createViewerWorld();
    record = spawnModel(world, await parse(testGltf()), { modelId: 'm1', name: 'two-nodes.gltf' });
    transformSystem(world);
    a = record.nodes.get('0')!;
    b = record.nodes.get('1')!;
    objA = world.objects[a]!;
    meshB = world.objects[b]! as Mesh;
    primitivesA = objA.children.filter(isMesh);
  });

  it('loads the test model as expected (two nodes, A a group of two primitives, B a mesh)', () => {
    expect([...record.nodes.keys()].sort()).toEqual(['0', '1']);
    expect([...record.materials.keys()].sort()).toEqual(['0', '1']);
    expect(isMesh(objA)).toBe(false);
    expect(primitivesA).toHaveLength(2);
    expect(isMesh(meshB)).toBe(true);
    expect(worldMatrix(a)[12]).toBeCloseTo(1);
  });

  it('matrix: decomposed into Transform, and the world matrix follows', () => {
    const m = new Matrix4().compose(new Vector3(1, 2, 3), new Quaternion().setFromEuler(new Euler(0, Math.PI / 2, 0)), new Vector3(2, 2, 2));
    world.render.needsRender = false;
    const result = applyMutations(world, record, [node('1', { matrix: m.toArray() })]);
    expect(result).toEqual({ applied: 1, problems: [] });
    expect(Transform.dirty[b]).toBe(1);
    transformSystem(world);
    expectClose(worldMatrix(b), m.elements);
    expectClose(Array.from(Transform.position.subarray(b * 3, b * 3 + 3)), [1, 2, 3]);
    expectClose(Array.from(Transform.scale.subarray(b * 3, b * 3 + 3)), [2, 2, 2]);
    expect(world.render.needsRender).toBe(true);
  });

  it('visible, name and shadows: the node and the meshes of the node', () => {
    world.render.needsRender = false;
    const result = applyMutations(world, record, [
      node('0', { visible: false, name: 'Renamed', castShadow: false }),
      node('1', { receiveShadow: false }),
    ]);
    expect(result).toEqual({ applied: 2, problems: [] });
    expect(world.render.needsRender).toBe(true);
    expect(Visibility.visible[a]).toBe(0);
    // The components are the truth; the objects follow at the frame's sync step.
    expect(objA.visible).toBe(true);
    syncSystem(world);
    expect(objA.visible).toBe(false);
    expect(objA.name).toBe('Renamed');
    expect(Shadows.cast[a]).toBe(0);
    expect(Shadows.receive[a]).toBe(1);
    for (const mesh of primitivesA) {
      expect(mesh.castShadow).toBe(false);
      expect(mesh.receiveShadow).toBe(true);
      expect(Shadows.cast[mesh.userData.eid as number]).toBe(0);
    }
    expect(Visibility.visible[b]).toBe(1);
    expect(meshB.castShadow).toBe(true);
    expect(meshB.receiveShadow).toBe(false);
    expect(Shadows.receive[b]).toBe(0);

    applyMutations(world, record, [node('0', { visible: true })]);
    expect(Visibility.visible[a]).toBe(1);
    syncSystem(world);
    expect(objA.visible).toBe(true);
  });

  it('parent: moves the node with its local transform kept; null returns it to the model root', () => {
    const result = applyMutations(world, record, [node('1', { matrix: new Matrix4().makeTranslation(0, 5, 0).toArray(), parent: '0' })]);
    expect(result).toEqual({ applied: 1, problems: [] });
    expect(Transform.parent[b]).toBe(a);
    expect(meshB.parent).toBe(objA);
    transformSystem(world);
    expectClose(worldMatrix(b), new Matrix4().makeTranslation(1, 5, 0).elements);

    expect(applyMutations(world, record, [node('1', { parent: null })]).problems).toEqual([]);
    expect(Transform.parent[b]).toBe(record.eid);
    expect(meshB.parent).toBe(record.root);
    transformSystem(world);
    expectClose(worldMatrix(b), new Matrix4().makeTranslation(0, 5, 0).elements);

    // A cycle is a problem, not an exception.
    applyMutations(world, record, [node('1', { parent: '0' })]);
    const cycle = applyMutations(world, record, [node('0', { parent: '1' })]);
    expect(cycle.problems).toHaveLength(1);
    expect(cycle.problems[0]).toMatch(/'1'.*cannot become its parent/);
    expect(Transform.parent[a]).not.toBe(b);
  });

  it('material: assigns it to the meshes of the node and moves the resource counts', () => {
    const red = record.materials.get('0')!;
    const blue = record.materials.get('1')!;
    expect(meshB.material).toBe(red);
    const redBefore = refCount(red);
    const blueBefore = refCount(blue);
    expect(applyMutations(world, record, [node('1', { material: '1' })])).toEqual({ applied: 1, problems: [] });
    expect(meshB.material).toBe(blue);
    expect(refCount(red)).toBe(redBefore - 1);
    expect(refCount(blue)).toBe(blueBefore + 1);
    // Node A: both of its primitives.
    applyMutations(world, record, [node('0', { material: '1' })]);
    for (const mesh of primitivesA) expect(mesh.material).toBe(blue);
    // Red, drawn by nothing now, went when its last mesh left it. Despawning releases exactly what
    // is retained now: blue's count back to zero, blue disposed once.
    expect(refCount(red)).toBe(0);
    const disposed = disposals(red, blue);
    despawnModel(world, record.eid);
    expect(refCount(blue)).toBe(0);
    expect(disposed()).toEqual(['blue']);
  });

  it('updateMaterial: colour, roughness, opacity', () => {
    const red = record.materials.get('0')! as MeshStandardMaterial;
    expect(red.transparent).toBe(false);
    world.render.needsRender = false;
    const result = applyMutations(world, record, [
      material('0', { color: '#00ff00', roughness: 0.25, opacity: 0.5, emissive: 0x112233, name: 'green' }),
    ]);
    expect(result).toEqual({ applied: 1, problems: [] });
    expect(world.render.needsRender).toBe(true);
    expect(red.color.getHex()).toBe(0x00ff00);
    expect(red.emissive.getHex()).toBe(0x112233);
    expect(red.roughness).toBe(0.25);
    expect(red.opacity).toBe(0.5);
    expect(red.transparent).toBe(true);
    expect(red.name).toBe('green');
    // 'rrggbb' without '#' as well; a property the material does not have is left alone.
    applyMutations(world, record, [material('0', { color: '0000ff', transmission: 0.5 })]);
    expect(red.color.getHex()).toBe(0x0000ff);
    expect((red as unknown as { transmission?: number }).transmission).toBeUndefined();
  });

  it('texture maps: texture info on a texture by textureId, the current map without one, null removes it', () => {
    const blue = record.materials.get('1')! as MeshStandardMaterial;
    const texture = new Texture();
    record.textures.set('t0', texture);
    const versionBefore = blue.version;
    const textureVersion = texture.version;
    const result = applyMutations(world, record, [
      material('1', { map: { textureId: 't0', wrapS: MirroredRepeatWrapping, wrapT: RepeatWrapping, magFilter: NearestFilter, scale: [2, 3], rotation: 0.5 } }),
    ]);
    expect(result).toEqual({ applied: 1, problems: [] });
    expect(blue.map).toBe(texture);
    expect(texture.wrapS).toBe(MirroredRepeatWrapping);
    expect(texture.wrapT).toBe(RepeatWrapping);
    expect(texture.magFilter).toBe(NearestFilter);
    expect(texture.repeat.toArray()).toEqual([2, 3]);
    expect(texture.rotation).toBe(0.5);
    expect(texture.version).toBeGreaterThan(textureVersion);
    // A map where there was none changes the shader.
    expect(blue.version).toBeGreaterThan(versionBefore);
    // The texture is counted once per mesh drawing with the material.
    expect(refCount(texture)).toBe(refCount(blue));

    applyMutations(world, record, [material('1', { map: { scale: 4 } })]);
    expect(texture.repeat.toArray()).toEqual([4, 4]);

    const unknown = applyMutations(world, record, [material('1', { map: { textureId: 'nope' }, roughness: 0.75 })]);
    expect(unknown.problems).toHaveLength(1);
    expect(unknown.problems[0]).toContain("no texture 'nope'");
    expect(blue.map).toBe(texture);
    expect(blue.roughness).toBe(0.75);

    applyMutations(world, record, [material('1', { map: null })]);
    expect(blue.map).toBeNull();
    expect(refCount(texture)).toBe(0);
    // The texture went when its last map did (count 0); the despawn releases the two materials once each.
    const disposed = disposals(texture, blue, record.materials.get('0')!);
    despawnModel(world, record.eid);
    expect(refCount(blue)).toBe(0);
    expect(disposed().sort()).toEqual(['blue', 'red']);
  });

  it('createMaterial registers a MeshPhysicalMaterial that a node can then use', () => {
    const result = applyMutations(world, record, [
      create('glass-1', 'Glass', { color: 0x336699, transmission: 0.9, roughness: 0.1, ior: 1.5 }),
      node('1', { material: 'glass-1' }),
    ]);
    expect(result).toEqual({ applied: 2, problems: [] });
    const glass = record.materials.get('glass-1') as MeshPhysicalMaterial;
    expect(glass).toBeInstanceOf(MeshPhysicalMaterial);
    expect(glass.name).toBe('Glass');
    expect(glass.color.getHex()).toBe(0x336699);
    expect(glass.transmission).toBe(0.9);
    expect(glass.ior).toBe(1.5);
    expect(meshB.material).toBe(glass);

    // Going from no clearcoat to some needs a new shader.
    const version = glass.version;
    applyMutations(world, record, [material('glass-1', { clearcoat: 0.5 })]);
    expect(glass.clearcoat).toBe(0.5);
    expect(glass.version).toBeGreaterThan(version);

    expect(applyMutations(world, record, [create('glass-1', 'Again', {})]).problems[0]).toContain("already has a material 'glass-1'");
    // The made material is counted like a loaded one: released and disposed once with its mesh.
    expect(refCount(glass)).toBe(1);
    const disposed = disposals(glass);
    despawnModel(world, record.eid);
    expect(refCount(glass)).toBe(0);
    expect(disposed()).toEqual(['Glass']);
  });

  it('unknown ids and invalid mutations are problems; the rest still applies in order', () => {
    const red = record.materials.get('0')! as MeshStandardMaterial;
    const result = applyMutations(world, record, [
      node('missing-node', { visible: false }),
      node('0', { name: 'first' }),
      material('missing-material', { roughness: 0.1 }),
      { type: 'updateMaterial', materialId: '0', key: 'k', uuid: 'bad-1', createdAt: 1, properties: { opacity: 3 } } as unknown as Mutation,
      { type: 'deleteEverything', uuid: 'bad-2' } as unknown as Mutation,
      node('1', { parent: 'missing-parent', name: 'second' }),
      node('1', { material: 'missing-material' }),
      material('0', { roughness: 0.6 }),
      node('0', { name: 'last' }),
    ]);
    expect(result.applied).toBe(5);
    expect(result.problems).toHaveLength(6);
    const [noNode, noMaterial, badOpacity, badType, noParent, noMaterialForNode] = result.problems;
    expect(noNode).toContain("no node 'missing-node'");
    expect(noMaterial).toContain("no material 'missing-material'");
    expect(badOpacity).toMatch(/invalid.*opacity must be at most 1/);
    expect(badType).toMatch(/invalid.*type must be one of/);
    expect(noParent).toContain("no node 'missing-parent'");
    expect(noMaterialForNode).toContain("no material 'missing-material'");
    expect(objA.name).toBe('last');
    expect(meshB.name).toBe('second');
    expect(red.opacity).toBe(1);
    expect(red.roughness).toBe(0.6);
    expect(Visibility.visible[a]).toBe(1);
    expect((meshB.material as Material).name).toBe('red');
  });
});
