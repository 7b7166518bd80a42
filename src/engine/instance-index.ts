/**
 * The id -> slot index of an instanced asset group: an open-addressing hash table of two typed
 * arrays (keys, values), linear probing, deletion by backward shift (no tombstones, so a table
 * that sees many removals and adds never degrades). 16 bytes per instance at the 50 % load it
 * keeps, no object per instance. Keys are instance ids (uint32 below 0xffffffff, which marks an
 * empty cell); values are slots.
 */

const EMPTY = 0xffffffff;
const MIN_CAPACITY = 16;

export class InstanceIndex {
  private keys: Uint32Array;
  private values: Uint32Array;
  private mask: number;
  private used = 0;

  constructor(expected = 0) {
    const capacity = capacityFor(expected);
    this.keys = new Uint32Array(capacity).fill(EMPTY);
    this.values = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Number of ids held. */
  get size(): number {
    return this.used;
  }

  /** Bytes of the two tables. */
  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const keys = this.keys;
    const mask = this.mask;
    for (let i = hash(id) & mask; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === id) return this.values[i]!;
      if (k === EMPTY) return -1;
    }
  }

  has(id: number): boolean {
    return this.get(id) >= 0;
  }

  /** Sets the slot of `id` (adding it or moving it). */
  set(id: number, slot: number): void {
    if (!(id >= 0 && id < EMPTY) || id !== Math.floor(id)) throw new RangeError(`Instance ids are whole numbers from 0 to ${EMPTY - 1} (got ${id}).`);
    if ((this.used + 1) * 2 > this.keys.length) this.grow(this.keys.length * 2);
    const keys = this.keys;
    const mask = this.mask;
    for (let i = hash(id) & mask; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === id) {
        this.values[i] = slot;
        return;
      }
      if (k === EMPTY) {
        keys[i] = id;
        this.values[i] = slot;
        this.used++;
        return;
      }
    }
  }

  /** Removes `id`; returns its slot, or -1 when it was not held. */
  delete(id: number): number {
    const keys = this.keys;
    const values = this.values;
    const mask = this.mask;
    let i = hash(id) & mask;
    for (; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === EMPTY) return -1;
      if (k === id) break;
    }
    const slot = values[i]!;
    // Backward shift: later entries of the probe run move into the hole when their home allows.
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const k = keys[j]!;
      if (k === EMPTY) break;
      const home = hash(k) & mask;
      // Whether `home` lies cyclically in (hole, j]: then the entry must stay where it is.
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (stays) continue;
      keys[hole] = k;
      values[hole] = values[j]!;
      hole = j;
    }
    keys[hole] = EMPTY;
    this.used--;
    return slot;
  }

  clear(): void {
    this.keys.fill(EMPTY);
    this.used = 0;
  }

  private grow(capacity: number): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new Uint32Array(capacity).fill(EMPTY);
    this.values = new Uint32Array(capacity);
    this.mask = capacity - 1;
    this.used = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i]!;
      if (k !== EMPTY) this.set(k, oldValues[i]!);
    }
  }
}

function capacityFor(expected: number): number {
  let capacity = MIN_CAPACITY;
  while (capacity < expected * 2) capacity *= 2;
  return capacity;
}

/** A 32-bit integer mix (ids are mostly consecutive: spread them over the table). */
function hash(id: number): number {
  let h = Math.imul(id ^ (id >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}
