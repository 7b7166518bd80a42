import { deflateRawSync } from 'node:zlib';
import { DataUtils, HalfFloatType, LinearMipmapLinearFilter } from 'three';
import { describe, expect, it } from 'vitest';
import { decodePrefilteredCube, prefilteredCubeTexture, PREFILTERED_CUBE_HEADER_BYTES } from '../../../src/engine/prefiltered-cube';

/** A file of the format with `value(level, face, texel)` as its grey levels. */
function file(size: number, levels: number, value: (level: number, face: number, texel: number) => number, options: { magic?: string; channels?: number; drop?: number } = {}): Uint8Array {
  const halves: number[] = [];
  for (let level = 0; level < levels; level++) for (let face = 0; face < 6; face++) for (let t = 0; t < (size >> level) ** 2; t++) halves.push(DataUtils.toHalfFloat(value(level, face, t)));
  const payload = deflateRawSync(new Uint8Array(new Uint16Array(halves.slice(0, halves.length - (options.drop ?? 0))).buffer));
  const out = new Uint8Array(PREFILTERED_CUBE_HEADER_BYTES + payload.length);
  out.set([...(options.magic ?? 'PMR1')].map((c) => c.charCodeAt(0)));
  new DataView(out.buffer).setUint16(4, size, true);
  out[6] = levels;
  out[7] = options.channels ?? 1;
  out.set(payload, PREFILTERED_CUBE_HEADER_BYTES);
  return out;
}

describe('decodePrefilteredCube', () => {
  it('reads each level and face in order', async () => {
    const cube = await decodePrefilteredCube(file(16, 2, (level, face, t) => level * 10 + face + t / 1024));
    expect([cube.size, cube.levels, cube.channels]).toEqual([16, 2, 1]);
    expect(cube.data).toHaveLength(2);
    expect(cube.data[1][5]).toHaveLength(64);
    expect(DataUtils.fromHalfFloat(cube.data[0][3][0])).toBe(3);
    expect(DataUtils.fromHalfFloat(cube.data[1][2][0])).toBe(12);
    expect(DataUtils.fromHalfFloat(cube.data[1][2][63])).toBeCloseTo(12 + 63 / 1024, 1);
  });

  it('says what is wrong with a bad file', async () => {
    await expect(decodePrefilteredCube(new Uint8Array([1, 2, 3]))).rejects.toThrow('not a prefiltered environment cube (no PMR1 header)');
    await expect(decodePrefilteredCube(file(16, 2, () => 1, { magic: 'PNG!' }))).rejects.toThrow('no PMR1 header');
    await expect(decodePrefilteredCube(file(16, 2, () => 1, { channels: 2 }))).rejects.toThrow('2 channels (1 or 3 expected)');
    await expect(decodePrefilteredCube(file(16, 6, () => 1))).rejects.toThrow('6 levels do not fit a 16 px face');
    await expect(decodePrefilteredCube(file(16, 2, () => 1, { drop: 5 }))).rejects.toThrow('3830 bytes of data, 3840 expected for 2 levels of 16 px');
    const broken = file(16, 2, () => 1);
    broken.fill(0xff, PREFILTERED_CUBE_HEADER_BYTES);
    await expect(decodePrefilteredCube(broken)).rejects.toThrow('the data does not inflate');
    const odd = file(16, 1, () => 1);
    new DataView(odd.buffer).setUint16(4, 12, true);
    await expect(decodePrefilteredCube(odd)).rejects.toThrow('face size 12 is not a power of two');
  });
});

describe('prefilteredCubeTexture', () => {
  it('is a PMREM to three: RGBA half floats, every level given, none generated', async () => {
    const texture = prefilteredCubeTexture(await decodePrefilteredCube(file(16, 2, (level) => 0.5 + level)));
    expect(texture.isPMREMTexture).toBe(true);
    expect(texture.isCubeTexture).toBe(true);
    expect(texture.type).toBe(HalfFloatType);
    expect(texture.generateMipmaps).toBe(false);
    expect(texture.minFilter).toBe(LinearMipmapLinearFilter);
    // three's program reads ENVMAP_MAX_LOD and ENVMAP_SIZE from image[0].mipmaps.
    const mipmaps = (texture.image[0] as unknown as { mipmaps: { width: number; data: Uint16Array }[] }).mipmaps;
    expect(mipmaps.map((m) => m.width)).toEqual([16, 8]);
    const texel = [...(mipmaps[1].data as Uint16Array).subarray(0, 4)].map((h) => DataUtils.fromHalfFloat(h));
    expect(texel).toEqual([1.5, 1.5, 1.5, 1]);
  });
});
