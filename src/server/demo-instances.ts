import { Document, NodeIO } from '@gltf-transform/core';
import type { Buffer as GltfBuffer, Material } from '@gltf-transform/core';
import { FLOATS_PER_INSTANCE } from '../protocol/instances.ts';
import { type InstanceSet } from '../protocol/instance-set.ts';
import { box, cylinder, merge, sphere, type Geometry } from './demo.ts';

/**
 * The instanced demo (issue 15): six low-poly assets of our own geometry for a city block and the
 * forest around it, and a deterministic layout of any number of instances of them (1 to 1,000,000
 * and beyond). Pure: no store, no files; `npm run demo -- instances N` uploads the assets and
 * stores the layout as one InstancedAssetGroup per asset.
 *
 * Assets are in metres, Y up, origin at the base (on the ground) and centred on it; a house's and a
 * car's front face +Z, a street lamp's arm reaches along +X.
 *
 * The layout: a square street grid of 80 m blocks (68 m lots, 12 m streets) in the middle, sized
 * by the number of houses (8 lots a block, two rows of four facing the streets); cars in both lanes
 * of the streets, street lamps along the kerbs, broadleaf trees and benches in the courtyards; a
 * mixed forest (one tree per ~30 m^2, jittered grid) in a square ring around the city holds the
 * rest of the trees. Every instance stands on the ground (y = 0) with a yaw and a scale from a
 * seeded PRNG. Counts per asset are fixed shares of n (largest remainder, so they sum to n).
 */

export const INSTANCE_DEMO_GENERATOR = 'parametricos demo';

type Vec3 = [number, number, number];

/** The demo's assets, in the order `createInstanceAssets` and `generateInstanceLayout` return them. */
export const INSTANCE_DEMO_ASSETS = [
  { key: 'conifer', name: 'Conifer', share: 0.4 },
  { key: 'broadleaf-tree', name: 'Broadleaf tree', share: 0.3 },
  { key: 'car', name: 'Car', share: 0.1 },
  { key: 'house', name: 'House', share: 0.08 },
  { key: 'street-lamp', name: 'Street lamp', share: 0.08 },
  { key: 'bench', name: 'Park bench', share: 0.04 },
] as const;
export type InstanceDemoKey = (typeof INSTANCE_DEMO_ASSETS)[number]['key'];

/** City layout (metres). */
export const CITY = {
  /** Block pitch: lots plus one street. */
  pitch: 80,
  street: 12,
  lotsPerBlock: 8,
  lotWidth: 17,
  /** Courtyard slots for broadleaf trees in a block (the rest of them stand in the forest). */
  treesPerBlock: 6,
  /** Square metres of forest per tree. */
  forestAreaPerTree: 30,
} as const;

// ---------------------------------------------------------------------------------------------
// Geometry helpers beyond demo.ts: flat polygons and cones.

/** A flat convex polygon (counter-clockwise seen from the side its normal points to), planar UVs. */
export function polygon(points: Vec3[]): Geometry {
  const [a, b, c] = points as [Vec3, Vec3, Vec3];
  const u: Vec3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const v: Vec3 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n: Vec3 = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const len = Math.hypot(...n);
  const normal = n.map((x) => x / len);
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const indices: number[] = [];
  // Planar UVs along the two largest axes of the polygon's plane.
  const drop = Math.abs(normal[0]!) > Math.abs(normal[1]!) ? (Math.abs(normal[0]!) > Math.abs(normal[2]!) ? 0 : 2) : Math.abs(normal[1]!) > Math.abs(normal[2]!) ? 1 : 2;
  const [s, t] = [0, 1, 2].filter((k) => k !== drop) as [number, number];
  for (const p of points) {
    positions.push(...p);
    normals.push(...normal);
    uvs.push(p[s], p[t]);
  }
  for (let i = 1; i + 1 < points.length; i++) indices.push(0, i, i + 1);
  return { positions, normals, uvs, indices };
}

