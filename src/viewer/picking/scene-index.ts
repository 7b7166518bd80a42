import { Box3, type Mesh, type Object3D } from 'three';
import { Transform } from '../../../components';
import { InstanceBVH, type InstanceRayVisitor } from '../../engine/instance-bvh';
import { findEntityOf } from '../../engine/registry';
import type { ViewerWorld } from '../../engine/world';
import { followsPose, isDrawable } from './drawables';

/**
 * The scene-level bounds index of a model pick: a flat bounding-volume hierarchy over the world
 * boxes of the models' meshes, so a pick tests only the meshes whose boxes the ray reaches, nearest
 * first, and stops at the nearest hit (a full scan visits every object: ~150 ms in a scene of
 * 100,000 nodes). The tree is the instance groups' (src/engine/instance-bvh.ts), fed world boxes
 * per mesh instead of an asset's box carried by instance matrices.
 *
 * - Built on the first pick after the scene's structure changed (a model added or removed, an
 *   entity spawned, despawned or reparented: `world.transform.version`), over every mesh under the
 *   models' roots; visibility, layers and materials are checked per candidate at the pick (they
 *   change without moving anything).
 * - Refitted when world matrices change: `refitChanged` (run by the picker's frame step after the
 *   sync system, and before each pick) reads the transform system's worldChanged flags; each
 *   changed entity's meshes get their box again and refit their leaf and its ancestors (O(depth)).
 * - Meshes whose bounds follow a pose (skinned, morphed), plain InstancedMeshes (their bounds are
 *   all their instances') and empty geometries stay out of the tree and are tested on every pick.
 * - Not followed: a mesh given another geometry in place, or moved by writing its three.js matrix
 *   outside the ECS (`refit(mesh)` then).
 */

/** The tree over world boxes: each item's box is read from `boxes` (6 floats an item). */
class BoxBVH extends InstanceBVH {
  boxes = new Float32Array(0);

  constructor() {
    super(new Float32Array(6));
  }

  override instanceBox(_matrices: Float32Array | null, slot: number, out: Float32Array): Float32Array {
    const b = this.boxes;
    const o = slot * 6;
    out[0] = b[o]!;
    out[1] = b[o + 1]!;
    out[2] = b[o + 2]!;
    out[3] = b[o + 3]!;
    out[4] = b[o + 4]!;
    out[5] = b[o + 5]!;
    return out;
  }
}

const box = new Box3();
const { worldChanged: CHANGED } = Transform;
const alwaysLive = (): boolean => true;

export class SceneMeshIndex {
  /** Item -> mesh in the tree. */
  meshes: Mesh[] = [];
  /** Meshes tested on every pick (posed, plain instanced). */
  loose: Mesh[] = [];
  private readonly bvh = new BoxBVH();
  /** Entity -> its meshes' items, as runs in `entityItems` (CSR): entity e owns items entityItems[entityStart.get(e) .. +entityCount]. */
  private entityStart = new Map<number, number>();
  private entityCount = new Map<number, number>();
  private entityItems = new Uint32Array(0);
  /** What the tree was built for; -1: never. */
  private builtVersion = -1;
  private builtRoots: Object3D[] = [];
  /** The transform epoch the boxes are current for. */
  private refitEpoch = -1;

  constructor(private readonly world: ViewerWorld) {}

  /** Items in the tree. */
  get size(): number {
    return this.meshes.length;
  }

  /** Whether the tree is current for the scene's structure. */
  current(): boolean {
    if (this.builtVersion !== this.world.transform.version) return false;
    const roots = this.builtRoots;
    if (roots.length !== this.world.models.size) return false;
    let i = 0;
    for (const record of this.world.models.values()) if (record.root !== roots[i++]) return false;
    return true;
  }

