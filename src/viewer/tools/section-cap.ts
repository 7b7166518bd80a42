import { Box3, Matrix4, Plane, ShapeUtils, Vector2, Vector3, type BufferGeometry, type InstancedMesh, type Mesh } from 'three';
import { MeshBVH, type ExtendedTriangle } from 'three-mesh-bvh';

/**
 * Geometric caps for section planes: the cut surface of a closed mesh, as triangles on the plane.
 *
 * Stencil capping fights the post-processing stack (the composer draws into its own render targets
 * whose stencil the scene pass does not keep), so the cap is real geometry instead:
 *  1. the mesh's triangles are intersected with the plane, visiting only the BVH nodes the plane
 *     crosses (three-mesh-bvh shapecast on the picker's tree of the mesh, or on one built here,
 *     indirect, when the picker has none yet);
 *  2. the segments are chained into closed loops. Each crossing point is computed from the crossed
 *     edge with its end points in one canonical order, so the two triangles sharing an edge produce
 *     bit-identical points and loops close exactly; ends left open are joined within a small
 *     tolerance; chains that still do not close (an open mesh) are dropped, so only closed meshes
 *     are capped;
 *  3. the loops are projected onto a 2D basis of the plane, nested by containment (a loop inside an
 *     odd number of others is a hole of the smallest loop containing it) and triangulated with
 *     three's ShapeUtils (earcut).
 *
 * Instanced meshes are capped per instance (instance matrix times the mesh's world matrix; instances
 * whose bounds the plane misses are skipped). Skinned meshes are not capped: their BVH and
 * positions are the bind pose, not the pose on screen, so a cap would sit in the wrong place; they
 * are still cut by the plane. Everything here is pure geometry (no WebGL) and unit-tested.
 */

export interface CapGeometryData {
  /** World-space triangle positions, 9 numbers per triangle. */
  positions: Float32Array;
  /** Closed outer loops and holes found. */
  outers: number;
  holes: number;
  /** Chains that did not close (open meshes): not capped. */
  openChains: number;
  /** Total area of the cap's triangles, m². */
  area: number;
  /**
   * The cut's outline: every closed loop (outer loops and holes), world space, 3 numbers per point.
   * These points are where the mesh's edges cross the plane: the cap's vertices, where measuring
   * tools snap on a cut.
   */
  outline: Float32Array;
  /** The outline in the plane's 2D basis (planeBasis of the plane's normal), 2 numbers per point. */
  flat: Float32Array;
  /** The first point of each loop in `outline`, then the total number of points. */
  loopStarts: Uint32Array;
}

interface Loop {
  points: Vector3[];
  flat: Vector2[];
  signedArea: number;
  depth: number;
}

const inverse = new Matrix4();
const instanceMatrix = new Matrix4();
const objectMatrix = new Matrix4();
const localPlane = new Plane();
const localBox = new Box3();
const u = new Vector3();
const v = new Vector3();
const ab = new Vector3();
const ac = new Vector3();

/** Whether a mesh can be capped (skinned meshes cannot, see above). */
export function isCappable(mesh: Mesh): boolean {
  const m = mesh as Mesh & { isSkinnedMesh?: boolean; isBatchedMesh?: boolean };
  return !!m.isMesh && !m.isSkinnedMesh && !m.isBatchedMesh && !!mesh.geometry?.getAttribute('position');
}

/** Trees the cap builder built itself (indirect: the geometry's index is left as it is). */
const ownTrees = new WeakMap<BufferGeometry, MeshBVH>();

/**
 * The acceleration tree of a mesh's geometry: the one `treeOf` gives (the picker's) when it has
 * one, else one built here and kept per geometry. That one is built `indirect`: a direct build
 * reorders the geometry's index in place, which would break any other tree of the same geometry
 * (the picker's, built from the original order).
 */
export function boundsTreeOf(mesh: Mesh, treeOf?: (mesh: Mesh) => unknown): MeshBVH {
  const given = treeOf?.(mesh);
  if (given instanceof MeshBVH) return given;
  let tree = ownTrees.get(mesh.geometry);
  if (!tree) {
    tree = new MeshBVH(mesh.geometry, { indirect: true });
    ownTrees.set(mesh.geometry, tree);
  }
  return tree;
}

/**
 * The cap of `mesh` (world matrix current) cut by the world-space `plane`, whose normal points to
 * the kept side. Null when the mesh cannot be capped or the plane does not cross it.
 */
export function buildCap(mesh: Mesh, plane: Plane, treeOf?: (mesh: Mesh) => unknown): CapGeometryData | null {
  if (!isCappable(mesh)) return null;
  const geometry = mesh.geometry;
  if (!geometry.boundingBox) geometry.computeBoundingBox();
  const loops: Loop[] = [];
  let openChains = 0;
  const instanced = mesh as InstancedMesh;
  if (instanced.isInstancedMesh) {
    for (let i = 0; i < instanced.count; i++) {
      instanced.getMatrixAt(i, instanceMatrix);
      objectMatrix.multiplyMatrices(mesh.matrixWorld, instanceMatrix);
      openChains += cutInstance(mesh, objectMatrix, plane, loops, treeOf);
    }
  } else {
    openChains += cutInstance(mesh, mesh.matrixWorld, plane, loops, treeOf);
  }
  if (loops.length === 0 && openChains === 0) return null;
  return triangulateLoops(loops, plane, openChains);
}

