import { Document, NodeIO } from '@gltf-transform/core';
import type { Buffer as GltfBuffer, Material, Mesh, Node } from '@gltf-transform/core';
import { EXTMeshGPUInstancing, KHRLightsPunctual } from '@gltf-transform/extensions';
import { FLOATS_PER_INSTANCE } from '../protocol/instances.ts';
import { type InstanceSet } from '../protocol/instance-set.ts';
import type { SceneDoc } from '../protocol/scene.ts';
import type { SceneObject } from '../protocol/scene-objects.ts';
import type { ServerConfig } from './config.ts';
import { box, cylinder, merge, type Geometry } from './demo.ts';
import type { InstanceService } from './instances.ts';
import { ASSET_FILE_NAME, readAsset, writeAsset } from './routes/assets.ts';
import { newId, type Store } from './store.ts';
import { processModel } from './upload/process.ts';
import { LEGACY_WAREHOUSE_FILE_NAME, WAREHOUSE_FILE_NAME, WAREHOUSE_SCENE_ID, warehouseNeedsBuild } from './demo-scenes.ts';

/**
 * The large demo scene: a warehouse generated here (nothing copied), in metres. Eight rows of
 * pallet racks (14 bays each, four levels, two pallets per level), a dozen cardboard boxes on every
 * pallet, oil drums along the walls, ceiling lamps: about 11,900 instances of five assets.
 *
 * Stored as the editor stores any large scene (issue 15): one model, the building (floor, markings,
 * walls), its KHR_lights_punctual lights (daylight through the skylights, ceiling point lights, the
 * forklift's headlight spot) and the forklift, which patrols an aisle ('Forklift patrol') while its
 * fork carriage goes up and down ('Fork lift'); plus one InstancedAssetGroup per repeated asset
 * (rack bay, pallet, box, drum, lamp), each asset a GLB of our own geometry on the asset CDN (ids
 * `warehouse-{key}`, through the uploads' validation and optimisation), its instances in the
 * instance store. So every pallet can be selected, moved and deleted in the editor.
 *
 * `buildWarehouseReferenceModel` still writes the whole warehouse as one GLB with
 * EXT_mesh_gpu_instancing nodes: what a person would load in a plain three.js page (the load
 * benchmark's baseline).
 */

export { LEGACY_WAREHOUSE_FILE_NAME, WAREHOUSE_FILE_NAME, WAREHOUSE_SCENE_ID, warehouseNeedsBuild } from './demo-scenes.ts';
export const WAREHOUSE_SCENE_NAME = 'Demo warehouse';
export const WAREHOUSE_GENERATOR = 'parametricos demo';
export const WAREHOUSE_ASSET_PREFIX = 'warehouse-';

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

/** Layout (metres). X along the rows, Z across them, Y up. */
export const WAREHOUSE = {
  rows: 8,
  baysPerRow: 14,
  levels: 4,
  palletsPerLevel: 2,
  bayWidth: 2.7,
  bayDepth: 1.0,
  levelHeight: 1.5,
  rowPitch: 4.6,
  /** Boxes on a pallet: 3 along X, 2 along Z, 2 layers. */
  boxesPerPallet: [3, 2, 2] as const,
  hall: { width: 48, depth: 44, height: 8 },
  drums: 64,
  lamps: { x: 8, z: 6 },
} as const;

const PALLET: Vec3 = [1.2, 0.144, 0.8];
const BOX: Vec3 = [0.38, 0.32, 0.37];

