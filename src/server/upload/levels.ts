import { Primitive, type Accessor, type Document, type Node, type Scene } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { ASSET_LEVEL_TARGETS, LEVEL_MIN_REDUCTION, levelSceneName, type AssetLevelExtras } from '../../protocol/asset-levels.ts';
import { addImpostor, sourcesBox, type ImpostorSource } from './impostor.ts';

/**
 * The levels of detail of an uploaded asset (src/protocol/asset-levels.ts says how they are
 * stored): simplified copies of its triangles with meshoptimizer's simplifier, each level a scene of
 * its own whose primitives are made as new index lists over the full primitives' vertices (the
 * compression's reorder then gives each level only the vertices it uses), and the impostor for the farthest instances
 * (./impostor.ts). Runs on the optimised asset before compression; models (POST /v1/models) get
 * none: they are drawn once, not a hundred thousand times.
 *
 * An asset with a part the levels cannot carry (a skinned or morphed primitive, points or lines, a
 * node drawn by EXT_mesh_gpu_instancing) gets none: a level without that part would lose it at a
 * distance (the summary says why). Levels an earlier upload made (a derivative uploaded again)
 * are replaced.
 */

export interface AssetLevelsSummary {
  /** Triangles of the full asset, then of each level made. */
  triangles: number[];
  /** Each level's error, in the asset's units. */
  errors: number[];
  impostor: boolean;
  /** Why no levels were made, when none were. */
  skipped?: string;
}

/** One drawable primitive of the default scene, in the asset's root space. */
interface SourcePrimitive {
  primitive: Primitive;
  /** The node's world matrix (column-major) and its largest axis scale. */
  matrix: number[];
  scale: number;
  node: Node;
  /** Float positions (the accessor's, dequantized) and the triangle list (made for an unindexed one). */
  positions: Float32Array;
  indices: Uint32Array;
}

/** Adds the levels and the impostor to `doc` (an asset); returns what was made. */
export async function addAssetLevels(doc: Document): Promise<AssetLevelsSummary> {
  await MeshoptSimplifier.ready;
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const summary: AssetLevelsSummary = { triangles: [], errors: [], impostor: false };
  if (!scene) return { ...summary, skipped: 'the asset has no scene' };
  for (const old of root.listScenes()) {
    const extras = old.getExtras() as { assetLevel?: unknown; assetImpostor?: unknown };
    if (old !== scene && (extras.assetLevel !== undefined || extras.assetImpostor !== undefined)) {
      for (const node of old.listChildren()) node.dispose();
      old.dispose();
    }
  }
  const { sources, skipped } = sourcePrimitives(scene);
  if (skipped) return { ...summary, triangles: [sources.reduce((sum, s) => sum + s.indices.length / 3, 0)], skipped };
  const full = sources.reduce((sum, s) => sum + s.indices.length / 3, 0);
  summary.triangles.push(full);
  if (sources.length === 0 || full === 0) return summary;
  const radius = assetRadius(sources);
  const buffer = root.listBuffers()[0] ?? doc.createBuffer();

  let previous = full;
  for (let i = 0; i < ASSET_LEVEL_TARGETS.length; i++) {
    const target = ASSET_LEVEL_TARGETS[i]!;
    const level = i + 1;
    const made: { source: SourcePrimitive; indices: Uint32Array }[] = [];
    let triangles = 0;
    let error = 0;
    for (const source of sources) {
      const count = source.indices.length;
      const wanted = Math.max(3, Math.floor((count * target.ratio) / 3) * 3);
      // The error limit in the primitive's own units (the node's scale carries it to the asset's).
      const limit = (target.error * radius) / source.scale;
      const flags: ('ErrorAbsolute' | 'Prune')[] = level === ASSET_LEVEL_TARGETS.length ? ['ErrorAbsolute', 'Prune'] : ['ErrorAbsolute'];
      const [indices, reached] = MeshoptSimplifier.simplify(source.indices, source.positions, 3, wanted, limit, flags);
      made.push({ source, indices });
      triangles += indices.length / 3;
      error = Math.max(error, reached * source.scale);
    }
    // A level that saves little costs a draw per part for nothing; the next would save less still.
    if (triangles > previous * LEVEL_MIN_REDUCTION) break;
    const levelScene = doc.createScene(levelSceneName(level));
    const extras: AssetLevelExtras = { level, error, triangles };
    levelScene.setExtras({ assetLevel: extras });
    const nodes = new Map<Node, Node>();
    for (const { source, indices } of made) {
      if (indices.length === 0) continue;
      let node = nodes.get(source.node);
      if (!node) {
        const mesh = doc.createMesh(`${source.node.getMesh()?.getName() ?? 'mesh'} (${levelSceneName(level)})`);
        node = doc
          .createNode(`${source.node.getName() || 'node'} (${levelSceneName(level)})`)
          .setMatrix(source.matrix as never)
          .setMesh(mesh);
        levelScene.addChild(node);
        nodes.set(source.node, node);
      }
      const primitive = source.primitive.clone();
      primitive.setIndices(indexAccessor(doc, indices, source.positions.length / 3).setBuffer(buffer));
      node.getMesh()!.addPrimitive(primitive);
    }
    summary.triangles.push(triangles);
    summary.errors.push(error);
    previous = triangles;
  }

  const impostorSources: ImpostorSource[] = sources.map((s) => {
    const normal = s.primitive.getAttribute('NORMAL');
    return {
      matrix: s.matrix,
      positions: s.positions,
      indices: s.indices,
      colors: vertexColors(s.primitive),
      normals: normal ? floats(normal) : null,
      color: baseColor(s.primitive),
    };
  });
  summary.impostor = addImpostor(doc, impostorSources, buffer);
  return summary;
}