/** A cone standing on y = `base`, smooth sides, a flat bottom. */
function cone(radius: number, height: number, base: number, segments: number): Geometry {
  const g: Geometry = { positions: [], normals: [], uvs: [], indices: [] };
  const slant = Math.hypot(radius, height);
  const ny = radius / slant;
  const nr = height / slant;
  for (let i = 0; i < segments; i++) {
    const a0 = (i / segments) * Math.PI * 2;
    const a1 = ((i + 1) / segments) * Math.PI * 2;
    const am = (a0 + a1) / 2;
    const k = g.positions.length / 3;
    g.positions.push(radius * Math.sin(a0), base, radius * Math.cos(a0), radius * Math.sin(a1), base, radius * Math.cos(a1), 0, base + height, 0);
    g.normals.push(nr * Math.sin(a0), ny, nr * Math.cos(a0), nr * Math.sin(a1), ny, nr * Math.cos(a1), nr * Math.sin(am), ny, nr * Math.cos(am));
    g.uvs.push(i / segments, 1, (i + 1) / segments, 1, (i + 0.5) / segments, 0);
    g.indices.push(k, k + 1, k + 2);
  }
  const ring: Vec3[] = [];
  for (let i = segments - 1; i >= 0; i--) {
    const a = (i / segments) * Math.PI * 2;
    ring.push([radius * Math.sin(a), base, radius * Math.cos(a)]);
  }
  return merge(g, polygon(ring));
}

/** A gable roof over an x-by-z footprint on y = `base`, ridge along X, with an overhang. */
function gableRoof(width: number, depth: number, height: number, base: number, overhang: number): Geometry {
  const x = width / 2 + overhang;
  const z = depth / 2 + overhang;
  const top = base + height;
  return merge(
    polygon([[-x, base, z], [x, base, z], [x, top, 0], [-x, top, 0]]),
    polygon([[x, base, -z], [-x, base, -z], [-x, top, 0], [x, top, 0]]),
    polygon([[x, base, z], [x, base, -z], [x, top, 0]]),
    polygon([[-x, base, -z], [-x, base, z], [-x, top, 0]]),
    polygon([[-x, base, z], [-x, base, -z], [x, base, -z], [x, base, z]]),
  );
}

// ---------------------------------------------------------------------------------------------
// The assets.

interface Builder {
  doc: Document;
  buffer: GltfBuffer;
}

export function pbr(doc: Document, name: string, color: [number, number, number], metallic: number, roughness: number): Material {
  return doc.createMaterial(name).setBaseColorFactor([...color, 1]).setMetallicFactor(metallic).setRoughnessFactor(roughness);
}

/** One document with one node and one mesh of one primitive per material (16-bit indices where they fit). */
export function assetDocument(name: string, parts: (doc: Document) => [Geometry, Material][]): Document {
  const doc = new Document();
  doc.getRoot().getAsset().generator = INSTANCE_DEMO_GENERATOR;
  const b: Builder = { doc, buffer: doc.createBuffer(name) };
  const mesh = doc.createMesh(name);
  parts(doc).forEach(([geometry, material], i) => {
    const accessor = (suffix: string, type: 'VEC3' | 'VEC2', array: Float32Array<ArrayBuffer>) =>
      doc.createAccessor(`${name} ${i} ${suffix}`).setType(type).setArray(array).setBuffer(b.buffer);
    mesh.addPrimitive(
      doc
        .createPrimitive()
        .setAttribute('POSITION', accessor('positions', 'VEC3', new Float32Array(geometry.positions)))
        .setAttribute('NORMAL', accessor('normals', 'VEC3', new Float32Array(geometry.normals)))
        .setAttribute('TEXCOORD_0', accessor('uvs', 'VEC2', new Float32Array(geometry.uvs)))
        .setIndices(
          doc
            .createAccessor(`${name} ${i} indices`)
            .setType('SCALAR')
            .setArray(geometry.positions.length / 3 > 0xffff ? new Uint32Array(geometry.indices) : new Uint16Array(geometry.indices))
            .setBuffer(b.buffer),
        )
        .setMaterial(material),
    );
  });
  const scene = doc.createScene(name).addChild(doc.createNode(name).setMesh(mesh));
  doc.getRoot().setDefaultScene(scene);
  return doc;
}

function conifer(): Document {
  return assetDocument('Conifer', (doc) => [
    [cylinder({ radius: 0.16, height: 1.6, segments: 7, center: [0, 0.8, 0] }), pbr(doc, 'Bark', [0.3, 0.2, 0.13], 0, 0.95)],
    [merge(cone(1.9, 3.4, 1.2, 9), cone(1.5, 3.0, 2.9, 9), cone(1.05, 2.7, 4.6, 9), cone(0.6, 2.2, 6.3, 8)), pbr(doc, 'Needles', [0.08, 0.3, 0.14], 0, 0.9)],
  ]);
}