/** A small deterministic PRNG (mulberry32), so the scene is the same on every start. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function yaw(degrees: number): Quat {
  const half = (degrees * Math.PI) / 360;
  return [0, Math.sin(half), 0, Math.cos(half)];
}

interface Builder {
  doc: Document;
  buffer: GltfBuffer;
}

function primitive(b: Builder, name: string, geometry: Geometry, material: Material) {
  const { doc, buffer } = b;
  const accessor = (suffix: string, type: 'VEC3' | 'VEC2', array: Float32Array<ArrayBuffer>) =>
    doc.createAccessor(`${name} ${suffix}`).setType(type).setArray(array).setBuffer(buffer);
  const vertexCount = geometry.positions.length / 3;
  const indices = vertexCount < 65536 ? new Uint16Array(geometry.indices) : new Uint32Array(geometry.indices);
  return doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('positions', 'VEC3', new Float32Array(geometry.positions)))
    .setAttribute('NORMAL', accessor('normals', 'VEC3', new Float32Array(geometry.normals)))
    .setAttribute('TEXCOORD_0', accessor('uvs', 'VEC2', new Float32Array(geometry.uvs)))
    .setIndices(doc.createAccessor(`${name} indices`).setType('SCALAR').setArray(indices).setBuffer(buffer))
    .setMaterial(material);
}

function mesh(b: Builder, name: string, parts: [Geometry, Material][]): Mesh {
  const m = b.doc.createMesh(name);
  parts.forEach(([geometry, material], i) => m.addPrimitive(primitive(b, `${name} ${i}`, geometry, material)));
  return m;
}

/** The instances of one asset: translation, rotation, scale each. */
type Placement = { t: Vec3; r?: Quat; s?: Vec3 };

/** One node drawing `asset` at every placement, with EXT_mesh_gpu_instancing (the reference GLB). */
function instanced(b: Builder, name: string, asset: Mesh, transforms: readonly Placement[]): Node {
  const { doc, buffer } = b;
  const ext = doc.createExtension(EXTMeshGPUInstancing);
  const n = transforms.length;
  const t = new Float32Array(n * 3);
  const r = new Float32Array(n * 4);
  const s = new Float32Array(n * 3);
  transforms.forEach((x, i) => {
    t.set(x.t, i * 3);
    r.set(x.r ?? [0, 0, 0, 1], i * 4);
    s.set(x.s ?? [1, 1, 1], i * 3);
  });
  const batch = ext
    .createInstancedMesh()
    .setAttribute('TRANSLATION', doc.createAccessor(`${name} translations`).setType('VEC3').setArray(t).setBuffer(buffer))
    .setAttribute('ROTATION', doc.createAccessor(`${name} rotations`).setType('VEC4').setArray(r).setBuffer(buffer))
    .setAttribute('SCALE', doc.createAccessor(`${name} scales`).setType('VEC3').setArray(s).setBuffer(buffer));
  return doc.createNode(name).setMesh(asset).setExtension('EXT_mesh_gpu_instancing', batch).setExtras({ asset: asset.getName(), instanceCount: n });
}

type MaterialKey = keyof typeof MATERIALS;
const MATERIALS = {
  floor: { name: 'Concrete floor', color: [0.22, 0.22, 0.21, 1], metallic: 0, roughness: 0.85 },
  wall: { name: 'Wall cladding', color: [0.75, 0.77, 0.8, 1], metallic: 0.3, roughness: 0.6, doubleSided: true },
  upright: { name: 'Rack upright (blue)', color: [0.05, 0.2, 0.55, 1], metallic: 0.4, roughness: 0.5 },
  beam: { name: 'Rack beam (orange)', color: [0.95, 0.42, 0.05, 1], metallic: 0.3, roughness: 0.45 },
  wood: { name: 'Pallet wood', color: [0.62, 0.47, 0.3, 1], metallic: 0, roughness: 0.9 },
  cardboard: { name: 'Cardboard', color: [0.71, 0.55, 0.36, 1], metallic: 0, roughness: 0.8 },
  drum: { name: 'Drum paint (red)', color: [0.6, 0.06, 0.04, 1], metallic: 0.5, roughness: 0.4 },
  lamp: { name: 'Lamp', color: [1, 1, 0.95, 1], metallic: 0, roughness: 0.3, emissive: [1, 0.97, 0.88] },
  forklift: { name: 'Forklift paint (yellow)', color: [0.95, 0.72, 0.05, 1], metallic: 0.2, roughness: 0.45 },
  steel: { name: 'Dark steel', color: [0.18, 0.18, 0.2, 1], metallic: 0.9, roughness: 0.4 },
  tyre: { name: 'Tyre rubber', color: [0.03, 0.03, 0.03, 1], metallic: 0, roughness: 0.95 },
  stripe: { name: 'Floor marking (yellow)', color: [0.9, 0.75, 0.1, 1], metallic: 0, roughness: 0.7 },
} satisfies Record<string, { name: string; color: [number, number, number, number]; metallic: number; roughness: number; doubleSided?: boolean; emissive?: Vec3 }>;