function sourcePrimitives(scene: Scene): { sources: SourcePrimitive[]; skipped: string | undefined } {
  const out: SourcePrimitive[] = [];
  let skipped: string | undefined;
  scene.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    if (node.getSkin()) skipped ??= `node "${node.getName()}" is skinned`;
    if (node.getExtension('EXT_mesh_gpu_instancing')) skipped ??= `node "${node.getName()}" is drawn instanced (EXT_mesh_gpu_instancing)`;
    if (node.getSkin() || node.getExtension('EXT_mesh_gpu_instancing')) return;
    const matrix = node.getWorldMatrix() as unknown as number[];
    const scale = Math.max(columnLength(matrix, 0), columnLength(matrix, 4), columnLength(matrix, 8)) || 1;
    for (const primitive of mesh.listPrimitives()) {
      if (primitive.getMode() !== Primitive.Mode.TRIANGLES || primitive.listTargets().length > 0) {
        skipped ??= `mesh "${mesh.getName()}" has ${primitive.listTargets().length > 0 ? 'morph targets' : 'points or lines'}`;
        continue;
      }
      const position = primitive.getAttribute('POSITION');
      if (!position || position.getCount() < 3) continue;
      const positions = floats(position);
      const indexAccessor = primitive.getIndices();
      let indices: Uint32Array;
      if (indexAccessor) {
        // Whole triangles only (a stray index or two is only a validator warning).
        indices = new Uint32Array(Math.floor(indexAccessor.getCount() / 3) * 3);
        for (let i = 0; i < indices.length; i++) indices[i] = indexAccessor.getScalar(i);
      } else {
        indices = new Uint32Array(Math.floor(position.getCount() / 3) * 3);
        for (let i = 0; i < indices.length; i++) indices[i] = i;
      }
      out.push({ primitive, matrix, scale, node, positions, indices });
    }
  });
  return { sources: out, skipped };
}

function columnLength(m: number[], o: number): number {
  return Math.hypot(m[o]!, m[o + 1]!, m[o + 2]!);
}

/** An accessor's elements as floats (dequantized: getElement applies `normalized`). */
function floats(accessor: Accessor): Float32Array {
  const size = accessor.getElementSize();
  const out = new Float32Array(accessor.getCount() * size);
  const element: number[] = [];
  for (let i = 0; i < accessor.getCount(); i++) {
    accessor.getElement(i, element);
    for (let k = 0; k < size; k++) out[i * size + k] = element[k]!;
  }
  return out;
}

/** Half the diagonal of the asset's box (root space): the scale of the levels' error limits. */
function assetRadius(sources: SourcePrimitive[]): number {
  const box = sourcesBox(sources);
  return box ? Math.hypot(box.max[0]! - box.min[0]!, box.max[1]! - box.min[1]!, box.max[2]! - box.min[2]!) / 2 || 1 : 1;
}

function indexAccessor(doc: Document, indices: Uint32Array, vertices: number): Accessor {
  const array = vertices <= 0xffff ? Uint16Array.from(indices) : Uint32Array.from(indices);
  return doc.createAccessor().setType('SCALAR').setArray(array);
}

/** The primitive's linear base colour factor (RGBA), white without a material. */
function baseColor(primitive: Primitive): [number, number, number, number] {
  const factor = primitive.getMaterial()?.getBaseColorFactor();
  return factor ? [factor[0], factor[1], factor[2], factor[3]] : [1, 1, 1, 1];
}

/** COLOR_0 as linear RGB floats, or null. */
function vertexColors(primitive: Primitive): Float32Array | null {
  const color = primitive.getAttribute('COLOR_0');
  if (!color) return null;
  const values = floats(color);
  const size = color.getElementSize();
  if (size === 3) return values;
  const out = new Float32Array(color.getCount() * 3);
  for (let i = 0; i < color.getCount(); i++) out.set(values.subarray(i * size, i * size + 3), i * 3);
  return out;
}