function broadleafTree(): Document {
  return assetDocument('Broadleaf tree', (doc) => [
    [
      merge(cylinder({ radius: 0.2, height: 3.2, segments: 7, center: [0, 1.6, 0] }), cylinder({ radius: 0.09, height: 1.6, segments: 5, center: [0.55, 3.4, 0] })),
      pbr(doc, 'Bark', [0.33, 0.24, 0.16], 0, 0.95),
    ],
    [merge(sphere(2.1, [0, 4.6, 0], 9, 6), sphere(1.5, [1.2, 4.0, 0.6], 8, 5), sphere(1.4, [-1.0, 4.2, -0.7], 8, 5)), pbr(doc, 'Leaves', [0.24, 0.45, 0.13], 0, 0.85)],
  ]);
}

function house(): Document {
  const [w, h, d] = [8, 5.6, 7.5];
  const windows: Geometry[] = [];
  for (const y of [1.6, 4.1]) {
    for (const x of [-2.6, 2.6]) windows.push(box([1.2, 1.2, 0.08], [x, y, d / 2 + 0.02]), box([1.2, 1.2, 0.08], [x, y, -d / 2 - 0.02]));
    windows.push(box([0.08, 1.2, 1.2], [w / 2 + 0.02, y, 0]), box([0.08, 1.2, 1.2], [-w / 2 - 0.02, y, 0]));
  }
  windows.push(box([1.2, 1.2, 0.08], [0, 4.1, d / 2 + 0.02]));
  return assetDocument('House', (doc) => [
    [merge(box([w, h, d], [0, h / 2, 0]), box([w + 0.3, 0.35, d + 0.3], [0, 0.175, 0])), pbr(doc, 'Plaster', [0.86, 0.8, 0.7], 0, 0.9)],
    [merge(gableRoof(w, d, 2.8, h, 0.45), box([0.7, 1.8, 0.7], [2.2, h + 2.2, -1.4])), pbr(doc, 'Roof tiles', [0.55, 0.2, 0.14], 0, 0.8)],
    [merge(...windows), pbr(doc, 'Window glass', [0.2, 0.32, 0.42], 0.1, 0.15)],
    [merge(box([1.1, 2.2, 0.1], [0, 1.1 + 0.35, d / 2 + 0.03]), box([1.6, 0.12, 1.0], [0, 0.35 + 2.45, d / 2 + 0.5])), pbr(doc, 'Door wood', [0.36, 0.2, 0.1], 0, 0.7)],
  ]);
}

function car(): Document {
  const [length, width] = [4.3, 1.8];
  const wheels: Geometry[] = [];
  for (const z of [1.35, -1.35]) for (const x of [width / 2 - 0.1, -width / 2 + 0.1]) wheels.push(cylinder({ radius: 0.33, height: 0.24, segments: 12, axis: 'x', center: [x, 0.33, z] }));
  return assetDocument('Car', (doc) => [
    [merge(box([width, 0.65, length], [0, 0.62, 0]), box([width - 0.1, 0.08, 1.2], [0, 0.98, 1.45])), pbr(doc, 'Car paint', [0.62, 0.08, 0.08], 0.6, 0.35)],
    [merge(box([width - 0.2, 0.55, 2.1], [0, 1.22, -0.25]), box([width - 0.15, 0.04, 2.0], [0, 1.5, -0.25])), pbr(doc, 'Car glass', [0.1, 0.13, 0.16], 0.2, 0.1)],
    [merge(...wheels, box([width + 0.02, 0.22, 0.18], [0, 0.42, length / 2]), box([width + 0.02, 0.22, 0.18], [0, 0.42, -length / 2])), pbr(doc, 'Tyres and bumpers', [0.04, 0.04, 0.045], 0, 0.9)],
    [merge(box([0.32, 0.14, 0.04], [0.6, 0.72, length / 2 + 0.01]), box([0.32, 0.14, 0.04], [-0.6, 0.72, length / 2 + 0.01])), pbr(doc, 'Headlights', [1, 0.97, 0.85], 0, 0.2).setEmissiveFactor([1, 0.95, 0.8])],
  ]);
}

