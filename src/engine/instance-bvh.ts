/**
 * The bounds index of an instanced asset group: a bounding-volume hierarchy over its instances'
 * boxes, in the group's local space, in flat typed arrays (no object per node or instance; about
 * 17 bytes an instance). Picking walks it near-first and stops at the nearest hit, so one instance
 * of a million is found in microseconds without testing each (three's InstancedMesh.raycast tests
 * every instance).
 *
 * - Built by median splits on the longest axis of the centroids (leaves of 4 to 8 instances).
 * - An instance that moves refits its leaf and the nodes above it (O(depth)).
 * - Instances added after the build (slots from `built` on) are kept in a pending range tested one
 *   by one; past max(REBUILD_PENDING_MIN, an eighth of the tree) of them the tree is rebuilt at
 *   the next query.
 * - A removed instance's slot is skipped (the caller says which slots are live); compaction moves
 *   an instance into another slot, which refits that slot's leaf (`moved`).
 *
 * Instance boxes are the asset's local box carried by each instance's matrix (16 floats a slot,
 * column-major: three's instanceMatrix array), computed when needed, never stored per instance.
 *
 * Culling (`cull`) walks the same tree against a frustum's six planes: a node outside one plane is
 * skipped whole, a node inside all six gives its items without a test (each node knows its items'
 * range: the build keeps a subtree's items together), the rest are tested instance by instance.
 */

const LEAF_SIZE = 8;
const DEAD = 0xffffffff;
/** Pending (unindexed) instances tested one by one before a rebuild. */
export const REBUILD_PENDING_MIN = 4096;

/** What a ray query calls for each live instance whose box the ray reaches: the hit distance, or Infinity. */
export interface InstanceRayVisitor {
  /** Whether the slot holds a live instance (removed slots are skipped). */
  live(slot: number): boolean;
  /** Tests one instance precisely; returns its hit distance along the ray or Infinity. `far` is the nearest hit so far. */
  test(slot: number, far: number): number;
}

export class InstanceBVH {
  /** Node boxes: min xyz, max xyz. */
  private bounds = new Float32Array(0);
  /** Inner node: its first child; leaf: -1. */
  private left = new Int32Array(0);
  /** Inner node: second child; leaf: first item position. */
  private right = new Int32Array(0);
  /** Leaf: item count; inner: 0. */
  private counts = new Uint8Array(0);
  private parent = new Int32Array(0);
  /** Item positions -> slots (DEAD when the slot was dropped by compaction). */
  private items = new Uint32Array(0);
  /** Item position -> its leaf node. */
  private itemLeaf = new Int32Array(0);
  /** Slot -> item position (valid for slots below `built`). */
  private itemOf = new Uint32Array(0);
  /** Node -> the first item of its subtree and one past its last (a subtree's items are contiguous). */
  private itemStart = new Uint32Array(0);
  private itemEnd = new Uint32Array(0);
  private nodeCount = 0;
  /** Slots below this are in the tree; slots from it up to the group's count are pending. */
  built = 0;
  /** Items dropped (DEAD) since the build: while none, cull copies a subtree's items in one go. */
  private dead = 0;
  /** Set when the pending range grew past its limit: the next query rebuilds. */
  stale = true;
  /** The matrices (16 floats a slot) ray queries read: the owner keeps it current. */
  matrices: Float32Array = new Float32Array(0);
  private readonly box = new Float32Array(6);
  private readonly stack = new Int32Array(256);
  /** cull's stack: the planes each stacked node's parent crossed (bit p for plane p). */
  private readonly masks = new Uint8Array(256);
  private readonly stackNear = new Float64Array(256);

  constructor(
    /** The asset's local box: min xyz, max xyz. */
    readonly assetBox: Float32Array,
  ) {}

  /** Bytes of the tree's arrays. */
  get byteLength(): number {
    return (
      this.bounds.byteLength +
      this.left.byteLength +
      this.right.byteLength +
      this.counts.byteLength +
      this.parent.byteLength +
      this.items.byteLength +
      this.itemLeaf.byteLength +
      this.itemOf.byteLength +
      this.itemStart.byteLength +
      this.itemEnd.byteLength
    );
  }

  get nodes(): number {
    return this.nodeCount;
  }