/** Cuts one placement of a geometry; appends its closed loops (world space), returns open chains. */
function cutInstance(mesh: Mesh, matrix: Matrix4, plane: Plane, loops: Loop[], treeOf?: (mesh: Mesh) => unknown): number {
  const geometry = mesh.geometry;
  inverse.copy(matrix).invert();
  localPlane.copy(plane).applyMatrix4(inverse);
  localBox.copy(geometry.boundingBox!);
  if (!localBox.intersectsPlane(localPlane)) return 0;
  const segments: number[] = [];
  const tree = boundsTreeOf(mesh, treeOf);
  tree.shapecast({
    intersectsBounds: (box) => box.intersectsPlane(localPlane),
    intersectsTriangle: (triangle: ExtendedTriangle) => {
      cutTriangle(triangle.a, triangle.b, triangle.c, localPlane, segments);
      return false;
    },
  });
  if (segments.length === 0) return 0;
  const { closed, open } = chainSegments(segments, tolerance(geometry));
  for (const points of closed) {
    for (const p of points) p.applyMatrix4(matrix);
    loops.push({ points, flat: [], signedArea: 0, depth: 0 });
  }
  return open;
}

function tolerance(geometry: BufferGeometry): number {
  const size = geometry.boundingBox!.getSize(ab).length();
  return Math.max(size * 1e-6, 1e-9);
}

const crossings: Vector3[] = [new Vector3(), new Vector3()];
const edgeStart = new Vector3();
const edgeEnd = new Vector3();

/**
 * The segment where a triangle crosses the plane, appended as 6 numbers. A vertex counts as on the
 * positive side only when its distance is > 0 (on the plane counts as negative), a consistent
 * symbolic perturbation: every crossed triangle gives exactly two crossing edges, and a vertex on
 * the plane never gives a dangling point.
 */
export function cutTriangle(a: Vector3, b: Vector3, c: Vector3, plane: Plane, out: number[]): void {
  const da = plane.distanceToPoint(a);
  const db = plane.distanceToPoint(b);
  const dc = plane.distanceToPoint(c);
  const pa = da > 0;
  const pb = db > 0;
  const pc = dc > 0;
  if (pa === pb && pb === pc) return;
  let n = 0;
  if (pa !== pb) crossEdge(a, da, b, db, plane, crossings[n++]);
  if (pb !== pc) crossEdge(b, db, c, dc, plane, crossings[n++]);
  if (n < 2 && pc !== pa) crossEdge(c, dc, a, da, plane, crossings[n++]);
  const p = crossings[0];
  const q = crossings[1];
  if (p.equals(q)) return;
  out.push(p.x, p.y, p.z, q.x, q.y, q.z);
}

/** The point where an edge crosses the plane, from its end points in a canonical order. */
function crossEdge(a: Vector3, da: number, b: Vector3, db: number, _plane: Plane, target: Vector3): void {
  let s = a;
  let ds = da;
  let e = b;
  let de = db;
  if (a.x > b.x || (a.x === b.x && (a.y > b.y || (a.y === b.y && a.z > b.z)))) {
    s = b;
    ds = db;
    e = a;
    de = da;
  }
  edgeStart.copy(s);
  edgeEnd.copy(e);
  const t = ds / (ds - de);
  target.copy(edgeStart).lerp(edgeEnd, t);
}

/**
 * Chains segments (6 numbers each) into loops: exact end-point matches first, then open chain ends
 * joined when closer than `tol`. Returns the closed loops (points, not repeated at the end) and the
 * number of chains that stayed open.
 */
