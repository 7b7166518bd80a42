import { Document, NodeIO } from '@gltf-transform/core';
import type { Buffer as GltfBuffer, Material, Mesh, Node } from '@gltf-transform/core';
import { EXTMeshGPUInstancing, KHRLightsPunctual } from '@gltf-transform/extensions';
import type { SceneDoc } from '../protocol/scene.ts';
import { box, cylinder, merge, type Geometry } from './demo.ts';
import { importModel } from './import.ts';
import type { Store } from './store.ts';

/**
 * The large demo scene: a warehouse generated here (nothing copied), in metres. Eight rows of
 * pallet racks (14 bays each, four levels, two pallets per level), a dozen cardboard boxes on every
 * pallet, oil drums along the walls, ceiling lamps; about 11,900 instances of six assets, each asset
 * one node with EXT_mesh_gpu_instancing (a handful of InstancedMesh draws in three.js). Lit by
 * KHR_lights_punctual lights (a directional light through the skylights, ceiling point lights and
 * the forklift's headlight spot). The forklift, not instanced, patrols an aisle ('Forklift patrol')
 * while its fork carriage goes up and down ('Fork lift').
 */

export const WAREHOUSE_SCENE_ID = 'warehouse';
export const WAREHOUSE_SCENE_NAME = 'Demo warehouse';
export const WAREHOUSE_FILE_NAME = 'demo-warehouse.glb';
export const WAREHOUSE_GENERATOR = 'parametricos demo';

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

