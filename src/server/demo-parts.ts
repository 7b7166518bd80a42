import { Document, NodeIO, type Material, type Mesh, type Node } from '@gltf-transform/core';
import { box, cylinder, merge, type Geometry } from './demo.ts';
import type { ServerConfig } from './config.ts';
import { newId, type Store } from './store.ts';
import { processModel } from './upload/process.ts';
import type { SceneDoc } from '../protocol/scene.ts';

/**
 * A model of many parts, as a CAD export comes: a plant of machines in rows, each machine an
 * assembly node of ten part nodes (frame rails, plates, a motor, shafts, bolts), every part a node
 * of its own with its own placement, drawing one of a few shared meshes in one of eight materials.
 * `npm run demo -- parts N` makes a scene of it; the browser tests and `npm run bench -- batches`
 * load it to check and time drawing through one batch per material (src/engine/model-batches.ts).
 */

export const PARTS_GENERATOR = 'parametricos demo parts';
export const PARTS_PER_MACHINE = 10;
export const PARTS_MAX = 200_000;

const MATERIALS = [
  ['Painted steel blue', [0.16, 0.33, 0.62, 1], 0.3, 0.45],
  ['Painted steel orange', [0.86, 0.42, 0.1, 1], 0.3, 0.45],
  ['Bare steel', [0.62, 0.63, 0.64, 1], 0.9, 0.35],
  ['Cast iron', [0.24, 0.24, 0.25, 1], 0.7, 0.7],
  ['Brass', [0.78, 0.6, 0.24, 1], 1, 0.3],
  ['Black rubber', [0.05, 0.05, 0.05, 1], 0, 0.9],
  ['Safety yellow', [0.95, 0.78, 0.1, 1], 0.1, 0.5],
  ['Aluminium', [0.8, 0.81, 0.83, 1], 1, 0.25],
] as const;

/** How many materials the plant's parts use (its batches: one per material and shadow flags). */
export const PARTS_MATERIALS = MATERIALS.length;

type Vec3 = [number, number, number];

/** A part of a machine: its shape, its material's index and its place in the machine. */
interface PartSpec {
  name: string;
  shape: keyof typeof SHAPES;
  material: number;
  at: Vec3;
}

const SHAPES = {
  rail: () => box([1.6, 0.08, 0.08]),
  plate: () => box([0.7, 0.04, 0.5]),
  motor: () => cylinder({ radius: 0.16, height: 0.4, segments: 20, axis: 'x' }),
  shaft: () => cylinder({ radius: 0.03, height: 0.5, segments: 10, axis: 'z' }),
  bolt: () => merge(cylinder({ radius: 0.03, height: 0.02, segments: 6 }), cylinder({ radius: 0.012, height: 0.08, segments: 8, center: [0, -0.05, 0] })),
  guard: () => box([0.5, 0.3, 0.02]),
};

/** A machine's ten parts; `variant` changes the paint and the guard's colour from machine to machine. */
function machineParts(variant: number): PartSpec[] {
  const paint = variant % 2;
  return [
    { name: 'Rail left', shape: 'rail', material: 2, at: [0, 0.3, -0.3] },
    { name: 'Rail right', shape: 'rail', material: 2, at: [0, 0.3, 0.3] },
    { name: 'Base plate', shape: 'plate', material: paint, at: [0, 0.36, 0] },
    { name: 'Motor', shape: 'motor', material: 3, at: [-0.4, 0.55, 0] },
    { name: 'Drive shaft', shape: 'shaft', material: 7, at: [0.1, 0.55, 0] },
    { name: 'Idler shaft', shape: 'shaft', material: 7, at: [0.4, 0.55, 0] },
    { name: 'Bolt 1', shape: 'bolt', material: 4, at: [-0.3, 0.39, -0.2] },
    { name: 'Bolt 2', shape: 'bolt', material: 4, at: [0.3, 0.39, 0.2] },
    { name: 'Belt guard', shape: 'guard', material: 6 - (variant % 3 === 0 ? 1 : 0), at: [0.25, 0.6, 0.28] },
    { name: 'Foot', shape: 'plate', material: 5, at: [0, 0.02, 0] },
  ];
}