/** The warehouse's materials: `m(key)` makes each in the document the first time a mesh asks for it (an asset's GLB holds only its own). */
function materials(doc: Document): (key: MaterialKey) => Material {
  const made = new Map<MaterialKey, Material>();
  return (key) => {
    let m = made.get(key);
    if (!m) {
      const d: { name: string; color: number[]; metallic: number; roughness: number; doubleSided?: boolean; emissive?: number[] } = MATERIALS[key];
      m = doc.createMaterial(d.name).setBaseColorFactor(d.color as [number, number, number, number]).setMetallicFactor(d.metallic).setRoughnessFactor(d.roughness);
      if (d.doubleSided) m.setDoubleSided(true);
      if (d.emissive) m.setEmissiveFactor(d.emissive as Vec3);
      made.set(key, m);
    }
    return m;
  };
}
type Materials = ReturnType<typeof materials>;

/** One bay of pallet racking, its origin at the middle of its footprint on the floor. */
function rackMesh(b: Builder, m: Materials): Mesh {
  const { bayWidth, bayDepth, levels, levelHeight } = WAREHOUSE;
  const height = levels * levelHeight + 0.2;
  const uprights: Geometry[] = [];
  for (const x of [-bayWidth / 2, bayWidth / 2]) for (const z of [-bayDepth / 2, bayDepth / 2]) uprights.push(box([0.08, height, 0.08], [x, height / 2, z]));
  // Diagonal bracing is left out; horizontal ties at the ends.
  for (const x of [-bayWidth / 2, bayWidth / 2]) for (let y = 0.4; y < height; y += 1.2) uprights.push(box([0.04, 0.04, bayDepth], [x, y, 0]));
  const beams: Geometry[] = [];
  for (let level = 1; level < levels; level++) {
    const y = level * levelHeight - 0.1;
    for (const z of [-bayDepth / 2, bayDepth / 2]) beams.push(box([bayWidth, 0.12, 0.05], [0, y, z]));
  }
  return mesh(b, 'Pallet rack bay', [
    [merge(...uprights), m('upright')],
    [merge(...beams), m('beam')],
  ]);
}

function palletMesh(b: Builder, m: Materials): Mesh {
  const [w, h, d] = PALLET;
  const parts: Geometry[] = [];
  // Top deck boards along X, blocks, bottom boards.
  for (let i = 0; i < 5; i++) parts.push(box([w, 0.022, 0.1], [0, h - 0.011, -d / 2 + 0.05 + (i * (d - 0.1)) / 4]));
  for (const x of [-w / 2 + 0.05, 0, w / 2 - 0.05]) for (const z of [-d / 2 + 0.05, 0, d / 2 - 0.05]) parts.push(box([0.1, 0.078, 0.1], [x, 0.022 + 0.039, z]));
  for (const x of [-w / 2 + 0.05, 0, w / 2 - 0.05]) parts.push(box([0.1, 0.022, d], [x, 0.011, 0]));
  return mesh(b, 'Pallet', [[merge(...parts), m('wood')]]);
}