/** One node drawing `asset` at every transform, with EXT_mesh_gpu_instancing. */
function instanced(b: Builder, name: string, asset: Mesh, transforms: { t: Vec3; r?: Quat; s?: Vec3 }[]): Node {
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

function materials(doc: Document) {
  const pbr = (name: string, color: [number, number, number, number], metallic: number, roughness: number) =>
    doc.createMaterial(name).setBaseColorFactor(color).setMetallicFactor(metallic).setRoughnessFactor(roughness);
  return {
    floor: pbr('Concrete floor', [0.22, 0.22, 0.21, 1], 0, 0.85),
    wall: pbr('Wall cladding', [0.75, 0.77, 0.8, 1], 0.3, 0.6).setDoubleSided(true),
    upright: pbr('Rack upright (blue)', [0.05, 0.2, 0.55, 1], 0.4, 0.5),
    beam: pbr('Rack beam (orange)', [0.95, 0.42, 0.05, 1], 0.3, 0.45),
    wood: pbr('Pallet wood', [0.62, 0.47, 0.3, 1], 0, 0.9),
    cardboard: pbr('Cardboard', [0.71, 0.55, 0.36, 1], 0, 0.8),
    drum: pbr('Drum paint (red)', [0.6, 0.06, 0.04, 1], 0.5, 0.4),
    lamp: pbr('Lamp', [1, 1, 0.95, 1], 0, 0.3).setEmissiveFactor([1, 0.97, 0.88]),
    forklift: pbr('Forklift paint (yellow)', [0.95, 0.72, 0.05, 1], 0.2, 0.45),
    steel: pbr('Dark steel', [0.18, 0.18, 0.2, 1], 0.9, 0.4),
    tyre: pbr('Tyre rubber', [0.03, 0.03, 0.03, 1], 0, 0.95),
    stripe: pbr('Floor marking (yellow)', [0.9, 0.75, 0.1, 1], 0, 0.7),
  };
}
type Materials = ReturnType<typeof materials>;

function rackMesh(b: Builder, m: Materials): Mesh {
  const { bayWidth, bayDepth, levels, levelHeight } = WAREHOUSE;
  const height = levels * levelHeight + 0.2;
  const uprights: Geometry[] = [];
  for (const x of [0, bayWidth]) for (const z of [-bayDepth / 2, bayDepth / 2]) uprights.push(box([0.08, height, 0.08], [x, height / 2, z]));
  // Diagonal bracing is left out; horizontal ties at the ends.
  for (const x of [0, bayWidth]) for (let y = 0.4; y < height; y += 1.2) uprights.push(box([0.04, 0.04, bayDepth], [x, y, 0]));
  const beams: Geometry[] = [];
  for (let level = 1; level < levels; level++) {
    const y = level * levelHeight - 0.1;
    for (const z of [-bayDepth / 2, bayDepth / 2]) beams.push(box([bayWidth, 0.12, 0.05], [bayWidth / 2, y, z]));
  }
  return mesh(b, 'Pallet rack bay', [
    [merge(...uprights), m.upright],
    [merge(...beams), m.beam],
  ]);
}

function palletMesh(b: Builder, m: Materials): Mesh {
  const [w, h, d] = PALLET;
  const parts: Geometry[] = [];
  // Top deck boards along X, blocks, bottom boards.
  for (let i = 0; i < 5; i++) parts.push(box([w, 0.022, 0.1], [0, h - 0.011, -d / 2 + 0.05 + (i * (d - 0.1)) / 4]));
  for (const x of [-w / 2 + 0.05, 0, w / 2 - 0.05]) for (const z of [-d / 2 + 0.05, 0, d / 2 - 0.05]) parts.push(box([0.1, 0.078, 0.1], [x, 0.022 + 0.039, z]));
  for (const x of [-w / 2 + 0.05, 0, w / 2 - 0.05]) parts.push(box([0.1, 0.022, d], [x, 0.011, 0]));
  return mesh(b, 'Pallet', [[merge(...parts), m.wood]]);
}

function forklift(b: Builder, m: Materials, lights: KHRLightsPunctual): { root: Node; carriage: Node } {
  const { doc } = b;
  const body = doc.createNode('Forklift body').setMesh(
    mesh(b, 'Forklift body', [
      [merge(box([1.6, 0.7, 1.1], [0, 0.55, 0]), box([0.5, 0.5, 1.0], [-0.6, 1.1, 0])), m.forklift],
      [merge(box([0.06, 1.2, 0.06], [-0.05, 1.5, 0.5]), box([0.06, 1.2, 0.06], [-0.05, 1.5, -0.5]), box([0.06, 1.2, 0.06], [-0.75, 1.5, 0.5]), box([0.06, 1.2, 0.06], [-0.75, 1.5, -0.5]), box([0.8, 0.05, 1.1], [-0.4, 2.12, 0])), m.steel],
    ]),
  );
  const wheelMesh = mesh(b, 'Forklift wheel', [[cylinder({ radius: 0.25, height: 0.2, axis: 'z', segments: 20 }), m.tyre]]);
  const wheels = ([
    ['front left', 0.5, 0.5],
    ['front right', 0.5, -0.5],
    ['rear left', -0.55, 0.5],
    ['rear right', -0.55, -0.5],
  ] as const).map(([label, x, z]) => doc.createNode(`Forklift wheel ${label}`).setMesh(wheelMesh).setTranslation([x, 0.25, z]));
  const mast = doc.createNode('Forklift mast').setMesh(mesh(b, 'Forklift mast', [[merge(box([0.08, 2.6, 0.08], [0, 1.3, 0.35]), box([0.08, 2.6, 0.08], [0, 1.3, -0.35]), box([0.08, 0.08, 0.78], [0, 2.56, 0])), m.steel]])).setTranslation([0.85, 0, 0]);
  const carriage = doc
    .createNode('Fork carriage')
    .setMesh(mesh(b, 'Fork carriage', [[merge(box([0.06, 0.5, 0.8], [0, 0.25, 0]), box([1.1, 0.05, 0.12], [0.55, 0.03, 0.25]), box([1.1, 0.05, 0.12], [0.55, 0.03, -0.25])), m.steel]]))
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

/** Counts of what `createWarehouseDocument` makes, for tests and the report. */
export interface WarehouseStats {
  instances: number;
  assets: Record<string, number>;
  lights: number;
}

/** The warehouse as a Document (exported for tests and tools). */
export function createWarehouseDocument(): { doc: Document; stats: WarehouseStats } {
  const doc = new Document();
  doc.getRoot().getAsset().generator = WAREHOUSE_GENERATOR;
  const b: Builder = { doc, buffer: doc.createBuffer('Warehouse') };
  const m = materials(doc);
  const lights = doc.createExtension(KHRLightsPunctual);
  const rand = random(20241122);
  const { rows, baysPerRow, levels, palletsPerLevel, bayWidth, levelHeight, rowPitch, hall } = WAREHOUSE;

  const rowZ = (row: number) => -((rows - 1) * rowPitch) / 2 + row * rowPitch;
  const bayX = (bay: number) => -(baysPerRow * bayWidth) / 2 + bay * bayWidth;

  const racks: { t: Vec3 }[] = [];
  const pallets: { t: Vec3; r: Quat }[] = [];
  const boxes: { t: Vec3; r: Quat; s: Vec3 }[] = [];
  const [bx, bz, by] = WAREHOUSE.boxesPerPallet;
  for (let row = 0; row < rows; row++) {
    for (let bay = 0; bay < baysPerRow; bay++) {
      racks.push({ t: [bayX(bay), 0, rowZ(row)] });
      for (let level = 0; level < levels; level++) {
        for (let p = 0; p < palletsPerLevel; p++) {
          const px = bayX(bay) + 0.1 + PALLET[0] / 2 + p * (PALLET[0] + 0.1);
          const py = level === 0 ? 0 : level * levelHeight - 0.04;
          const pz = rowZ(row);
          pallets.push({ t: [px, py, pz], r: yaw((rand() - 0.5) * 2) });
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

  const drums: { t: Vec3; r: Quat }[] = [];
  for (let i = 0; i < WAREHOUSE.drums; i++) {
    const side = i % 2 === 0 ? -1 : 1;
    const along = Math.floor(i / 2);
    drums.push({ t: [-hall.width / 2 + 1.5 + (along % 16) * 0.65, 0, side * (hall.depth / 2 - 0.6 - Math.floor(along / 16) * 0.65)], r: yaw(rand() * 360) });
  }
  const lamps: { t: Vec3 }[] = [];
  for (let i = 0; i < WAREHOUSE.lamps.x; i++) {
    for (let j = 0; j < WAREHOUSE.lamps.z; j++) lamps.push({ t: [-hall.width / 2 + (i + 0.5) * (hall.width / WAREHOUSE.lamps.x), hall.height - 0.3, -hall.depth / 2 + (j + 0.5) * (hall.depth / WAREHOUSE.lamps.z)] });
  }

  const boxMesh = mesh(b, 'Cardboard box', [[box(BOX, [0, BOX[1] / 2, 0]), m.cardboard]]);
  const drumMesh = mesh(b, 'Oil drum', [[cylinder({ radius: 0.29, height: 0.88, segments: 24, center: [0, 0.44, 0] }), m.drum]]);
  const lampMesh = mesh(b, 'Ceiling lamp', [[box([1.2, 0.08, 0.3]), m.lamp]]);

  const rackNode = instanced(b, 'Pallet racks', rackMesh(b, m), racks);
  const palletNode = instanced(b, 'Pallets', palletMesh(b, m), pallets);
  const boxNode = instanced(b, 'Boxes', boxMesh, boxes);
  const drumNode = instanced(b, 'Oil drums', drumMesh, drums);
  const lampNode = instanced(b, 'Ceiling lamps', lampMesh, lamps);

  // The hall: floor with aisle markings, walls (no roof, so the orbit camera sees in).
  const floor = doc.createNode('Floor').setMesh(mesh(b, 'Floor', [[box([hall.width, 0.1, hall.depth], [0, -0.05, 0]), m.floor]]));
  const stripes: Geometry[] = [];
  for (let row = 0; row < rows - 1; row++) {
    const z = (rowZ(row) + rowZ(row + 1)) / 2;
    stripes.push(box([baysPerRow * bayWidth, 0.005, 0.08], [0, 0.003, z - 1.2]), box([baysPerRow * bayWidth, 0.005, 0.08], [0, 0.003, z + 1.2]));
  }
  const markings = doc.createNode('Floor markings').setMesh(mesh(b, 'Floor markings', [[merge(...stripes), m.stripe]]));
  const walls = doc.createNode('Walls').setMesh(
    mesh(b, 'Walls', [
      [
        merge(
          box([hall.width, hall.height, 0.2], [0, hall.height / 2, -hall.depth / 2]),
          box([0.2, hall.height, hall.depth], [-hall.width / 2, hall.height / 2, 0]),
          box([0.2, hall.height, hall.depth], [hall.width / 2, hall.height / 2, 0]),
        ),
        m.wall,
      ],
    ]),
  );

  // Lights: daylight through the skylights and ceiling point lights.
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

  const scene = doc.createScene(WAREHOUSE_SCENE_NAME);
  for (const n of [floor, markings, walls, rackNode, palletNode, boxNode, drumNode, lampNode, truck, sun, ...ceiling]) scene.addChild(n);
  doc.getRoot().setDefaultScene(scene);

  const assets = { 'Pallet rack bay': racks.length, Pallet: pallets.length, 'Cardboard box': boxes.length, 'Oil drum': drums.length, 'Ceiling lamp': lamps.length };
  return {
    doc,
    stats: { instances: Object.values(assets).reduce((a, n) => a + n, 0), assets, lights: lights.listProperties().length },
  };
}

/** The warehouse as GLB bytes (uncompressed; the import optimises it). */
export async function buildWarehouseModel(): Promise<Uint8Array> {
  return new NodeIO().registerExtensions([EXTMeshGPUInstancing, KHRLightsPunctual]).writeBinary(createWarehouseDocument().doc);
}

/** Creates the scene 'warehouse' (validated and optimised like an upload) unless the store has it. */
export async function ensureWarehouseScene(store: Store): Promise<{ scene: SceneDoc; created: boolean }> {
  const existing = await store.getScene(WAREHOUSE_SCENE_ID);
  if (existing) return { scene: existing, created: false };
  const { scene } = await importModel(
    store,
    { bytes: await buildWarehouseModel(), fileName: WAREHOUSE_FILE_NAME },
    { sceneId: WAREHOUSE_SCENE_ID, name: WAREHOUSE_SCENE_NAME, generator: WAREHOUSE_GENERATOR, optimize: true },
  );
  return { scene, created: true };
}