export function chainSegments(segments: readonly number[], tol: number): { closed: Vector3[][]; open: number } {
  const count = segments.length / 6;
  const keyOf = (i: number, end: 0 | 1) => {
    const o = i * 6 + end * 3;
    return `${segments[o]},${segments[o + 1]},${segments[o + 2]}`;
  };
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < count; i++) {
    for (const end of [0, 1] as const) {
      const key = keyOf(i, end);
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
    }
  }
  const used = new Uint8Array(count);
  const point = (i: number, end: 0 | 1) => new Vector3(segments[i * 6 + end * 3], segments[i * 6 + end * 3 + 1], segments[i * 6 + end * 3 + 2]);
  const closed: Vector3[][] = [];
  const open: Vector3[][] = [];
  for (let first = 0; first < count; first++) {
    if (used[first]) continue;
    used[first] = 1;
    const startKey = keyOf(first, 0);
    const chain = [point(first, 0)];
    let current = first;
    let currentEnd: 0 | 1 = 1;
    let isClosed = false;
    for (;;) {
      const key = keyOf(current, currentEnd);
      if (key === startKey) {
        isClosed = true;
        break;
      }
      chain.push(point(current, currentEnd));
      const next = byKey.get(key)?.find((j) => !used[j]);
      if (next === undefined) break;
      used[next] = 1;
      currentEnd = keyOf(next, 0) === key ? 1 : 0;
      current = next;
    }
    if (isClosed) closed.push(chain);
    else open.push(chain);
  }
  // Join open chains whose ends meet within the tolerance (points computed on different edges of
  // non-shared vertices, e.g. a mesh split at hard edges with slightly different positions).
  let joined = true;
  while (joined && open.length > 0) {
    joined = false;
    for (let i = 0; i < open.length && !joined; i++) {
      const chain = open[i];
      const head = chain[0];
      const tail = chain[chain.length - 1];
      if (chain.length >= 3 && head.distanceTo(tail) <= tol) {
        chain.pop();
        closed.push(chain);
        open.splice(i, 1);
        joined = true;
        break;
      }
      for (let j = 0; j < open.length && !joined; j++) {
        if (j === i) continue;
        const other = open[j];
        if (tail.distanceTo(other[0]) <= tol) {
          chain.push(...other.slice(1));
        } else if (tail.distanceTo(other[other.length - 1]) <= tol) {
          chain.push(...other.slice(0, -1).reverse());
        } else continue;
        open.splice(j, 1);
        joined = true;
      }
    }
  }
  return { closed: closed.filter((c) => c.length >= 3), open: open.length };
}

/** The plane's 2D basis: u, v perpendicular to the normal and to each other. */
export function planeBasis(normal: Vector3, uOut: Vector3, vOut: Vector3): void {
  if (Math.abs(normal.x) < 0.9) uOut.set(1, 0, 0);
  else uOut.set(0, 1, 0);
  uOut.addScaledVector(normal, -uOut.dot(normal)).normalize();
  vOut.crossVectors(normal, uOut);
}

function signedArea2D(points: Vector2[]): number {
  let sum = 0;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) sum += (points[j].x - points[i].x) * (points[j].y + points[i].y);
  return sum / 2;
}

function contains(polygon: Vector2[], p: Vector2): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const a = polygon[i];
    const b = polygon[j];
    if (a.y > p.y !== b.y > p.y && p.x < ((b.x - a.x) * (p.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

/** Nests loops by containment and triangulates each outer loop with its holes. */
export function triangulateLoops(loops: Loop[], plane: Plane, openChains: number): CapGeometryData {
  planeBasis(plane.normal, u, v);
  for (const loop of loops) {
    loop.flat = loop.points.map((p) => new Vector2(p.dot(u), p.dot(v)));
    loop.signedArea = signedArea2D(loop.flat);
  }
  // Largest first: a loop's container is always earlier.
  loops.sort((a, b) => Math.abs(b.signedArea) - Math.abs(a.signedArea));
  const parent = new Array<number>(loops.length).fill(-1);
  for (let i = 0; i < loops.length; i++) {
    const probe = loops[i].flat[0];
    let depth = 0;
    for (let j = 0; j < i; j++) {
      if (contains(loops[j].flat, probe)) {
        depth++;
        parent[i] = j; // the last (smallest) container
      }
    }
    loops[i].depth = depth;
  }
  const out: number[] = [];
  let outers = 0;
  let holes = 0;
  let area = 0;
  for (let i = 0; i < loops.length; i++) {
    const loop = loops[i];
    if (loop.depth % 2 === 1) {
      holes++;
      continue;
    }
    outers++;
    const holeLoops = loops.filter((other, k) => parent[k] === i && other.depth === loop.depth + 1);
    const contour = loop.flat.slice();
    const holeFlat = holeLoops.map((h) => h.flat.slice());
    const points3 = [...loop.points, ...holeLoops.flatMap((h) => h.points)];
    const triangles = ShapeUtils.triangulateShape(contour, holeFlat);
    for (const [a, b, c] of triangles) {
      const pa = points3[a];
      const pb = points3[b];
      const pc = points3[c];
      out.push(pa.x, pa.y, pa.z, pb.x, pb.y, pb.z, pc.x, pc.y, pc.z);
      ab.subVectors(pb, pa);
      ac.subVectors(pc, pa);
      area += ab.cross(ac).length() / 2;
    }
  }
  const total = loops.reduce((n, loop) => n + loop.points.length, 0);
  const outline = new Float32Array(total * 3);
  const flat = new Float32Array(total * 2);
  const loopStarts = new Uint32Array(loops.length + 1);
  let k = 0;
  loops.forEach((loop, i) => {
    loopStarts[i] = k;
    loop.points.forEach((p, j) => {
      outline[(k + j) * 3] = p.x;
      outline[(k + j) * 3 + 1] = p.y;
      outline[(k + j) * 3 + 2] = p.z;
      flat[(k + j) * 2] = loop.flat[j].x;
      flat[(k + j) * 2 + 1] = loop.flat[j].y;
    });
    k += loop.points.length;
  });
  loopStarts[loops.length] = k;
  return { positions: new Float32Array(out), outers, holes, openChains, area, outline, flat, loopStarts };
}
