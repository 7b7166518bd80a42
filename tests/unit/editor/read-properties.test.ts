import { Color, Texture } from 'three';
import { describe, expect, it } from 'vitest';
import { materialCopyOf, materialOfNode, readMaterialProperties, readNodeProperties, textureInfoOf } from '../../../src/editor/read-properties';
import { materialById, nodeEid } from '../../../src/engine/stable-ids';
import { createViewerWorld } from '../../../src/engine/world';
import { spawnTestModel } from '../../support/test-model';

/** The editor's reads of nodes and materials (src/editor/read-properties.ts) on a test model. */

function model() {
  const world = createViewerWorld();
  const record = spawnTestModel(world, [
    { name: 'Pump', children: [{ name: 'Casing', mesh: true }] },
    { name: 'Base', mesh: true, position: [3, 0, 0] },
  ]);
  return { world, record };
}

describe('read properties (src/editor/read-properties.ts)', () => {
  it("reads a node's name, visibility, shadows, local matrix and material; an unknown node throws", () => {
    const { world, record } = model();
    const base = readNodeProperties(world, record, '2', ['name', 'visible', 'castShadow', 'matrix', 'material']);
    expect(base).toMatchObject({ name: 'Base', visible: true });
    expect(typeof base.castShadow).toBe('boolean');
    expect(base.matrix!.slice(12, 15)).toEqual([3, 0, 0]);
    expect(base.material).toBe(materialOfNode(record, world.objects[nodeEid(record, '2')]!));
    expect(base.material).toMatch(/.+/);
    // A group's material is its first mesh's.
    expect(materialOfNode(record, world.objects[nodeEid(record, '0')]!)).toBe(readNodeProperties(world, record, '1', ['material']).material);
    expect(() => readNodeProperties(world, record, '99', ['name'])).toThrow("The model has no node '99'.");
  });

  it("reads a material's values (colours as numbers, maps as texture info, only the maps it has); an unknown one throws", () => {
    const { world, record } = model();
    const id = readNodeProperties(world, record, '2', ['material']).material!;
    const material = materialById(record, id) as unknown as { color: Color; map: Texture | null; roughness: number };
    material.color = new Color(0x336699);
    material.roughness = 0.25;
    const texture = new Texture();
    texture.repeat.set(2, 3);
    record.textures.set('t0', texture);
    material.map = texture;
    const read = readMaterialProperties(record, id, ['color', 'roughness', 'map', 'normalMap', 'clearcoatMap']);
    expect(read).toMatchObject({ color: 0x336699, roughness: 0.25, normalMap: null });
    expect(read.map).toMatchObject({ textureId: 't0', scale: [2, 3] });
    expect('clearcoatMap' in read).toBe(false); // a standard material has none
    expect(() => readMaterialProperties(record, 'nope', ['color'])).toThrow("The model has no material 'nope'.");
  });

  it('a copy carries the values and the maps the model names, not a map of an unnamed texture', () => {
    const { world, record } = model();
    const id = readNodeProperties(world, record, '2', ['material']).material!;
    const material = materialById(record, id) as unknown as { map: Texture | null; roughness: number };
    material.roughness = 0.5;
    const unnamed = new Texture(); // not in record.textures: no id
    material.map = unnamed;
    expect(textureInfoOf(record, unnamed)?.textureId).toBeUndefined();
    const copy = materialCopyOf(record, id);
    expect(copy.roughness).toBe(0.5);
    expect('map' in copy).toBe(false);
    expect('name' in copy).toBe(false);
    // An uploaded texture drawn through its twin keeps the uploaded id.
    const twin = new Texture();
    twin.userData.uploadedTextureId = 'u-0123456789abcdef01234567';
    expect(textureInfoOf(record, twin)?.textureId).toBe('u-0123456789abcdef01234567');
  });
});