  /**
   * Builds the tree over the live slots of [0, count). `matrices` holds 16 floats a slot;
   * `live(slot)` says which slots hold instances.
   */
  build(matrices: Float32Array, count: number, live: (slot: number) => boolean): void {
    let n = 0;
    for (let s = 0; s < count; s++) if (live(s)) n++;
    const maxNodes = Math.max(3, 2 * Math.ceil(n / 4) + 2);
    if (this.bounds.length < maxNodes * 6) {
      this.bounds = new Float32Array(maxNodes * 6);
      this.left = new Int32Array(maxNodes);
      this.right = new Int32Array(maxNodes);
      this.counts = new Uint8Array(maxNodes);
      this.parent = new Int32Array(maxNodes);
      this.itemStart = new Uint32Array(maxNodes);
      this.itemEnd = new Uint32Array(maxNodes);
    }
    if (this.items.length < n) {
      this.items = new Uint32Array(n);
      this.itemLeaf = new Int32Array(n);
    }
    if (this.itemOf.length < count) this.itemOf = new Uint32Array(Math.max(count, 16));
    const items = this.items;
    let k = 0;
    for (let s = 0; s < count; s++) if (live(s)) items[k++] = s;
    // Instance boxes and centroids, transient.
    const boxes = new Float32Array(n * 6);
    for (let i = 0; i < n; i++) {
      this.instanceBox(matrices, items[i]!, this.box);
      boxes.set(this.box, i * 6);
    }
    // Items are permuted during the build: keep their box index alongside.
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    this.nodeCount = 0;
    const root = this.allocNode(-1);
    if (n === 0) {
      this.itemStart[root] = 0;
      this.itemEnd[root] = 0;
      this.counts[root] = 0;
      this.left[root] = -1;
      this.right[root] = 0;
      this.setEmpty(root);
    } else {
      // Explicit stack of (node, start, end).
      const work: number[] = [root, 0, n];
      while (work.length > 0) {
        const end = work.pop()!;
        const start = work.pop()!;
        const node = work.pop()!;
        this.itemStart[node] = start;
        this.itemEnd[node] = end;
        // Bounds of the range and of its centroids.
        let cminx = Infinity, cminy = Infinity, cminz = Infinity, cmaxx = -Infinity, cmaxy = -Infinity, cmaxz = -Infinity;
        const b = this.bounds;
        const o = node * 6;
        b[o] = b[o + 1] = b[o + 2] = Infinity;
        b[o + 3] = b[o + 4] = b[o + 5] = -Infinity;
        for (let i = start; i < end; i++) {
          const q = order[i]! * 6;
          if (boxes[q]! < b[o]!) b[o] = boxes[q]!;
          if (boxes[q + 1]! < b[o + 1]!) b[o + 1] = boxes[q + 1]!;
          if (boxes[q + 2]! < b[o + 2]!) b[o + 2] = boxes[q + 2]!;
          if (boxes[q + 3]! > b[o + 3]!) b[o + 3] = boxes[q + 3]!;
          if (boxes[q + 4]! > b[o + 4]!) b[o + 4] = boxes[q + 4]!;
          if (boxes[q + 5]! > b[o + 5]!) b[o + 5] = boxes[q + 5]!;
          const cx = boxes[q]! + boxes[q + 3]!, cy = boxes[q + 1]! + boxes[q + 4]!, cz = boxes[q + 2]! + boxes[q + 5]!;
          if (cx < cminx) cminx = cx;
          if (cx > cmaxx) cmaxx = cx;
          if (cy < cminy) cminy = cy;
          if (cy > cmaxy) cmaxy = cy;
          if (cz < cminz) cminz = cz;
          if (cz > cmaxz) cmaxz = cz;
        }
        const count = end - start;
        if (count <= LEAF_SIZE) {
          this.left[node] = -1;
          this.right[node] = start;
          this.counts[node] = count;
          continue;
        }
        const ex = cmaxx - cminx, ey = cmaxy - cminy, ez = cmaxz - cminz;
        const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
        const mid = (start + end) >> 1;
        select(order, boxes, axis, start, end - 1, mid);
        const a = this.allocNode(node);
        const c = this.allocNode(node);
        this.left[node] = a;
        this.right[node] = c;
        this.counts[node] = 0;
        work.push(a, start, mid, c, mid, end);
      }
    }
    // The items in tree order, and where each slot and item sits.
    const sorted = new Uint32Array(n);
    for (let i = 0; i < n; i++) sorted[i] = items[order[i]!]!;
    items.set(sorted);
    for (let node = 0; node < this.nodeCount; node++) {
      if (this.left[node] !== -1) continue;
      const first = this.right[node]!;
      for (let i = first; i < first + this.counts[node]!; i++) {
        this.itemLeaf[i] = node;
        this.itemOf[items[i]!] = i;
      }
    }
    this.built = count;
    this.stale = false;
    this.dead = 0;
  }

