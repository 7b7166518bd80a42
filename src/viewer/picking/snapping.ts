import { Matrix4, Sphere, Vector3, type InstancedMesh, type Mesh, type Plane } from 'three';
import { INTERSECTED, NOT_INTERSECTED, type MeshBVH, type SkinnedMeshBVH } from 'three-mesh-bvh';
import { getInstanceWorldMatrix, instanceGroupOfMesh, instanceSlot } from '../../engine/instances';
import type { ViewerWorld } from '../../engine/world';
import { SNAP_PLANE_TOLERANCE, SNAP_RADIUS } from '../../protocol/constants';
import type { PickHit } from '../pick-types';
import { keptByPlanes, sectionPlanes } from './clipping';
import { followsPose, isDrawable } from './drawables';
import type { PickTrees } from './trees';

/**
 * Vertex snapping: the vertex of a hit's mesh (in the hit instance's transform, in the current
 * pose) nearest to the hit point within a radius, optionally within SNAP_PLANE_TOLERANCE of a
 * plane, never one a section plane cuts away. A sphere query on the mesh's tree; every vertex
 * until the mesh has one.
 */

/** A vertex this far (m) on the cut-away side of a section plane still counts as kept (rounding). */
export const SNAP_CLIP_TOLERANCE = 1e-6;

/** What a snap needs: the world (the renderer's section planes) and the trees. */
export interface SnapContext {
  world: ViewerWorld;
  trees: PickTrees;
}

// Scratch, and the query in progress (read by the shapecast callbacks): a snap allocates nothing.
const matrix = new Matrix4();
const instanceMatrix = new Matrix4();
const inverse = new Matrix4();
const scale = new Vector3();
const point = new Vector3();
const localCenter = new Vector3();
const local = new Vector3();
const vertex = new Vector3();
const sphere = new Sphere();
const query = {
  bestSq: Infinity,
  radiusSq: 0,
  found: false,
  target: null as Vector3 | null,
  plane: null as Plane | null,
  sections: null as readonly Plane[] | null,
};

/** The sphere query: boxes that reach the sphere, then each triangle's three corners. */
const callbacks = {
  intersectsBounds: (box: { intersectsSphere(s: Sphere): boolean }) => (box.intersectsSphere(sphere) ? INTERSECTED : NOT_INTERSECTED),
  intersectsTriangle: (triangle: { a: Vector3; b: Vector3; c: Vector3 }): boolean => {
    considerVertex(triangle.a);
    considerVertex(triangle.b);
    considerVertex(triangle.c);
    return false;
  },
};

/**
 * The vertex of the hit's mesh nearest to `hit.point`, within `radius` world units, restricted to
 * vertices within SNAP_PLANE_TOLERANCE of `plane` when given, never one the renderer's clipping
 * planes cut away. Writes into `target` and returns it, or returns null when no vertex qualifies.
 * Asks for the mesh's tree when it has none yet.
 */
export function snapToVertex(ctx: SnapContext, hit: PickHit, target: Vector3, radius = SNAP_RADIUS, plane?: Plane): Vector3 | null {
  if (!(radius >= 0) || !Number.isFinite(radius)) throw new Error(`The snap radius must be a finite number of at least 0 (got ${radius}).`);
  const mesh = hit.object as Mesh;
  if (!isDrawable(mesh)) return null;
  const geometry = mesh.geometry;
  const instanced = (mesh as InstancedMesh).isInstancedMesh === true;
  const group = instanced ? instanceGroupOfMesh(ctx.world, mesh) : null;
  if (group) {
    // An instanced asset group's hit names the instance by its stable id.
    if (hit.instanceId === null || instanceSlot(group, hit.instanceId) < 0) return null;
    getInstanceWorldMatrix(group, hit.instanceId, matrix);
  } else if (instanced) {
    if (hit.instanceId === null || hit.instanceId < 0 || hit.instanceId >= (mesh as InstancedMesh).count) return null;
    (mesh as InstancedMesh).getMatrixAt(hit.instanceId, instanceMatrix);
    matrix.multiplyMatrices(mesh.matrixWorld, instanceMatrix);
  } else {
    matrix.copy(mesh.matrixWorld);
  }
  point.copy(hit.point);
  query.target = target;
  query.plane = plane ?? null;
  query.sections = sectionPlanes(ctx.world);
  query.radiusSq = radius * radius;
  query.bestSq = Infinity;
  query.found = false;
  // The query sphere in the mesh's local space: the largest scale axis shrinks it least, so no
  // vertex within the world radius is missed; the exact test is done in world space.
  inverse.copy(matrix).invert();
  localCenter.copy(point).applyMatrix4(inverse);
  scale.setFromMatrixScale(matrix);
  const minScale = Math.min(Math.abs(scale.x), Math.abs(scale.y), Math.abs(scale.z));
  if (minScale === 0) return endQuery();
  sphere.set(localCenter, radius / minScale);

  const posed = followsPose(mesh);
  const tree: MeshBVH | SkinnedMeshBVH | null = posed ? ctx.trees.poseTree(mesh) : ctx.trees.staticTree(geometry);
  if (tree) {
    if (posed) (tree as SkinnedMeshBVH).shapecast(callbacks);
    else (tree as MeshBVH).shapecast(callbacks);
  } else {
    // No tree yet: every vertex (in its current pose).
    const position = geometry.getAttribute('position');
    const localRadiusSq = sphere.radius * sphere.radius;
    for (let i = 0; i < position.count; i++) {
      if (posed) mesh.getVertexPosition(i, local);
      else local.fromBufferAttribute(position, i);
      if (local.distanceToSquared(localCenter) > localRadiusSq) continue;
      considerVertex(local);
    }
    ctx.trees.request(geometry, mesh.name);
  }
  return endQuery();
}

/** Considers one local-space vertex: world position, radius, plane and section checks, nearest so far. */
function considerVertex(localVertex: Vector3): void {
  vertex.copy(localVertex).applyMatrix4(matrix);
  const d = vertex.distanceToSquared(point);
  if (d > query.radiusSq || d >= query.bestSq) return;
  if (query.plane && Math.abs(query.plane.distanceToPoint(vertex)) > SNAP_PLANE_TOLERANCE) return;
  // A vertex that a section plane cuts away is not drawn: never snap to it.
  if (!keptByPlanes(query.sections, vertex, SNAP_CLIP_TOLERANCE)) return;
  query.bestSq = d;
  query.found = true;
  query.target!.copy(vertex);
}

/** Lets go of the query's references (the target, the planes); the snapped target or null. */
function endQuery(): Vector3 | null {
  const result = query.found ? query.target : null;
  query.target = null;
  query.plane = null;
  query.sections = null;
  return result;
}
