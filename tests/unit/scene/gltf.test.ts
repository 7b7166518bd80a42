import { readFileSync } from 'node:fs';
import type { Mesh, MeshStandardMaterial, Texture } from 'three';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createModelLoader } from '../../../src/scene/gltf';

const MODELS = new URL('../../../../shared/models/', import.meta.url);
const read = (name: string) => {
  const bytes = readFileSync(new URL(name, MODELS));
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
};

/** What the loader worker hands over (model-images.ts): one 'bitmap' per glTF image. */
class FakeBitmap {
  closed = false;
  constructor(readonly index: number) {}
  readonly width = 4;
  readonly height = 4;
  close(): void {
    this.closed = true;
  }
}

describe('createModelLoader with images decoded ahead', () => {
  // three decodes with an ImageBitmapLoader where createImageBitmap exists (the bitmaps are taken
  // only then); Node has none.
  beforeEach(() => vi.stubGlobal('createImageBitmap', () => Promise.reject(new Error('not in this test'))));
  afterEach(() => vi.unstubAllGlobals());

  it('takes the bitmaps instead of decoding (Node cannot decode an image at all), with three’s texture settings', async () => {
    const loader = createModelLoader(null);
    const bitmaps = [0, 1, 2, 3, 4].map((i) => new FakeBitmap(i));
    const gltf = await loader.parse(read('DamagedHelmet.glb'), 'glb', bitmaps as unknown as ImageBitmap[]);
    let material: MeshStandardMaterial | null = null;
    gltf.scene.traverse((o) => {
      if ((o as Mesh).isMesh) material = (o as Mesh).material as MeshStandardMaterial;
    });
    const m = material as unknown as MeshStandardMaterial;
    const maps: [string, Texture | null][] = [
      ['map', m.map],
      ['metalnessMap', m.metalnessMap],
      ['roughnessMap', m.roughnessMap],
      ['emissiveMap', m.emissiveMap],
      ['aoMap', m.aoMap],
      ['normalMap', m.normalMap],
    ];
    // DamagedHelmet: albedo (0), metal-roughness (1, both maps), emissive (2), occlusion (3), normal (4).
    expect(maps.map(([name, t]) => [name, (t?.image as FakeBitmap | undefined)?.index])).toEqual([
      ['map', 0],
      ['metalnessMap', 1],
      ['roughnessMap', 1],
      ['emissiveMap', 2],
      ['aoMap', 3],
      ['normalMap', 4],
    ]);
    expect(m.map!.flipY).toBe(false);
    expect(m.map!.userData.mimeType).toBe('image/jpeg');
    expect(m.map!.colorSpace).toBe('srgb');
    expect(m.normalMap!.colorSpace).not.toBe('srgb');
    // Every bitmap went to a texture: none was closed.
    expect(bitmaps.map((b) => b.closed)).toEqual([false, false, false, false, false]);
    loader.dispose();
  });

  it('closes the bitmaps no texture took; a model without images ignores them', async () => {
    const loader = createModelLoader(null);
    const bitmaps = [new FakeBitmap(0), null, new FakeBitmap(2)];
    const gltf = await loader.parse(read('BoxAnimated.glb'), 'glb', bitmaps as unknown as ImageBitmap[]);
    expect(gltf.scene).toBeTruthy();
    expect([bitmaps[0]!.closed, bitmaps[2]!.closed]).toEqual([true, true]);
    loader.dispose();
  });

  it('closes them all when the parse fails, those already in textures too', async () => {
    const loader = createModelLoader(null);
    const bitmap = new FakeBitmap(0);
    await expect(loader.parse(new ArrayBuffer(8), 'glb', [bitmap as unknown as ImageBitmap])).rejects.toThrow(/shorter than its 12-byte header/);
    expect(bitmap.closed).toBe(true);
    // Image 0 becomes a texture, then three cannot load image 1 (Node has no way to): the parse fails.
    const some = [new FakeBitmap(0), null, new FakeBitmap(2), new FakeBitmap(3), new FakeBitmap(4)];
    await expect(loader.parse(read('DamagedHelmet.glb'), 'glb', some as unknown as ImageBitmap[])).rejects.toThrow();
    expect(some.map((b) => b?.closed ?? null)).toEqual([true, null, true, true, true]);
    loader.dispose();
  });

  it('are not taken where three decodes with <img> (no ImageBitmapLoader: old Safari and Firefox)', async () => {
    vi.unstubAllGlobals();
    const loader = createModelLoader(null);
    const bitmaps = [0, 1, 2, 3, 4].map((i) => new FakeBitmap(i));
    // three's own image code runs, which Node cannot: the parse fails, and the bitmaps are closed.
    await expect(loader.parse(read('DamagedHelmet.glb'), 'glb', bitmaps as unknown as ImageBitmap[])).rejects.toThrow();
    expect(bitmaps.every((b) => b.closed)).toBe(true);
    loader.dispose();
  });

});