function streetLamp(): Document {
  return assetDocument('Street lamp', (doc) => [
    [
      merge(
        cylinder({ radius: 0.2, height: 0.5, segments: 8, center: [0, 0.25, 0] }),
        cylinder({ radius: 0.07, height: 6, segments: 8, center: [0, 3.25, 0] }),
        box([1.5, 0.08, 0.08], [0.72, 6.15, 0]),
        box([0.55, 0.14, 0.28], [1.5, 6.1, 0]),
      ),
      pbr(doc, 'Lamp post steel', [0.2, 0.22, 0.24], 0.8, 0.45),
    ],
    [box([0.45, 0.04, 0.22], [1.5, 6.02, 0]), pbr(doc, 'Lamp glass', [1, 0.93, 0.75], 0, 0.2).setEmissiveFactor([1, 0.88, 0.6])],
  ]);
}

function bench(): Document {
  const slats: Geometry[] = [];
  for (let i = 0; i < 3; i++) slats.push(box([1.8, 0.04, 0.12], [0, 0.45, -0.18 + i * 0.14]));
  for (let i = 0; i < 2; i++) slats.push(box([1.8, 0.12, 0.04], [0, 0.6 + i * 0.17, -0.3]));
  const frame: Geometry[] = [];
  for (const x of [-0.75, 0.75]) frame.push(box([0.06, 0.45, 0.06], [x, 0.225, 0.12]), box([0.06, 0.85, 0.06], [x, 0.425, -0.3]), box([0.06, 0.05, 0.5], [x, 0.41, -0.08]));
  return assetDocument('Park bench', (doc) => [
    [merge(...slats), pbr(doc, 'Bench wood', [0.55, 0.36, 0.2], 0, 0.8)],
    [merge(...frame), pbr(doc, 'Cast iron', [0.12, 0.14, 0.13], 0.7, 0.5)],
  ]);
}

const BUILDERS: Record<InstanceDemoKey, () => Document> = {
  conifer,
  'broadleaf-tree': broadleafTree,
  car,
  house,
  'street-lamp': streetLamp,
  bench,
};

/** An asset set's documents, one per kind in INSTANCE_DEMO_ASSETS order, from its builder of each kind. */
export function assetDocumentsOf(builders: Record<InstanceDemoKey, () => Document>): { key: InstanceDemoKey; name: string; doc: Document }[] {
  return INSTANCE_DEMO_ASSETS.map(({ key, name }) => ({ key, name, doc: builders[key]() }));
}

/** The demo's asset documents (for tests and tools). */
export function createInstanceAssetDocuments(): { key: InstanceDemoKey; name: string; doc: Document }[] {
  return assetDocumentsOf(BUILDERS);
}

/** The triangles of a document's meshes (every primitive is an indexed triangle list). */
export function countTriangles(doc: Document): number {
  let triangles = 0;
  for (const mesh of doc.getRoot().listMeshes()) for (const prim of mesh.listPrimitives()) triangles += (prim.getIndices()?.getCount() ?? 0) / 3;
  return triangles;
}

/** Asset documents as GLB bytes (uncompressed; the asset upload path validates and optimises them). */
export async function writeInstanceAssets(docs: { key: InstanceDemoKey; name: string; doc: Document }[]): Promise<{ key: InstanceDemoKey; name: string; glb: Uint8Array; triangles: number }[]> {
  const io = new NodeIO();
  return Promise.all(docs.map(async ({ key, name, doc }) => ({ key, name, glb: await io.writeBinary(doc), triangles: countTriangles(doc) })));
}

/** The demo's assets as GLB bytes (uncompressed; the asset upload path validates and optimises them). */
export async function createInstanceAssets(): Promise<{ key: InstanceDemoKey; name: string; glb: Uint8Array; triangles: number }[]> {
  return writeInstanceAssets(createInstanceAssetDocuments());
}

// ---------------------------------------------------------------------------------------------
// The layout.

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Counts per asset: the shares of n, rounded by largest remainder so that they sum to n. */
export function instanceCounts(n: number): Record<InstanceDemoKey, number> {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`The instance count must be a whole number >= 0, not ${n}`);
  const exact = INSTANCE_DEMO_ASSETS.map((a) => a.share * n);
  const counts = exact.map(Math.floor);
  let left = n - counts.reduce((s, c) => s + c, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    counts[i]! += 1;
  }
  return Object.fromEntries(INSTANCE_DEMO_ASSETS.map((a, i) => [a.key, counts[i]!])) as Record<InstanceDemoKey, number>;
}