function forklift(b: Builder, m: Materials, lights: KHRLightsPunctual): { root: Node; carriage: Node } {
  const { doc } = b;
  const body = doc.createNode('Forklift body').setMesh(
    mesh(b, 'Forklift body', [
      [merge(box([1.6, 0.7, 1.1], [0, 0.55, 0]), box([0.5, 0.5, 1.0], [-0.6, 1.1, 0])), m('forklift')],
      [merge(box([0.06, 1.2, 0.06], [-0.05, 1.5, 0.5]), box([0.06, 1.2, 0.06], [-0.05, 1.5, -0.5]), box([0.06, 1.2, 0.06], [-0.75, 1.5, 0.5]), box([0.06, 1.2, 0.06], [-0.75, 1.5, -0.5]), box([0.8, 0.05, 1.1], [-0.4, 2.12, 0])), m('steel')],
    ]),
  );
  const wheelMesh = mesh(b, 'Forklift wheel', [[cylinder({ radius: 0.25, height: 0.2, axis: 'z', segments: 20 }), m('tyre')]]);
  const wheels = ([
    ['front left', 0.5, 0.5],
    ['front right', 0.5, -0.5],
    ['rear left', -0.55, 0.5],
    ['rear right', -0.55, -0.5],
  ] as const).map(([label, x, z]) => doc.createNode(`Forklift wheel ${label}`).setMesh(wheelMesh).setTranslation([x, 0.25, z]));
  const mast = doc.createNode('Forklift mast').setMesh(mesh(b, 'Forklift mast', [[merge(box([0.08, 2.6, 0.08], [0, 1.3, 0.35]), box([0.08, 2.6, 0.08], [0, 1.3, -0.35]), box([0.08, 0.08, 0.78], [0, 2.56, 0])), m('steel')]])).setTranslation([0.85, 0, 0]);
  const carriage = doc
    .createNode('Fork carriage')
    .setMesh(mesh(b, 'Fork carriage', [[merge(box([0.06, 0.5, 0.8], [0, 0.25, 0]), box([1.1, 0.05, 0.12], [0.55, 0.03, 0.25]), box([1.1, 0.05, 0.12], [0.55, 0.03, -0.25])), m('steel')]]))
    .setTranslation([0.95, 0.1, 0]);
  const headlight = doc
    .createNode('Forklift headlight')
    .setExtension('KHR_lights_punctual', lights.createLight('Forklift headlight').setType('spot').setColor([1, 0.95, 0.8]).setIntensity(30).setRange(20).setInnerConeAngle(0.2).setOuterConeAngle(0.5))
    .setTranslation([0.9, 1.6, 0])
    // A spot light shines along its node's -Z: turn it to +X, the way the forklift drives.
    .setRotation(yaw(-90));
  const root = doc.createNode('Forklift');
  for (const child of [body, ...wheels, mast, carriage, headlight]) root.addChild(child);
  return { root, carriage };
}

function animate(b: Builder, name: string, target: Node, path: 'translation' | 'rotation', times: number[], values: number[][], interpolation: 'LINEAR' | 'STEP' = 'LINEAR'): void {
  const { doc, buffer } = b;
  const input = doc.createAccessor(`${name} times`).setType('SCALAR').setArray(new Float32Array(times)).setBuffer(buffer);
  const output = doc.createAccessor(`${name} values`).setType(path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array(values.flat())).setBuffer(buffer);
  const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation(interpolation);
  const channel = doc.createAnimationChannel().setTargetNode(target).setTargetPath(path).setSampler(sampler);
  const animation = doc.getRoot().listAnimations().find((a) => a.getName() === name) ?? doc.createAnimation(name);
  animation.addSampler(sampler).addChannel(channel);
}

// ---------------------------------------------------------------------------------------------
// The repeated assets and where they stand.

/** The repeated assets, in the order of their groups. */
export const WAREHOUSE_ASSETS = [
  { key: 'rack', name: 'Pallet rack bay', group: 'Pallet racks' },
  { key: 'pallet', name: 'Pallet', group: 'Pallets' },
  { key: 'box', name: 'Cardboard box', group: 'Boxes' },
  { key: 'drum', name: 'Oil drum', group: 'Oil drums' },
  { key: 'lamp', name: 'Ceiling lamp', group: 'Ceiling lamps' },
] as const;
export type WarehouseAssetKey = (typeof WAREHOUSE_ASSETS)[number]['key'];

/** The scene object uuid of the group of an asset. */
export const warehouseGroupId = (key: WarehouseAssetKey) => `warehouse-${key}`;