  /** Whether the pending range is long enough that the tree should be rebuilt. */
  needsRebuild(count: number): boolean {
    return this.stale || count - this.built > Math.max(REBUILD_PENDING_MIN, this.built >> 3);
  }

  /** The slot's instance changed its matrix: its leaf and the nodes above it are refitted. */
  moved(matrices: Float32Array, slot: number): void {
    if (slot >= this.built || this.stale) return; // pending, or rebuilt anyway
    const item = this.itemOf[slot]!;
    if (this.items[item] !== slot) return;
    this.refitFrom(matrices, this.itemLeaf[item]!);
  }

  /**
   * Compaction moved the instance of slot `from` into slot `to` (whose own instance was removed):
   * the tree item of `to` now stands for it, the item of `from` is dropped.
   */
  relocated(matrices: Float32Array, from: number, to: number): void {
    if (this.stale) return;
    if (from < this.built) {
      const item = this.itemOf[from]!;
      if (this.items[item] === from) {
        this.items[item] = DEAD;
        this.dead++;
      }
    }
    if (to < this.built) this.refitFrom(matrices, this.itemLeaf[this.itemOf[to]!]!);
  }

  /** The group's slots now end at `count` (after compaction): slots at or past it leave the tree. */
  truncated(count: number): void {
    if (this.stale || count >= this.built) return;
    for (let s = count; s < this.built; s++) {
      const item = this.itemOf[s]!;
      if (this.items[item] === s) {
        this.items[item] = DEAD;
        this.dead++;
      }
    }
    this.built = count;
  }

  /** The root's box (min xyz, max xyz) into `out`; false when the tree is empty. */
  rootBox(out: Float32Array | number[]): boolean {
    if (this.nodeCount === 0) return false;
    for (let i = 0; i < 6; i++) out[i] = this.bounds[i]!;
    return this.bounds[0]! <= this.bounds[3]!;
  }

  /**
   * The nearest hit along a ray (group-local origin and direction) up to `far`, visiting the tree
   * near-first, then the pending slots [built, count). Returns the hit slot or -1; its distance in
   * `result.distance`.
   */
  raycast(ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, far: number, count: number, visitor: InstanceRayVisitor, result: { distance: number }): number {
    const ix = 1 / dx, iy = 1 / dy, iz = 1 / dz;
    // A miss is Infinity: it must never pass a `<= best` test, even with no limit.
    let best = Math.min(far, Number.MAX_VALUE);
    let bestSlot = -1;
    const { stack, stackNear, bounds, left, right, counts, items } = this;
    if (this.nodeCount > 0) {
      let top = 0;
      const t0 = slab(bounds, 0, ox, oy, oz, ix, iy, iz);
      if (t0 <= best) {
        stack[0] = 0;
        stackNear[0] = t0;
        top = 1;
      }
      while (top > 0) {
        top--;
        if (stackNear[top]! > best) continue;
        const node = stack[top]!;
        const a = left[node]!;
        if (a === -1) {
          const first = right[node]!;
          const end = first + counts[node]!;
          for (let i = first; i < end; i++) {
            const slot = items[i]!;
            if (slot === DEAD || slot >= count || !visitor.live(slot)) continue;
            this.instanceBox(null, slot, this.box);
            const t = slabBox(this.box, ox, oy, oz, ix, iy, iz);
            if (t > best) continue;
            const d = visitor.test(slot, best);
            if (d < best) {
              best = d;
              bestSlot = slot;
            }
          }
          continue;
        }
        const c = right[node]!;
        const ta = slab(bounds, a, ox, oy, oz, ix, iy, iz);
        const tc = slab(bounds, c, ox, oy, oz, ix, iy, iz);
        // Push the farther first so the nearer is visited next.
        if (ta <= tc) {
          if (tc <= best && top < stack.length) {
            stack[top] = c;
            stackNear[top++] = tc;
          }
          if (ta <= best && top < stack.length) {
            stack[top] = a;
            stackNear[top++] = ta;
          }
        } else {
          if (ta <= best && top < stack.length) {
            stack[top] = a;
            stackNear[top++] = ta;
          }
          if (tc <= best && top < stack.length) {
            stack[top] = c;
            stackNear[top++] = tc;
          }
        }
      }
    }
    for (let slot = Math.min(this.built, count); slot < count; slot++) {
      if (!visitor.live(slot)) continue;
      this.instanceBox(null, slot, this.box);
      if (slabBox(this.box, ox, oy, oz, ix, iy, iz) > best) continue;
      const d = visitor.test(slot, best);
      if (d < best) {
        best = d;
        bestSlot = slot;
      }
    }
    result.distance = bestSlot >= 0 ? best : Infinity;
    return bestSlot;
  }