function primitive(doc: Document, buffer: ReturnType<Document['createBuffer']>, name: string, g: Geometry, material: Material) {
  const accessor = (suffix: string, type: 'VEC3' | 'VEC2', array: Float32Array<ArrayBuffer>) =>
    doc.createAccessor(`${name} ${suffix}`).setType(type).setArray(array).setBuffer(buffer);
  return doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('positions', 'VEC3', new Float32Array(g.positions)))
    .setAttribute('NORMAL', accessor('normals', 'VEC3', new Float32Array(g.normals)))
    .setAttribute('TEXCOORD_0', accessor('uvs', 'VEC2', new Float32Array(g.uvs)))
    .setIndices(doc.createAccessor(`${name} indices`).setType('SCALAR').setArray(new Uint16Array(g.indices)).setBuffer(buffer))
    .setMaterial(material);
}

/**
 * The plant as a glTF document: `parts` part nodes (rounded up to whole machines of ten) under
 * machine nodes, machines in a square grid under one root node.
 */
export function createPartsDocument(parts: number): Document {
  if (!Number.isInteger(parts) || parts < 1 || parts > PARTS_MAX) throw new RangeError(`parts must be a whole number from 1 to ${PARTS_MAX} (got ${parts})`);
  const doc = new Document();
  doc.getRoot().getAsset().generator = PARTS_GENERATOR;
  const buffer = doc.createBuffer();
  const materials = MATERIALS.map(([name, color, metallic, roughness]) =>
    doc
      .createMaterial(name)
      .setBaseColorFactor([...color])
      .setMetallicFactor(metallic)
      .setRoughnessFactor(roughness),
  );
  // One glTF mesh per (shape, material) pair used: shared by every part that draws it.
  const meshes = new Map<string, Mesh>();
  const geometries = new Map<string, Geometry>();
  const meshFor = (shape: keyof typeof SHAPES, material: number): Mesh => {
    const key = `${shape}/${material}`;
    let m = meshes.get(key);
    if (!m) {
      let g = geometries.get(shape);
      if (!g) geometries.set(shape, (g = SHAPES[shape]()));
      m = doc.createMesh(`${shape} ${MATERIALS[material]![0]}`).addPrimitive(primitive(doc, buffer, key, g, materials[material]!));
      meshes.set(key, m);
    }
    return m;
  };

  const machines = Math.ceil(parts / PARTS_PER_MACHINE);
  const side = Math.ceil(Math.sqrt(machines));
  const pitch = 2.2;
  const root = doc.createNode('Plant');
  doc.createScene('Plant').addChild(root);
  let made = 0;
  for (let i = 0; i < machines; i++) {
    const row = Math.floor(i / side);
    const col = i % side;
    const machine: Node = doc.createNode(`Machine ${i + 1}`).setTranslation([(col - (side - 1) / 2) * pitch, 0, (row - (side - 1) / 2) * pitch]);
    root.addChild(machine);
    for (const part of machineParts(i)) {
      if (made === parts) break;
      machine.addChild(
        doc
          .createNode(`${part.name} of machine ${i + 1}`)
          .setMesh(meshFor(part.shape, part.material))
          .setTranslation(part.at),
      );
      made++;
    }
  }
  return doc;
}

export async function buildPartsModel(parts: number): Promise<Uint8Array> {
  return new NodeIO().writeBinary(createPartsDocument(parts));
}

/**
 * Creates (or replaces the models of) a scene holding the plant of `parts` parts, stored as it
 * comes (not optimised: an optimiser would merge the parts, and a CAD model keeps them).
 */
export async function createPartsScene(
  ctx: { config: ServerConfig; store: Store },
  parts: number,
  options: { sceneId?: string } = {},
): Promise<{ scene: SceneDoc; ms: number }> {
  const t0 = Date.now();
  const fileName = `plant-${parts}-parts.glb`;
  const { container } = await processModel(
    { fileName, bytes: await buildPartsModel(parts) },
    { maxBytes: ctx.config.maxAssetBytes, optimize: false, generator: PARTS_GENERATOR },
  );
  const modelId = newId();
  const versionKey = `${modelId}/${newId()}`;
  await ctx.store.writeDerivative(versionKey, container);
  const model = await ctx.store.putModel({ _id: modelId, latestVersionKey: versionKey, outputFormat: 'glb', sourceFileName: fileName });
  const id = options.sceneId ?? `plant-${parts}-${newId().slice(0, 6)}`;
  const existing = await ctx.store.getScene(id);
  const scene = existing
    ? await ctx.store.updateScene(id, (s) => ({ ...s, models: [model] }))
    : await ctx.store.putScene({ _id: id, name: `Plant of ${parts.toLocaleString('en-US')} parts`, viewerConfig: {}, models: [model] });
  if (!scene) throw new Error(`The scene '${id}' was removed while it was being made`);
  return { scene, ms: Date.now() - t0 };
}