function assetMesh(key: WarehouseAssetKey, b: Builder, m: Materials): Mesh {
  switch (key) {
    case 'rack':
      return rackMesh(b, m);
    case 'pallet':
      return palletMesh(b, m);
    case 'box':
      return mesh(b, 'Cardboard box', [[box(BOX, [0, BOX[1] / 2, 0]), m('cardboard')]]);
    case 'drum':
      return mesh(b, 'Oil drum', [[cylinder({ radius: 0.29, height: 0.88, segments: 24, center: [0, 0.44, 0] }), m('drum')]]);
    case 'lamp':
      return mesh(b, 'Ceiling lamp', [[box([1.2, 0.08, 0.3]), m('lamp')]]);
  }
}

const rowZ = (row: number) => -((WAREHOUSE.rows - 1) * WAREHOUSE.rowPitch) / 2 + row * WAREHOUSE.rowPitch;
const bayX = (bay: number) => -(WAREHOUSE.baysPerRow * WAREHOUSE.bayWidth) / 2 + bay * WAREHOUSE.bayWidth;

/** Where every instance of every asset stands (deterministic: the same on every start). */
export function warehouseLayout(): Record<WarehouseAssetKey, Placement[]> {
  const rand = random(20241122);
  const { rows, baysPerRow, levels, palletsPerLevel, bayWidth, levelHeight, hall } = WAREHOUSE;
  const rack: Placement[] = [];
  const pallet: Placement[] = [];
  const boxes: Placement[] = [];
  const [bx, bz, by] = WAREHOUSE.boxesPerPallet;
  for (let row = 0; row < rows; row++) {
    for (let bay = 0; bay < baysPerRow; bay++) {
      rack.push({ t: [bayX(bay) + bayWidth / 2, 0, rowZ(row)] });
      for (let level = 0; level < levels; level++) {
        for (let p = 0; p < palletsPerLevel; p++) {
          const px = bayX(bay) + 0.1 + PALLET[0] / 2 + p * (PALLET[0] + 0.1);
          const py = level === 0 ? 0 : level * levelHeight - 0.04;
          const pz = rowZ(row);
          pallet.push({ t: [px, py, pz], r: yaw((rand() - 0.5) * 2) });
          for (let i = 0; i < bx; i++) {
            for (let j = 0; j < bz; j++) {
              for (let k = 0; k < by; k++) {
                const scale = 0.92 + rand() * 0.1;
                boxes.push({
                  t: [px - PALLET[0] / 2 + (i + 0.5) * (PALLET[0] / bx), py + PALLET[1] + k * BOX[1] * 1.01, pz - PALLET[2] / 2 + (j + 0.5) * (PALLET[2] / bz)],
                  r: yaw((rand() - 0.5) * 8),
                  s: [scale, 0.9 + rand() * 0.15, scale],
                });
              }
            }
          }
        }
      }
    }
  }
  const drum: Placement[] = [];
  for (let i = 0; i < WAREHOUSE.drums; i++) {
    const side = i % 2 === 0 ? -1 : 1;
    const along = Math.floor(i / 2);
    drum.push({ t: [-hall.width / 2 + 1.5 + (along % 16) * 0.65, 0, side * (hall.depth / 2 - 0.6 - Math.floor(along / 16) * 0.65)], r: yaw(rand() * 360) });
  }
  const lamp: Placement[] = [];
  for (let i = 0; i < WAREHOUSE.lamps.x; i++) {
    for (let j = 0; j < WAREHOUSE.lamps.z; j++) lamp.push({ t: [-hall.width / 2 + (i + 0.5) * (hall.width / WAREHOUSE.lamps.x), hall.height - 0.3, -hall.depth / 2 + (j + 0.5) * (hall.depth / WAREHOUSE.lamps.z)] });
  }
  return { rack, pallet, box: boxes, drum, lamp };
}