  /**
   * The slots of [0, count) whose boxes reach inside `planes` (six planes a, b, c, d with
   * a x + b y + c z + d >= 0 inside, in the group's local space), written to `out` from index 0.
   * Returns how many; `out` must have room for `count`. Slots the tree does not hold yet (from
   * `built` on) are tested one by one, and removed ones (`ids[slot] === 0xffffffff`) left out
   * there and wherever an instance is tested; inside a subtree wholly in view the tree's items go
   * out untested and unlooked-up (a removed slot not yet compacted draws nothing: its matrix is
   * zero), so that the common case is a sequential copy.
   */
  cull(planes: Float32Array, count: number, ids: Uint32Array, out: Float32Array): number {
    let n = 0;
    const { stack, masks, bounds, left, right, counts, items, itemStart, itemEnd } = this;
    if (this.nodeCount > 0 && !this.stale) {
      let top = 0;
      stack[top] = 0;
      masks[top++] = ALL_PLANES;
      while (top > 0) {
        const node = stack[--top]!;
        // The planes the parent's box crossed: a child is inside those its parent was inside.
        const side = boxPlanes(planes, bounds, node * 6, masks[top]!);
        if (side < 0) continue;
        if (side === 0) {
          // Inside every plane: the subtree's items without a test (a plain copy while none was dropped).
          const start = itemStart[node]!, end = itemEnd[node]!;
          if (this.dead === 0) {
            for (let i = start; i < end; i++) out[n++] = items[i]!;
            continue;
          }
          for (let i = start; i < end; i++) {
            const slot = items[i]!;
            if (slot !== DEAD && slot < count) out[n++] = slot;
          }
          continue;
        }
        const a = left[node]!;
        if (a !== -1) {
          if (top + 2 > stack.length) {
            // Deeper than the stack (never for median splits below 2^120 items): test its items.
            n = this.cullRange(planes, itemStart[node]!, itemEnd[node]!, count, ids, out, n);
            continue;
          }
          stack[top] = right[node]!;
          masks[top++] = side;
          stack[top] = a;
          masks[top++] = side;
          continue;
        }
        const first = right[node]!;
        n = this.cullRange(planes, first, first + counts[node]!, count, ids, out, n);
      }
    }
    const from = this.stale ? 0 : Math.min(this.built, count);
    for (let slot = from; slot < count; slot++) {
      if (ids[slot] === DEAD) continue;
      this.instanceBox(null, slot, this.box);
      if (boxSide(planes, this.box, 0) < 0) continue;
      out[n++] = slot;
    }
    return n;
  }

  /** Whether the live instance in `slot` reaches inside `planes` (its box against the six). */
  inside(planes: Float32Array, slot: number): boolean {
    this.instanceBox(null, slot, this.box);
    return boxSide(planes, this.box, 0) >= 0;
  }

  private cullRange(planes: Float32Array, from: number, to: number, count: number, ids: Uint32Array, out: Float32Array, n: number): number {
    const items = this.items;
    for (let i = from; i < to; i++) {
      const slot = items[i]!;
      if (slot === DEAD || slot >= count || ids[slot] === DEAD) continue;
      this.instanceBox(null, slot, this.box);
      if (boxSide(planes, this.box, 0) < 0) continue;
      out[n++] = slot;
    }
    return n;
  }

