import { describe, expect, it } from 'vitest';
import { cubeLookup, encodePrefilteredStudio, lodToRoughness, prefilterStudio, texelDirection, traceStudio } from '../../../../scripts/assets/studio-prefiltered';
import { decodePrefilteredCube } from '../../../../src/engine/prefiltered-cube';
import { STUDIO_BOXES, type StudioBox } from '../../../../src/engine/studio-environment';

describe('the cube map convention', () => {
  it('looks a texel centre up in that texel, on every face', () => {
    const size = 8;
    for (let face = 0; face < 6; face++) {
      for (const [i, j] of [[0, 0], [7, 0], [3, 5], [7, 7]]) {
        const [x, y, z] = texelDirection(face, i, j, size);
        const hit = cubeLookup(x, y, z);
        expect([hit.face, Math.floor(hit.s * size), Math.floor(hit.t * size)]).toEqual([face, i, j]);
      }
    }
  });

  it("is the GL table's: +x is face 0, -y face 3, -z face 5", () => {
    expect(cubeLookup(1, 0.1, 0.2).face).toBe(0);
    expect(cubeLookup(0.1, -1, 0.2).face).toBe(3);
    expect(cubeLookup(0.1, 0.2, -1).face).toBe(5);
    // +x: s runs along -z, t along -y.
    expect(cubeLookup(1, -0.5, -0.5)).toEqual({ face: 0, s: 0.75, t: 0.75 });
  });
});

describe('traceStudio', () => {
  it('sees the nearest face: the room inside, a box from outside', () => {
    const room: StudioBox = { size: [10, 10, 10], position: [0, 0, 0], faces: [1, 2, 3, 4, 5, 6], inside: true };
    const block: StudioBox = { size: [1, 1, 1], position: [3, 0, 0], faces: [7, 8, 9, 10, 11, 12] };
    expect(traceStudio(0, 1, 0, [room])).toBe(3);
    expect(traceStudio(0, 0, -1, [room])).toBe(6);
    // Along +x the block's -x face comes first.
    expect(traceStudio(1, 0, 0, [room, block])).toBe(8);
    expect(traceStudio(-1, 0, 0, [room, block])).toBe(2);
  });

  it("sees the studio's soft boxes: the strong one on the left, the key light overhead", () => {
    expect(traceStudio(-1, 0.3, -0.1)).toBe(24);
    expect(traceStudio(0, 1, 0)).toBe(7);
    expect(traceStudio(0, -1, 0)).toBe(STUDIO_BOXES[0].faces[3]);
  });
});

describe('prefilterStudio', () => {
  it("lays levels out as three's PMREMGenerator: log2(size) - 2 levels; sizes it cannot lay out are refused", () => {
    expect(prefilterStudio(64).map((l) => l.size)).toEqual([64, 32, 16, 8]);
    expect(() => prefilterStudio(16)).toThrow('the studio is prefiltered at 64 to 256 px, a power of two (not 16)');
    expect(() => prefilterStudio(100)).toThrow('(not 100)');
    expect(lodToRoughness(0, 4)).toBe(0);
    expect(lodToRoughness(4, 4)).toBe(1);
  });

  it('keeps the light at the size the viewer uses (128: a mirror level, a GGX-sampled one, three integrated ones): every level finite and holding the mean radiance over the sphere of level 0, spread wider', () => {
    const levels = prefilterStudio(128);
    expect(levels.map((l) => l.size)).toEqual([128, 64, 32, 16, 8]);
    for (const level of levels) for (const face of level.faces) expect(face.every(Number.isFinite)).toBe(true);
    // Weighted by each texel's solid angle (smaller towards a face's corners).
    const mean = (l: { size: number; faces: Float32Array[] }) => {
      let sum = 0;
      let total = 0;
      for (const f of l.faces) {
        for (let j = 0; j < l.size; j++) {
          for (let i = 0; i < l.size; i++) {
            const a = ((i + 0.5) / l.size) * 2 - 1;
            const b = ((j + 0.5) / l.size) * 2 - 1;
            const w = 1 / (1 + a * a + b * b) ** 1.5;
            sum += f[j * l.size + i] * w;
            total += w;
          }
        }
      }
      return sum / total;
    };
    const max = (l: { faces: Float32Array[] }) => Math.max(...l.faces.map((f) => Math.max(...f)));
    for (let i = 1; i < levels.length; i++) {
      expect(mean(levels[i]) / mean(levels[0])).toBeGreaterThan(0.97);
      expect(mean(levels[i]) / mean(levels[0])).toBeLessThan(1.03);
      expect(max(levels[i])).toBeLessThan(max(levels[i - 1]));
    }
  });

  it('the roughest level is brightest towards the strong soft box on the left (mirrored in x in the file)', () => {
    const last = prefilterStudio(64).at(-1)!;
    const at = (x: number, y: number, z: number) => {
      const { face, s, t } = cubeLookup(x, y, z);
      return last.faces[face][Math.floor(t * last.size) * last.size + Math.floor(s * last.size)];
    };
    // Light arriving along -x (the 24 panel) is stored where a lookup along +x reads.
    expect(at(1, 0, 0)).toBeGreaterThan(at(-1, 0, 0));
    expect(at(0, 1, 0)).toBeGreaterThan(at(0, -1, 0));
  });

  it('encodes to a file the viewer reads back', async () => {
    const cube = await decodePrefilteredCube(encodePrefilteredStudio(64));
    expect([cube.size, cube.levels, cube.channels]).toEqual([64, 4, 1]);
  });
});