/** Placements as an instance set: ids 0..n-1, each matrix T * R * S packed as 12 floats. */
export function placementsToSet(placements: readonly Placement[]): Omit<InstanceSet, 'revision'> {
  const n = placements.length;
  const ids = new Uint32Array(n);
  const matrices = new Float32Array(n * FLOATS_PER_INSTANCE);
  placements.forEach(({ t, r = [0, 0, 0, 1], s = [1, 1, 1] }, i) => {
    ids[i] = i;
    const [x, y, z, w] = r;
    const o = i * FLOATS_PER_INSTANCE;
    // Columns of the rotation, each times its axis's scale; then the translation.
    matrices.set(
      [
        (1 - 2 * (y * y + z * z)) * s[0], 2 * (x * y + z * w) * s[0], 2 * (x * z - y * w) * s[0],
        2 * (x * y - z * w) * s[1], (1 - 2 * (x * x + z * z)) * s[1], 2 * (y * z + x * w) * s[1],
        2 * (x * z + y * w) * s[2], 2 * (y * z - x * w) * s[2], (1 - 2 * (x * x + y * y)) * s[2],
        t[0], t[1], t[2],
      ],
      o,
    );
  });
  return { ids, matrices, nextId: n };
}

/** One GLB document per repeated asset: its mesh on one node, only its own materials. */
export function createWarehouseAssetDocuments(): { key: WarehouseAssetKey; name: string; doc: Document }[] {
  return WAREHOUSE_ASSETS.map(({ key, name }) => {
    const doc = new Document();
    doc.getRoot().getAsset().generator = WAREHOUSE_GENERATOR;
    const b: Builder = { doc, buffer: doc.createBuffer(name) };
    const node = doc.createNode(name).setMesh(assetMesh(key, b, materials(doc)));
    doc.getRoot().setDefaultScene(doc.createScene(name).addChild(node));
    return { key, name, doc };
  });
}

export async function createWarehouseAssets(): Promise<{ key: WarehouseAssetKey; name: string; glb: Uint8Array }[]> {
  const io = new NodeIO();
  return Promise.all(createWarehouseAssetDocuments().map(async ({ key, name, doc }) => ({ key, name, glb: await io.writeBinary(doc) })));
}

// ---------------------------------------------------------------------------------------------
// The building: everything that is not repeated.

/** Counts of what the warehouse holds, for tests and the report. */
export interface WarehouseStats {
  instances: number;
  /** Instances per asset name. */
  assets: Record<string, number>;
  lights: number;
}