  /** The box (min xyz, max xyz) of the instance in `slot`: the asset's box carried by its matrix. */
  instanceBox(matrices: Float32Array | null, slot: number, out: Float32Array): Float32Array {
    const m = matrices ?? this.matrices;
    const b = this.assetBox;
    const cx = (b[0]! + b[3]!) / 2, cy = (b[1]! + b[4]!) / 2, cz = (b[2]! + b[5]!) / 2;
    const hx = (b[3]! - b[0]!) / 2, hy = (b[4]! - b[1]!) / 2, hz = (b[5]! - b[2]!) / 2;
    const o = slot * 16;
    const m0 = m[o]!, m1 = m[o + 1]!, m2 = m[o + 2]!, m4 = m[o + 4]!, m5 = m[o + 5]!, m6 = m[o + 6]!, m8 = m[o + 8]!, m9 = m[o + 9]!, m10 = m[o + 10]!;
    const wx = m0 * cx + m4 * cy + m8 * cz + m[o + 12]!;
    const wy = m1 * cx + m5 * cy + m9 * cz + m[o + 13]!;
    const wz = m2 * cx + m6 * cy + m10 * cz + m[o + 14]!;
    const ex = Math.abs(m0) * hx + Math.abs(m4) * hy + Math.abs(m8) * hz;
    const ey = Math.abs(m1) * hx + Math.abs(m5) * hy + Math.abs(m9) * hz;
    const ez = Math.abs(m2) * hx + Math.abs(m6) * hy + Math.abs(m10) * hz;
    out[0] = wx - ex;
    out[1] = wy - ey;
    out[2] = wz - ez;
    out[3] = wx + ex;
    out[4] = wy + ey;
    out[5] = wz + ez;
    return out;
  }

  private allocNode(parent: number): number {
    const node = this.nodeCount++;
    this.parent[node] = parent;
    return node;
  }

  private setEmpty(node: number): void {
    const o = node * 6;
    this.bounds[o] = this.bounds[o + 1] = this.bounds[o + 2] = Infinity;
    this.bounds[o + 3] = this.bounds[o + 4] = this.bounds[o + 5] = -Infinity;
  }

  /** Recomputes a leaf's box from its live items, then its ancestors' from their children. */
  private refitFrom(matrices: Float32Array, leaf: number): void {
    const b = this.bounds;
    const box = this.box;
    let o = leaf * 6;
    this.setEmpty(leaf);
    const first = this.right[leaf]!;
    for (let i = first; i < first + this.counts[leaf]!; i++) {
      const slot = this.items[i]!;
      if (slot === DEAD) continue;
      this.instanceBox(matrices, slot, box);
      if (box[0]! < b[o]!) b[o] = box[0]!;
      if (box[1]! < b[o + 1]!) b[o + 1] = box[1]!;
      if (box[2]! < b[o + 2]!) b[o + 2] = box[2]!;
      if (box[3]! > b[o + 3]!) b[o + 3] = box[3]!;
      if (box[4]! > b[o + 4]!) b[o + 4] = box[4]!;
      if (box[5]! > b[o + 5]!) b[o + 5] = box[5]!;
    }
    for (let node = this.parent[leaf]!; node !== -1; node = this.parent[node]!) {
      o = node * 6;
      const a = this.left[node]! * 6;
      const c = this.right[node]! * 6;
      b[o] = Math.min(b[a]!, b[c]!);
      b[o + 1] = Math.min(b[a + 1]!, b[c + 1]!);
      b[o + 2] = Math.min(b[a + 2]!, b[c + 2]!);
      b[o + 3] = Math.max(b[a + 3]!, b[c + 3]!);
      b[o + 4] = Math.max(b[a + 4]!, b[c + 4]!);
      b[o + 5] = Math.max(b[a + 5]!, b[c + 5]!);
    }
  }
}

const ALL_PLANES = 0x3f;

/**
 * Box `b[o..o+6)` against the planes of `mask` (bit p: plane p): -1 outside one of them, else the
 * mask of those it crosses (0: inside all of them).
 */