const F = FLOATS_PER_INSTANCE;

/** Writes a yaw (radians about +Y), a scale and a ground position as the 12 packed floats of slot i. */
function place(out: Float32Array, i: number, x: number, z: number, yaw: number, s: number, sy: number): void {
  const c = Math.cos(yaw);
  const n = Math.sin(yaw);
  const o = i * F;
  out[o] = c * s;
  out[o + 1] = 0;
  out[o + 2] = -n * s;
  out[o + 3] = 0;
  out[o + 4] = sy;
  out[o + 5] = 0;
  out[o + 6] = n * s;
  out[o + 7] = 0;
  out[o + 8] = c * s;
  out[o + 9] = x;
  out[o + 10] = 0;
  out[o + 11] = z;
}

function emptySet(count: number): InstanceSet {
  const ids = new Uint32Array(count);
  for (let i = 0; i < count; i++) ids[i] = i;
  return { ids, matrices: new Float32Array(count * FLOATS_PER_INSTANCE), nextId: count, revision: 0 };
}

/** The city's extent: G x G blocks, centred on the origin; `half` is half its side (with the outer street). */
export function cityGrid(houses: number): { side: number; blocks: number; half: number } {
  const side = Math.max(1, Math.ceil(Math.sqrt(houses / CITY.lotsPerBlock)));
  return { side, blocks: side * side, half: (side * CITY.pitch + CITY.street) / 2 };
}

/**
 * A deterministic layout of `n` instances over the demo's assets: one instance set per asset that
 * has instances (ids 0..k-1, nextId k, revision 0), in INSTANCE_DEMO_ASSETS order. Typed arrays
 * only: 1,000,000 instances take well under a second.
 */