function buildShell(b: Builder, m: Materials, lights: KHRLightsPunctual): Node[] {
  const { doc } = b;
  const { rows, baysPerRow, bayWidth, hall } = WAREHOUSE;
  // The hall: floor with aisle markings, walls (no roof, so the orbit camera sees in).
  const floor = doc.createNode('Floor').setMesh(mesh(b, 'Floor', [[box([hall.width, 0.1, hall.depth], [0, -0.05, 0]), m('floor')]]));
  const stripes: Geometry[] = [];
  for (let row = 0; row < rows - 1; row++) {
    const z = (rowZ(row) + rowZ(row + 1)) / 2;
    stripes.push(box([baysPerRow * bayWidth, 0.005, 0.08], [0, 0.003, z - 1.2]), box([baysPerRow * bayWidth, 0.005, 0.08], [0, 0.003, z + 1.2]));
  }
  const markings = doc.createNode('Floor markings').setMesh(mesh(b, 'Floor markings', [[merge(...stripes), m('stripe')]]));
  const walls = doc.createNode('Walls').setMesh(
    mesh(b, 'Walls', [
      [
        merge(
          box([hall.width, hall.height, 0.2], [0, hall.height / 2, -hall.depth / 2]),
          box([0.2, hall.height, hall.depth], [-hall.width / 2, hall.height / 2, 0]),
          box([0.2, hall.height, hall.depth], [hall.width / 2, hall.height / 2, 0]),
        ),
        m('wall'),
      ],
    ]),
  );

  // Lights: daylight through the skylights and ceiling point lights (the lamps' light; the lamp
  // instances are their glowing fittings).
  const sun = doc
    .createNode('Daylight')
    .setExtension('KHR_lights_punctual', lights.createLight('Daylight').setType('directional').setColor([1, 0.97, 0.92]).setIntensity(0.8))
    .setRotation([-0.3535534, 0.3535534, 0.1464466, 0.8535534]);
  const ceiling: Node[] = [];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 2; j++) {
      ceiling.push(
        doc
          .createNode(`Ceiling light ${i * 2 + j + 1}`)
          .setExtension('KHR_lights_punctual', lights.createLight(`Ceiling light ${i * 2 + j + 1}`).setType('point').setColor([1, 0.95, 0.85]).setIntensity(40).setRange(24))
          .setTranslation([-16 + i * 16, hall.height - 0.6, -10 + j * 20]),
      );
    }
  }

  // The forklift drives along the middle aisle and back; its forks go up and down.
  const { root: truck, carriage } = forklift(b, m, lights);
  const aisleZ = (rowZ(3) + rowZ(4)) / 2;
  const x0 = -(baysPerRow * bayWidth) / 2 - 1;
  const x1 = (baysPerRow * bayWidth) / 2 + 1;
  truck.setTranslation([x0, 0, aisleZ]);
  animate(b, 'Forklift patrol', truck, 'translation', [0, 9, 11, 20, 22], [[x0, 0, aisleZ], [x1, 0, aisleZ], [x1, 0, aisleZ], [x0, 0, aisleZ], [x0, 0, aisleZ]]);
  animate(b, 'Forklift patrol', truck, 'rotation', [0, 9, 10, 11, 20, 21, 22], [yaw(0), yaw(0), yaw(90), yaw(180), yaw(180), yaw(270), yaw(360)]);
  animate(b, 'Fork lift', carriage, 'translation', [0, 2, 3, 5, 6], [[0.95, 0.1, 0], [0.95, 1.6, 0], [0.95, 1.6, 0], [0.95, 0.1, 0], [0.95, 0.1, 0]]);
  return [floor, markings, walls, truck, sun, ...ceiling];
}

function warehouseDocument(withInstances: boolean): { doc: Document; stats: WarehouseStats } {
  const doc = new Document();
  doc.getRoot().getAsset().generator = WAREHOUSE_GENERATOR;
  const b: Builder = { doc, buffer: doc.createBuffer('Warehouse') };
  const m = materials(doc);
  const lights = doc.createExtension(KHRLightsPunctual);
  const scene = doc.createScene(WAREHOUSE_SCENE_NAME);
  const layout = warehouseLayout();
  if (withInstances) for (const { key, group } of WAREHOUSE_ASSETS) scene.addChild(instanced(b, group, assetMesh(key, b, m), layout[key]));
  for (const n of buildShell(b, m, lights)) scene.addChild(n);
  doc.getRoot().setDefaultScene(scene);
  const assets = Object.fromEntries(WAREHOUSE_ASSETS.map(({ key, name }) => [name, layout[key].length]));
  return { doc, stats: { instances: Object.values(assets).reduce((a, n) => a + n, 0), assets, lights: lights.listProperties().length } };
}

/** The warehouse's model as a Document: the building, its lights and the forklift (no repeated asset). */
export function createWarehouseDocument(): { doc: Document; stats: WarehouseStats } {
  return warehouseDocument(false);
}

/** The warehouse's model as GLB bytes (uncompressed; the seeding optimises it like an upload). */
export async function buildWarehouseModel(): Promise<Uint8Array> {
  return new NodeIO().registerExtensions([KHRLightsPunctual]).writeBinary(createWarehouseDocument().doc);
}

/**
 * The whole warehouse as one self-contained GLB, the repeated assets as EXT_mesh_gpu_instancing
 * nodes: what a person would load in a plain three.js page (the load benchmark's baseline).
 */
export async function buildWarehouseReferenceModel(): Promise<Uint8Array> {
  return new NodeIO().registerExtensions([EXTMeshGPUInstancing, KHRLightsPunctual]).writeBinary(warehouseDocument(true).doc);
}

// ---------------------------------------------------------------------------------------------
// Seeding.