function boxPlanes(planes: Float32Array, b: Float32Array, o: number, mask: number): number {
  const minX = b[o]!, minY = b[o + 1]!, minZ = b[o + 2]!, maxX = b[o + 3]!, maxY = b[o + 4]!, maxZ = b[o + 5]!;
  if (!(minX <= maxX)) return -1;
  let crossed = 0;
  for (let p = 0; p < 6; p++) {
    if ((mask & (1 << p)) === 0) continue;
    const q = p * 4;
    const a = planes[q]!, bb = planes[q + 1]!, c = planes[q + 2]!, d = planes[q + 3]!;
    const far = a * (a >= 0 ? maxX : minX) + bb * (bb >= 0 ? maxY : minY) + c * (c >= 0 ? maxZ : minZ) + d;
    if (far < 0) return -1;
    const near = a * (a >= 0 ? minX : maxX) + bb * (bb >= 0 ? minY : maxY) + c * (c >= 0 ? minZ : maxZ) + d;
    if (near < 0) crossed |= 1 << p;
  }
  return crossed;
}

/**
 * Where box `b[o..o+6)` (min xyz, max xyz) lies against six planes (a, b, c, d each; inside where
 * a x + b y + c z + d >= 0): -1 wholly outside one of them, 1 inside all, 0 across at least one.
 * An empty box (min > max) is outside.
 */
export function boxSide(planes: Float32Array, b: Float32Array, o: number): number {
  const minX = b[o]!, minY = b[o + 1]!, minZ = b[o + 2]!, maxX = b[o + 3]!, maxY = b[o + 4]!, maxZ = b[o + 5]!;
  if (!(minX <= maxX)) return -1;
  let inside = 1;
  for (let p = 0; p < 24; p += 4) {
    const a = planes[p]!, bb = planes[p + 1]!, c = planes[p + 2]!, d = planes[p + 3]!;
    // The corner farthest along the normal, and the nearest.
    const far = a * (a >= 0 ? maxX : minX) + bb * (bb >= 0 ? maxY : minY) + c * (c >= 0 ? maxZ : minZ) + d;
    if (far < 0) return -1;
    const near = a * (a >= 0 ? minX : maxX) + bb * (bb >= 0 ? minY : maxY) + c * (c >= 0 ? minZ : maxZ) + d;
    if (near < 0) inside = 0;
  }
  return inside;
}

/** Entry distance of a ray into node box `node` (Infinity when it misses; 0 from inside). */
function slab(b: Float32Array, node: number, ox: number, oy: number, oz: number, ix: number, iy: number, iz: number): number {
  const o = node * 6;
  let t1 = (b[o]! - ox) * ix, t2 = (b[o + 3]! - ox) * ix;
  let tmin = Math.min(t1, t2), tmax = Math.max(t1, t2);
  t1 = (b[o + 1]! - oy) * iy;
  t2 = (b[o + 4]! - oy) * iy;
  tmin = Math.max(tmin, Math.min(t1, t2));
  tmax = Math.min(tmax, Math.max(t1, t2));
  t1 = (b[o + 2]! - oz) * iz;
  t2 = (b[o + 5]! - oz) * iz;
  tmin = Math.max(tmin, Math.min(t1, t2));
  tmax = Math.min(tmax, Math.max(t1, t2));
  if (!(tmax >= Math.max(tmin, 0))) return Infinity;
  return Math.max(tmin, 0);
}

function slabBox(box: Float32Array, ox: number, oy: number, oz: number, ix: number, iy: number, iz: number): number {
  return slab(box, 0, ox, oy, oz, ix, iy, iz);
}

/** Quickselect: reorders order[lo..hi] so that the item at `k` has the k-th centroid along `axis`. */
function select(order: Uint32Array, boxes: Float32Array, axis: number, lo: number, hi: number, k: number): void {
  const key = (i: number) => boxes[order[i]! * 6 + axis]! + boxes[order[i]! * 6 + axis + 3]!;
  while (hi > lo) {
    // Median of three as the pivot.
    const m = (lo + hi) >> 1;
    const a = key(lo), b = key(m), c = key(hi);
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo, j = hi;
    while (i <= j) {
      while (key(i) < pivot) i++;
      while (key(j) > pivot) j--;
      if (i <= j) {
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}