export function generateInstanceLayout(n: number, seed = 1): { key: string; name: string; set: InstanceSet }[] {
  const counts = instanceCounts(n);
  const rand = random(seed);
  const jitter = (amount: number) => (rand() - 0.5) * 2 * amount;
  const { pitch, street, lotWidth } = CITY;
  const lot = pitch - street;
  const city = cityGrid(counts.house);
  const B = city.blocks;
  // Block b's lot corner (its min x, min z): streets run between blocks and around the city.
  const blockX = (b: number) => -city.half + street + (b % city.side) * pitch;
  const blockZ = (b: number) => -city.half + street + Math.floor(b / city.side) * pitch;
  const sets = {} as Record<InstanceDemoKey, InstanceSet>;
  for (const { key } of INSTANCE_DEMO_ASSETS) sets[key] = emptySet(counts[key]);

  // Houses: item i in block i % B, lot floor(i / B): two rows of four, fronts to the street.
  {
    const m = sets.house.matrices;
    for (let i = 0; i < counts.house; i++) {
      const b = i % B;
      const l = Math.floor(i / B);
      const row = l >> 2;
      const x = blockX(b) + lotWidth * ((l & 3) + 0.5);
      const z = row === 0 ? blockZ(b) + 7 : blockZ(b) + lot - 7;
      const s = 0.9 + rand() * 0.25;
      place(m, i, x + jitter(1), z + jitter(0.5), (row === 0 ? Math.PI : 0) + jitter(0.03), s, s * (0.9 + rand() * 0.3));
    }
  }
  // Cars: on the street south and west of their block, in both lanes, facing the way they drive.
  {
    const m = sets.car.matrices;
    const perBlock = Math.ceil(counts.car / B);
    const along = Math.max(1, Math.ceil(perBlock / 4));
    for (let i = 0; i < counts.car; i++) {
      const b = i % B;
      const slot = Math.floor(i / B);
      const west = (slot & 1) === 1;
      const lane = (slot >> 1) & 1;
      const t = -street + ((slot >> 2) + 0.5 + jitter(0.25)) * (pitch / along);
      const off = -street / 2 + (lane === 0 ? -3 : 3) + jitter(0.2);
      const x = west ? blockX(b) + off : blockX(b) + t;
      const z = west ? blockZ(b) + t : blockZ(b) + off;
      // A car's front faces +Z (yaw a turns it to (sin a, 0, cos a)); they drive on the right:
      // the lower lane of a street along X heads -X, of a street along Z heads +Z.
      const yaw = west ? (lane === 0 ? 0 : Math.PI) : lane === 0 ? -Math.PI / 2 : Math.PI / 2;
      place(m, i, x, z, yaw + jitter(0.05), 1, 1);
    }
  }
  // Street lamps: on the kerb of the street south and west of their block, the arm over the road.
  {
    const m = sets['street-lamp'].matrices;
    const along = Math.max(1, Math.ceil(Math.ceil(counts['street-lamp'] / B) / 2));
    for (let i = 0; i < counts['street-lamp']; i++) {
      const b = i % B;
      const slot = Math.floor(i / B);
      const west = (slot & 1) === 1;
      const t = ((slot >> 1) + 0.5) * (lot / along);
      // The arm reaches along the model's +X: yaw 90 degrees turns it to -Z, 180 to -X.
      if (west) place(m, i, blockX(b) - 0.8, blockZ(b) + t, Math.PI, 1, 1);
      else place(m, i, blockX(b) + t, blockZ(b) - 0.8, Math.PI / 2, 1, 1);
    }
  }
  // Benches: a row along the courtyard's middle path, facing it.
  {
    const m = sets.bench.matrices;
    for (let i = 0; i < counts.bench; i++) {
      const b = i % B;
      const slot = Math.floor(i / B);
      const x = blockX(b) + 6 + ((slot % 12) + 0.5) * ((lot - 12) / 12);
      const z = blockZ(b) + lot / 2 + ((slot / 12) & 1 ? 2.2 : -2.2) + 4 * Math.floor(slot / 24);
      place(m, i, x + jitter(0.3), z, ((slot / 12) & 1 ? Math.PI : 0) + jitter(0.08), 1, 1);
    }
  }
  // Broadleaf trees: first the courtyards (a few a block), then the forest with the conifers.
  const broadleaf = sets['broadleaf-tree'].matrices;
  const inCity = Math.min(counts['broadleaf-tree'], B * CITY.treesPerBlock);
  for (let i = 0; i < inCity; i++) {
    const b = i % B;
    const slot = Math.floor(i / B);
    const x = blockX(b) + 10 + (slot % 3) * 24;
    const z = blockZ(b) + 24 + (Math.floor(slot / 3) & 1) * 20;
    const s = 0.75 + rand() * 0.5;
    place(broadleaf, i, x + jitter(3), z + jitter(2.5), rand() * Math.PI * 2, s, s * (0.85 + rand() * 0.3));
  }
  // The forest: a jittered grid of cells in the square ring around the city, filled row by row;
  // conifers and broadleaf trees are interleaved evenly (Bresenham), so their counts are exact.
  {
    const conifers = sets.conifer.matrices;
    const forestBroadleaf = counts['broadleaf-tree'] - inCity;
    const total = counts.conifer + forestBroadleaf;
    const cell = Math.sqrt(CITY.forestAreaPerTree);
    const hole = Math.ceil((2 * (city.half + 4)) / cell);
    let side = Math.ceil(Math.sqrt(total + hole * hole));
    if ((side - hole) % 2 === 1) side += 1;
    const start = -(side * cell) / 2;
    const h0 = (side - hole) / 2;
    const h1 = h0 + hole;
    let k = 0;
    let c = 0;
    let t = inCity;
    for (let row = 0; row < side && k < total; row++) {
      for (let col = 0; col < side && k < total; col++) {
        if (row >= h0 && row < h1 && col >= h0 && col < h1) continue;
        const x = start + (col + 0.5 + jitter(0.42)) * cell;
        const z = start + (row + 0.5 + jitter(0.42)) * cell;
        const s = 0.6 + rand() * 0.7;
        const sy = s * (0.8 + rand() * 0.4);
        const yaw = rand() * Math.PI * 2;
        // Conifer if the k-th conifer share crosses a whole number here.
        if (Math.floor(((k + 1) * counts.conifer) / total) > Math.floor((k * counts.conifer) / total)) place(conifers, c++, x, z, yaw, s, sy);
        else place(broadleaf, t++, x, z, yaw, s, sy);
        k++;
      }
    }
  }

  return INSTANCE_DEMO_ASSETS.filter(({ key }) => counts[key] > 0).map(({ key, name }) => ({ key, name, set: sets[key] }));
}
