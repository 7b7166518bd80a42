import { BufferAttribute, BufferGeometry, InterleavedBuffer, InterleavedBufferAttribute, MeshStandardMaterial } from 'three';
import { describe, expect, it } from 'vitest';
import { cardBatchGeometry, CARDS_PER_DRAW } from '../../../src/engine/instance-impostor';
import type { InstanceImpostor } from '../../../src/engine/instances';

/**
 * The impostor's batch of pulled cards (src/engine/instance-impostor.ts): the card's quad
 * CARDS_PER_DRAW times, with its values as the card has them, whatever way the card's glTF stored them.
 */

/** A quad as GLTFLoader gives one from a quantised, interleaved glTF: positions and normalised 16-bit uvs in one buffer. */
function quantisedCard(): InstanceImpostor {
  const geometry = new BufferGeometry();
  const floats = new Float32Array([-0.5, 0.5, 0, 0, 0, -0.5, -0.5, 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0.5, 0.5, 0, 0, 0]);
  geometry.setAttribute('position', new InterleavedBufferAttribute(new InterleavedBuffer(floats, 5), 3, 0));
  const uvs = new Uint16Array([0, 0, 0, 65535, 65535, 65535, 65535, 0]);
  geometry.setAttribute('uv', new BufferAttribute(uvs, 2, true));
  geometry.setIndex([0, 1, 2, 0, 2, 3]);
  return { geometry, material: new MeshStandardMaterial(), center: [0, 0, 0], radius: 1, columns: 8, elevations: [0] };
}

describe('the cards of an impostor, batched for pulling', () => {
  it('repeats the card CARDS_PER_DRAW times, its values as the card has them and its indices offset', () => {
    const impostor = quantisedCard();
    const batch = cardBatchGeometry(impostor);
    const position = batch.getAttribute('position');
    const uv = batch.getAttribute('uv') as BufferAttribute;
    expect(position.count).toBe(4 * CARDS_PER_DRAW);
    expect(uv.array).toBeInstanceOf(Uint16Array);
    expect(uv.normalized).toBe(true);
    for (const k of [0, 1, CARDS_PER_DRAW - 1]) {
      for (let v = 0; v < 4; v++) {
        const card = impostor.geometry.getAttribute('position');
        expect([position.getX(k * 4 + v), position.getY(k * 4 + v)]).toEqual([card.getX(v), card.getY(v)]);
        // The stored values, not the normalised ones written back as integers (a card of one atlas texel).
        expect([uv.array[(k * 4 + v) * 2], uv.array[(k * 4 + v) * 2 + 1]]).toEqual(
          [
            [0, 0],
            [0, 65535],
            [65535, 65535],
            [65535, 0],
          ][v],
        );
      }
    }
    const index = batch.index!;
    expect(index.count).toBe(6 * CARDS_PER_DRAW);
    expect(Array.from(index.array.slice(6 * 5, 6 * 6))).toEqual([0, 1, 2, 0, 2, 3].map((i) => i + 4 * 5));
  });

  it('is one geometry for every group of the asset, let go with the card', () => {
    const impostor = quantisedCard();
    const batch = cardBatchGeometry(impostor);
    expect(cardBatchGeometry(impostor)).toBe(batch);
    let disposed = false;
    batch.addEventListener('dispose', () => (disposed = true));
    impostor.geometry.dispose();
    expect(disposed).toBe(true);
    expect(cardBatchGeometry(impostor)).not.toBe(batch);
  });
});