/** Writes the warehouse's assets to the asset CDN (validated and optimised like uploads) unless there. Returns key -> assetId. */
export async function ensureWarehouseAssets(config: ServerConfig): Promise<Map<WarehouseAssetKey, string>> {
  const ids = new Map<WarehouseAssetKey, string>();
  for (const asset of await createWarehouseAssets()) {
    const assetId = `${WAREHOUSE_ASSET_PREFIX}${asset.key}`;
    ids.set(asset.key, assetId);
    if (await readAsset(config, assetId)) continue;
    const fileName = `${assetId}.glb`;
    const { container } = await processModel({ fileName, bytes: asset.glb }, { maxBytes: config.maxAssetBytes, optimize: true, levels: true, generator: WAREHOUSE_GENERATOR });
    await writeAsset(config, { _id: assetId, name: asset.name, sourceFileName: fileName, path: `assets/${assetId}/${ASSET_FILE_NAME}`, byteLength: container.byteLength, createdAt: new Date().toISOString() }, container);
  }
  return ids;
}

export type WarehouseSeeding = 'created' | 'upgraded' | 'kept';

/**
 * Creates the scene 'warehouse' unless the store has it: the assets on the asset CDN, the
 * building's model (validated and optimised like an upload) in the scene, the groups' instance
 * sets, and last the groups in the scene's objects (an interrupted start is done again by the next).
 *
 * A scene as an earlier version made it (one model with the repeated assets inside, no groups) is
 * upgraded the same way: its model is replaced by the building and the groups are added (other
 * scene objects are kept). Any other existing scene is kept as it is, edits and all.
 */
export async function ensureWarehouseScene(ctx: { config: ServerConfig; store: Store; instances: InstanceService }): Promise<{ scene: SceneDoc; status: WarehouseSeeding }> {
  const { config, store, instances } = ctx;
  const existing = await store.getScene(WAREHOUSE_SCENE_ID);
  if (existing && !warehouseNeedsBuild(existing)) return { scene: existing, status: 'kept' };
  const upgrade = existing?.models.some((m) => m.sourceFileName === LEGACY_WAREHOUSE_FILE_NAME) ?? false;

  const assetIds = await ensureWarehouseAssets(config);
  const { container } = await processModel({ fileName: WAREHOUSE_FILE_NAME, bytes: await buildWarehouseModel() }, { maxBytes: config.maxAssetBytes, optimize: true, generator: WAREHOUSE_GENERATOR });
  const modelId = newId();
  const versionKey = `${modelId}/${newId()}`;
  await store.writeDerivative(versionKey, container);
  const model = await store.putModel({ _id: modelId, latestVersionKey: versionKey, outputFormat: 'glb', sourceFileName: WAREHOUSE_FILE_NAME });
  const withModel = existing ? await store.updateScene(WAREHOUSE_SCENE_ID, (s) => ({ ...s, models: [model] })) : undefined;
  if (!withModel) await store.putScene({ _id: WAREHOUSE_SCENE_ID, name: WAREHOUSE_SCENE_NAME, viewerConfig: {}, models: [model] });

  const layout = warehouseLayout();
  const objects: SceneObject[] = [];
  for (const { key, group } of WAREHOUSE_ASSETS) {
    const uuid = warehouseGroupId(key);
    await instances.replace(WAREHOUSE_SCENE_ID, uuid, placementsToSet(layout[key]));
    objects.push({
      uuid,
      type: 'InstancedAssetGroup',
      name: group,
      parent: null,
      position: [0, 0, 0],
      quaternion: [0, 0, 0, 1],
      scale: [1, 1, 1],
      visible: true,
      castShadow: true,
      assetId: assetIds.get(key)!,
      instanceCount: layout[key].length,
    });
  }
  const scene = await store.updateScene(WAREHOUSE_SCENE_ID, (s) => ({ ...s, viewerConfig: { ...s.viewerConfig, objects: [...(s.viewerConfig.objects ?? []), ...objects] } }));
  if (!scene) throw new Error(`The warehouse scene '${WAREHOUSE_SCENE_ID}' was removed while it was being made`);
  return { scene, status: upgrade ? 'upgraded' : 'created' };
}