  /** Builds the tree over the meshes under the models' roots (their world matrices current). */
  build(): void {
    const world = this.world;
    const meshes: Mesh[] = [];
    const loose: Mesh[] = [];
    const owners: number[] = [];
    this.builtRoots = [];
    for (const record of world.models.values()) {
      this.builtRoots.push(record.root);
      record.root.traverse((o) => {
        if (!isDrawable(o)) return;
        if (followsPose(o) || (o as { isInstancedMesh?: boolean }).isInstancedMesh || emptyGeometry(o)) loose.push(o);
        else {
          meshes.push(o);
          owners.push(findEntityOf(o));
        }
      });
    }
    const n = meshes.length;
    const boxes = new Float32Array(n * 6);
    for (let i = 0; i < n; i++) writeBox(meshes[i]!, boxes, i);
    // Items of each entity, grouped: counting sort by owner.
    const count = new Map<number, number>();
    for (const e of owners) count.set(e, (count.get(e) ?? 0) + 1);
    const start = new Map<number, number>();
    let at = 0;
    for (const [e, c] of count) {
      start.set(e, at);
      at += c;
    }
    const items = new Uint32Array(n);
    const fill = new Map(start);
    for (let i = 0; i < n; i++) {
      const e = owners[i]!;
      const k = fill.get(e)!;
      items[k] = i;
      fill.set(e, k + 1);
    }
    this.meshes = meshes;
    this.loose = loose;
    this.entityStart = start;
    this.entityCount = count;
    this.entityItems = items;
    this.bvh.boxes = boxes;
    this.bvh.build(boxes, n, alwaysLive);
    this.builtVersion = world.transform.version;
    this.refitEpoch = world.transform.epoch;
  }

  /**
   * Brings the boxes up to date with the world matrices: nothing when no transform system run
   * happened since the last refit; the meshes of the entities the last run flagged (worldChanged)
   * when that run is the only one missed (the picker's frame step runs after each frame's, so
   * this is the usual case: one pass over the transform order, only in frames where something
   * moved); otherwise (runs missed outside the frame loop) every box again and a new tree.
   */
  refitChanged(): void {
    const world = this.world;
    const t = world.transform;
    if (this.builtVersion < 0 || t.epoch === this.refitEpoch) return;
    if (this.builtVersion !== t.version) return; // rebuilt at the next pick anyway
    if (t.epoch !== this.refitEpoch + 1) {
      this.build();
      return;
    }
    this.refitEpoch = t.epoch;
    if (t.changed === 0) return;
    const { order, count } = t;
    const boxes = this.bvh.boxes;
    for (let i = 0; i < count; i++) {
      const e = order[i]!;
      if (CHANGED[e] === 0) continue;
      const first = this.entityStart.get(e);
      if (first === undefined) continue;
      const end = first + this.entityCount.get(e)!;
      for (let k = first; k < end; k++) {
        const item = this.entityItems[k]!;
        writeBox(this.meshes[item]!, boxes, item);
        this.bvh.moved(boxes, item);
      }
    }
  }

  /** Makes the index current for a pick: built for the scene's structure, boxes refitted. */
  update(): void {
    if (!this.current()) this.build();
    else this.refitChanged();
  }

  /** Refits one mesh's box now (its geometry or matrix changed outside the transform system). */
  refit(mesh: Mesh): void {
    const item = this.meshes.indexOf(mesh);
    if (item < 0) return;
    writeBox(mesh, this.bvh.boxes, item);
    this.bvh.moved(this.bvh.boxes, item);
  }

  /**
   * Visits the tree's meshes whose boxes the world-space ray reaches before `far`, nearest box
   * first; `visitor.test(item, best)` casts one (its result narrows the rest). Returns the best item or -1.
   */
  raycast(ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, far: number, visitor: InstanceRayVisitor, result: { distance: number }): number {
    return this.bvh.raycast(ox, oy, oz, dx, dy, dz, far, this.meshes.length, visitor, result);
  }
}

function emptyGeometry(mesh: Mesh): boolean {
  if (mesh.geometry.boundingBox === null) mesh.geometry.computeBoundingBox();
  return mesh.geometry.boundingBox!.isEmpty();
}

/** The mesh's world box (its geometry's box in its world matrix) into boxes[item]. */
function writeBox(mesh: Mesh, boxes: Float32Array, item: number): void {
  const geometry = mesh.geometry;
  if (geometry.boundingBox === null) geometry.computeBoundingBox();
  // A mesh that is not an entity itself follows its parent's (synced) world matrix.
  if (mesh.matrixWorldAutoUpdate && mesh.parent) mesh.updateWorldMatrix(false, false);
  box.copy(geometry.boundingBox!).applyMatrix4(mesh.matrixWorld);
  const o = item * 6;
  if (box.isEmpty()) {
    boxes[o] = boxes[o + 1] = boxes[o + 2] = Infinity;
    boxes[o + 3] = boxes[o + 4] = boxes[o + 5] = -Infinity;
    return;
  }
  boxes[o] = box.min.x;
  boxes[o + 1] = box.min.y;
  boxes[o + 2] = box.min.z;
  boxes[o + 3] = box.max.x;
  boxes[o + 4] = box.max.y;
  boxes[o + 5] = box.max.z;
}
