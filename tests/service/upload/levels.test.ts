import { Document, type Primitive } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import {
  AssetImpostorExtras,
  AssetLevelExtras,
  IMPOSTOR_COLUMNS,
  IMPOSTOR_ELEVATIONS,
  IMPOSTOR_SCENE,
  IMPOSTOR_TILE,
} from '../../../src/protocol/asset-levels.ts';
import { createRealisticInstanceAssets } from '../../../src/server/demo-instances-realistic.ts';
import { renderImpostorAtlas, type ImpostorSource } from '../../../src/server/upload/impostor.ts';
import { optimizeModel } from '../../../src/server/upload/optimize.ts';
import { decodePng } from '../../e2e/png.ts';
import { decompressedGlb, readGlb } from '../upload-helpers.ts';

/** Levels of detail and impostors made at asset upload (src/server/upload/levels.ts, impostor.ts). */

/** A unit cube (12 triangles, flat normals) as one impostor source. */
function cube(): ImpostorSource {
  const positions: number[] = [];
  const normals: number[] = [];
  const indices: number[] = [];
  const faces: [number[], number[], number[]][] = [
    [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
    [
      [-1, 0, 0],
      [0, 0, 1],
      [0, 1, 0],
    ],
    [
      [0, 1, 0],
      [0, 0, 1],
      [1, 0, 0],
    ],
    [
      [0, -1, 0],
      [1, 0, 0],
      [0, 0, 1],
    ],
    [
      [0, 0, 1],
      [1, 0, 0],
      [0, 1, 0],
    ],
    [
      [0, 0, -1],
      [0, 1, 0],
      [1, 0, 0],
    ],
  ];
  for (const [n, u, v] of faces) {
    const base = positions.length / 3;
    for (const [a, b] of [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ] as const) {
      for (let k = 0; k < 3; k++) positions.push(n[k]! * 0.5 + u[k]! * a * 0.5 + v[k]! * b * 0.5);
      normals.push(...n);
    }
    indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
  const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  return {
    matrix: identity,
    positions: new Float32Array(positions),
    indices: new Uint32Array(indices),
    colors: null,
    normals: new Float32Array(normals),
    color: [1, 0, 0, 1],
  };
}

describe('asset levels of detail', () => {
  it('draws the impostor atlas: each tile the shape seen from its direction, with its normals in the tile frame', () => {
    const radius = Math.sqrt(3) / 2;
    const atlas = renderImpostorAtlas([cube()], [0, 0, 0], radius);
    expect(atlas.width).toBe(IMPOSTOR_TILE * IMPOSTOR_COLUMNS);
    expect(atlas.height).toBe(IMPOSTOR_TILE * IMPOSTOR_ELEVATIONS.length);
    const texel = (x: number, y: number, of = atlas.rgba) => [...of.subarray((y * atlas.width + x) * 4, (y * atlas.width + x) * 4 + 4)];
    const coverage = (column: number, row: number) => {
      let sum = 0;
      for (let y = 0; y < IMPOSTOR_TILE; y++)
        for (let x = 0; x < IMPOSTOR_TILE; x++) sum += texel(column * IMPOSTOR_TILE + x, row * IMPOSTOR_TILE + y)[3]! / 255;
      return sum / IMPOSTOR_TILE ** 2;
    };
    // Head on (column 0, the horizon): a square of side 1 in a tile of side sqrt(3).
    expect(coverage(0, 0)).toBeCloseTo(1 / 3, 2);
    // From 45 degrees around (column 1): the square's diagonal, sqrt(2) wide and 1 high.
    expect(coverage(1, 0)).toBeCloseTo(Math.SQRT2 / 3, 2);
    const middle = IMPOSTOR_TILE / 2;
    // The face seen head on is red (sRGB 255), opaque, its normal towards the viewer.
    expect(texel(middle, middle)).toEqual([255, 0, 0, 255]);
    expect(texel(middle, middle, atlas.normals).slice(0, 3)).toEqual([128, 128, 255]);
    // Seen from 70 degrees up, the middle of the tile is the top face: its normal points up the tile.
    // (0, 1, 0) seen from 70 degrees: cos 70 up the tile, sin 70 towards the viewer.
    const top = texel(middle, 2 * IMPOSTOR_TILE + middle, atlas.normals);
    const el = (IMPOSTOR_ELEVATIONS[2]! * Math.PI) / 180;
    expect(Math.abs(top[0]! - 128)).toBeLessThanOrEqual(1);
    expect(Math.abs(top[1]! - (127.5 + 127.5 * Math.cos(el)))).toBeLessThanOrEqual(2);
    expect(Math.abs(top[2]! - (127.5 + 127.5 * Math.sin(el)))).toBeLessThanOrEqual(2);
    // Outside the shape: transparent.
    expect(texel(1, 1)[3]).toBe(0);
  });

  it('stores simplified levels and the impostor in the asset itself, beside its untouched default scene; models get none', async () => {
    const [conifer] = await createRealisticInstanceAssets();
    const result = await optimizeModel(conifer!.glb, { levels: true });
    const levels = result.summary.levels!;
    expect(levels.impostor).toBe(true);
    expect(levels.triangles[0]).toBe(conifer!.triangles);
    expect(levels.triangles.length).toBeGreaterThanOrEqual(3);
    for (let k = 1; k < levels.triangles.length; k++) expect(levels.triangles[k]).toBeLessThanOrEqual(levels.triangles[k - 1]! * 0.7);
    for (let k = 1; k < levels.errors.length; k++) expect(levels.errors[k]).toBeGreaterThan(levels.errors[k - 1]!);
    expect(result.validation.errors).toBe(0);

    const doc: Document = await readGlb(await decompressedGlb(result.glb));
    const root = doc.getRoot();
    const full = root.getDefaultScene()!;
    const vertices = (scene: typeof full) => {
      let n = 0;
      scene.traverse((node) =>
        node
          .getMesh()
          ?.listPrimitives()
          .forEach((p: Primitive) => (n += p.getAttribute('POSITION')!.getCount())),
      );
      return n;
    };
    const levelScenes = root.listScenes().filter((scene) => (scene.getExtras() as { assetLevel?: unknown }).assetLevel);
    expect(levelScenes.map((scene) => scene.getName())).toEqual(levels.triangles.slice(1).map((_, i) => `lod${i + 1}`));
    levelScenes.forEach((scene, i) => {
      const extras = AssetLevelExtras.parse((scene.getExtras() as { assetLevel: unknown }).assetLevel);
      expect(extras).toEqual({ level: i + 1, error: levels.errors[i], triangles: levels.triangles[i + 1] });
      // Only the vertices the level uses (the compression's reorder compacts them).
      expect(vertices(scene)).toBeLessThan(vertices(i === 0 ? full : levelScenes[i - 1]!));
    });
    const impostor = root.listScenes().find((scene) => scene.getName() === IMPOSTOR_SCENE)!;
    const extras = AssetImpostorExtras.parse((impostor.getExtras() as { assetImpostor: unknown }).assetImpostor);
    expect(extras.columns).toBe(IMPOSTOR_COLUMNS);
    expect(extras.radius).toBeGreaterThan(1);
    const material = impostor.listChildren()[0]!.getMesh()!.listPrimitives()[0]!.getMaterial()!;
    expect(material.getAlphaMode()).toBe('MASK');
    const picture = decodePng(Buffer.from(material.getBaseColorTexture()!.getImage()!));
    expect([picture.width, picture.height]).toEqual([IMPOSTOR_TILE * IMPOSTOR_COLUMNS, IMPOSTOR_TILE * IMPOSTOR_ELEVATIONS.length]);
    expect(material.getNormalTexture()).not.toBeNull();
    // The default scene is the one the viewer's picking and the editor read: untouched.
    expect(root.getDefaultScene()!.getName()).not.toMatch(/^lod|impostor/);

    // Uploaded again (an asset's derivative as the file): its levels are made anew, not stacked.
    const again = await readGlb(await decompressedGlb((await optimizeModel(await decompressedGlb(result.glb), { levels: true })).glb));
    expect(
      again
        .getRoot()
        .listScenes()
        .map((scene) => scene.getName()),
    ).toEqual(root.listScenes().map((scene) => scene.getName()));

    const model = await optimizeModel(conifer!.glb);
    expect(model.summary.levels).toBeUndefined();
    expect((await readGlb(await decompressedGlb(model.glb))).getRoot().listScenes()).toHaveLength(1);
  });

  it('makes no levels for an asset with a part they cannot carry, and says why', async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const positions = doc
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
      .setBuffer(buffer);
    const mesh = doc.createMesh('tri').addPrimitive(doc.createPrimitive().setAttribute('POSITION', positions));
    const lines = doc.createMesh('lines').addPrimitive(doc.createPrimitive().setAttribute('POSITION', positions).setMode(1));
    doc.createScene('s').addChild(doc.createNode('a').setMesh(mesh)).addChild(doc.createNode('b').setMesh(lines));
    const { createModelIO } = await import('../../../src/server/upload/io.ts');
    const glb = await (await createModelIO(false)).writeBinary(doc);
    const result = await optimizeModel(glb, { levels: true });
    expect(result.summary.levels?.skipped).toMatch(/points or lines/);
    expect(result.summary.levels?.impostor).toBe(false);
    expect((await readGlb(await decompressedGlb(result.glb))).getRoot().listScenes()).toHaveLength(1);
  });
});
