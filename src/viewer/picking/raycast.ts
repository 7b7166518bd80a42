import {
  Layers,
  Matrix4,
  Mesh,
  Raycaster,
  Sphere,
  Vector2,
  type BufferGeometry,
  type Camera,
  type InstancedMesh,
  type Intersection,
  type Material,
  type Object3D,
} from 'three';
import { BATCHED_LAYER, HELPER_LAYER, SCENE_LAYER } from '../../engine/layers';
import type { ViewerWorld } from '../../engine/world';
import { ERR_CAMERA, ERR_SCENE } from '../../protocol/errors';
import { instancedBounds, posedBounds, rayMisses } from './bounds';
import { cameraInterval, clipInterval, keptByMaterial, localClippingOf, sectionPlanes, simpleMaterial, type Interval } from './clipping';
import { followsPose, isDrawable } from './drawables';
import { resetBest, type PickState } from './state';
import type { PickTrees } from './trees';
import type { SceneMeshIndex } from './scene-index';
import type { InstanceRayVisitor } from '../../engine/instance-bvh';

/**
 * Casting the pick ray: from the camera through a screen point, against the drawn models (or a
 * tool's own objects), mesh by mesh and instance by instance, with the mesh's tree when it has one
 * and three's plain raycast until then; skipping helpers (layer 15), invisible objects and what
 * clipping cuts away. The nearest kept hit is left in `state.best`.
 */

/** What one cast needs: the world (scene, camera, renderer), the trees, the pick's shared state. */
export interface RaycastContext {
  world: ViewerWorld;
  trees: PickTrees;
  state: PickState;
  /** The models' mesh bounds index; without it a model pick visits every object (the full scan). */
  index?: SceneMeshIndex | null;
  /**
   * Casts against the instanced asset groups (castInstanceGroups, ./instances.ts, which casts each
   * instance with castInstance below: passed in, so the two files do not import each other); without
   * it a model pick casts no group.
   */
  castInstanceGroups?: (ctx: RaycastContext) => void;
}

const MESH_RAYCAST = Mesh.prototype.raycast;
const MODEL_LAYERS = new Layers();
MODEL_LAYERS.set(SCENE_LAYER);
MODEL_LAYERS.enable(BATCHED_LAYER); // meshes a batch draws are picked as themselves

// Scratch: a cast allocates nothing here but what three's raycasts allocate (their intersections).
const raycaster = new Raycaster();
raycaster.firstHitOnly = true;
const ndc = new Vector2();
const stack: Object3D[] = [];
const hits: Intersection[] = [];
const sphere = new Sphere();
const instanceMatrix = new Matrix4();
const meshInterval: Interval = { near: 0, far: Infinity };
/** Stands in for one instance of an instanced mesh: its geometry and material, the instance's world matrix. */
const proxy = new Mesh();
proxy.matrixAutoUpdate = false;
proxy.matrixWorldAutoUpdate = false;

/** The viewer's camera, its world matrix current (what the renderer does before drawing). */
export function pickCamera(world: ViewerWorld): Camera {
  const camera = world.render.camera;
  if (!camera) throw new Error(ERR_CAMERA);
  // A camera without a parent follows its own transform.
  if (camera.parent === null && camera.matrixWorldAutoUpdate) camera.updateMatrixWorld();
  return camera;
}

/**
 * Casts the ray of `camera` through (x, y) in normalised device coordinates against `objects` and
 * everything under them (any layer but what lies under a hidden object), or, without `objects`, the
 * drawn models on the model layer (not the scene's own props). Leaves the nearest kept hit in
 * `state.best` and the pick ray in `state.ray`; returns whether there is a hit.
 */
export function castRay(ctx: RaycastContext, camera: Camera, x: number, y: number, objects?: readonly Object3D[]): boolean {
  const { world, state } = ctx;
  stack.length = 0;
  if (objects) {
    for (let i = objects.length - 1; i >= 0; i--) stack.push(objects[i]);
  } else {
    // The loaded models, not the scene's own props (shadow catcher, water): a click beside the
    // models is a background hit.
    const scene = world.render.scene;
    if (!scene) throw new Error(ERR_SCENE);
    for (const record of world.models.values()) if (drawnRoot(record.root, scene)) stack.push(record.root);
  }
  ndc.set(x, y);
  raycaster.setFromCamera(ndc, camera);
  state.ray.copy(raycaster.ray);
  state.localClipping = localClippingOf(world);
  cameraInterval(state, state.ray, camera);
  const planes = sectionPlanes(world);
  if (planes) for (const plane of planes) clipInterval(state, state.ray, plane);
  resetBest(state);
  if (state.near <= state.far) {
    if (!objects && ctx.index) {
      stack.length = 0;
      castIndexed(ctx, ctx.index, world.render.scene!);
    } else walk(ctx, !objects);
    // Instanced asset groups: through their bounds index, never instance by instance.
    if (!objects) ctx.castInstanceGroups?.(ctx);
  }
  stack.length = 0;
  raycaster.ray.copy(state.ray);
  return state.best.object !== null;
}

/** Whether a model root is drawn: in the scene, under visible ancestors that are not helpers. */
function drawnRoot(root: Object3D, scene: Object3D): boolean {
  for (let o: Object3D | null = root.parent; o; o = o.parent) {
    if (!o.visible || o.layers.isEnabled(HELPER_LAYER)) return false;
    if (o === scene) return true;
  }
  return false;
}

// The indexed model pick's visitor: reads the pick being cast.
const indexed = { ctx: null as RaycastContext | null, index: null as SceneMeshIndex | null, scene: null as Object3D | null };
const indexResult = { distance: 0 };
const indexVisitor: InstanceRayVisitor = {
  live: (item) => drawnModelMesh(indexed.index!.meshes[item]!, indexed.scene!),
  test(item) {
    const ctx = indexed.ctx!;
    const before = ctx.state.best.distance;
    castMesh(ctx, indexed.index!.meshes[item]!);
    return ctx.state.best.distance < before ? ctx.state.best.distance : Infinity;
  },
};

/**
 * A model pick through the scene's mesh bounds index: the meshes kept out of the tree first, then
 * only the meshes whose world boxes the ray reaches before the nearest hit so far, nearest box first.
 */
function castIndexed(ctx: RaycastContext, index: SceneMeshIndex, scene: Object3D): void {
  index.update();
  const loose = index.loose;
  for (let i = 0; i < loose.length; i++) if (drawnModelMesh(loose[i]!, scene)) castMesh(ctx, loose[i]!);
  const { ray } = ctx.state;
  indexed.ctx = ctx;
  indexed.index = index;
  indexed.scene = scene;
  try {
    index.raycast(ray.origin.x, ray.origin.y, ray.origin.z, ray.direction.x, ray.direction.y, ray.direction.z, Math.min(ctx.state.far, ctx.state.best.distance), indexVisitor, indexResult);
  } finally {
    indexed.ctx = null;
    indexed.index = null;
    indexed.scene = null;
  }
}

/** What the full scan would cast: a mesh on the model layer under visible ancestors, none of them a helper, in the scene. */
function drawnModelMesh(mesh: Mesh, scene: Object3D): boolean {
  if (!mesh.layers.test(MODEL_LAYERS)) return false;
  for (let o: Object3D | null = mesh; o; o = o.parent) {
    if (!o.visible || o.layers.isEnabled(HELPER_LAYER)) return false;
    if (o === scene) return true;
  }
  return false;
}

/** Casts against every drawable under the objects on the stack. */
function walk(ctx: RaycastContext, modelLayersOnly: boolean): void {
  while (stack.length > 0) {
    const o = stack.pop()!;
    if (!o.visible) continue;
    // Helpers, and everything under them, are never hit by a model pick.
    if (modelLayersOnly && o.layers.isEnabled(HELPER_LAYER)) continue;
    if (isDrawable(o) && (!modelLayersOnly || o.layers.test(MODEL_LAYERS))) castMesh(ctx, o);
    const children = o.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Casts against one mesh (each of its instances), within the pick's interval narrowed by its material's planes. */
function castMesh(ctx: RaycastContext, mesh: Mesh): void {
  const { state } = ctx;
  const material = mesh.material;
  if (!material) return;
  const simple = simpleMaterial(material, state.localClipping);
  meshInterval.near = state.near;
  meshInterval.far = state.far;
  let firstOnly = true;
  if (simple) {
    if (!Array.isArray(material) && !material.visible) return;
    if (!Array.isArray(material) && state.localClipping && material.clippingPlanes) {
      for (const plane of material.clippingPlanes) clipInterval(meshInterval, state.ray, plane);
    }
  } else {
    // Planes that cut by intersection, or several materials with their own planes: every hit in
    // the interval is tested one by one.
    firstOnly = false;
  }
  const near = meshInterval.near;
  const far = Math.min(meshInterval.far, state.best.distance);
  if (!(near <= far)) return;
  if ((mesh as InstancedMesh).isInstancedMesh) {
    const instanced = mesh as InstancedMesh;
    // A group's mesh: its slots are not instance ids; its group is cast through its bounds index.
    if (typeof instanced.userData.instanceGroup === 'number') return;
    // All instances' sphere first, as three's InstancedMesh.raycast does: no walk over the
    // instances when the ray passes far from all of them.
    if (instanced.count === 0 || rayMisses(state.ray, sphere.copy(instancedBounds(instanced)).applyMatrix4(instanced.matrixWorld), far)) return;
    proxy.geometry = instanced.geometry;
    proxy.material = instanced.material;
    for (let i = 0; i < instanced.count; i++) {
      instanced.getMatrixAt(i, instanceMatrix);
      proxy.matrixWorld.multiplyMatrices(instanced.matrixWorld, instanceMatrix);
      castTarget(ctx, mesh, proxy, i, near, Math.min(far, state.best.distance), firstOnly);
    }
    proxy.geometry = undefined as unknown as BufferGeometry;
    proxy.material = undefined as unknown as Material;
  } else {
    castTarget(ctx, mesh, mesh, -1, near, far, firstOnly);
  }
}

/**
 * Casts against one drawable of `mesh` in the matrix `target.matrixWorld` (the mesh itself, or the
 * proxy of one of its instances); keeps a hit when it is the nearest so far and its material keeps it.
 */
function castTarget(ctx: RaycastContext, mesh: Mesh, target: Mesh, instanceId: number, near: number, far: number, firstOnly: boolean): void {
  const { trees, state } = ctx;
  const { ray, best } = state;
  const geometry = mesh.geometry;
  raycaster.near = near;
  raycaster.far = far;
  raycaster.firstHitOnly = firstOnly;
  hits.length = 0;
  if (followsPose(mesh)) {
    // The pose's bound first: the tree is refitted (O(triangles)) only when the ray can reach it.
    if (rayMisses(ray, posedBounds(mesh, sphere), far)) return;
    trees.poseTree(mesh).raycastObject3D(target, raycaster, hits);
  } else {
    const tree = trees.staticTree(geometry);
    if (tree) {
      // The bounding sphere first, as three's raycast does: most meshes are nowhere near the ray.
      if (geometry.boundingSphere === null) geometry.computeBoundingSphere();
      sphere.copy(geometry.boundingSphere!).applyMatrix4(target.matrixWorld);
      if (rayMisses(ray, sphere, far)) return;
      tree.raycastObject3D(target, raycaster, hits);
    } else {
      MESH_RAYCAST.call(target, raycaster, hits);
      trees.request(geometry, mesh.name);
    }
  }
  for (let h = 0; h < hits.length; h++) {
    const hit = hits[h];
    if (hit.distance >= best.distance || hit.distance < near || hit.distance > far) continue;
    const materials = mesh.material;
    const materialIndex = Array.isArray(materials) ? groupMaterial(geometry, hit.faceIndex ?? -1, hit.face?.materialIndex ?? 0) : 0;
    const material = Array.isArray(materials) ? materials[materialIndex] : materials;
    if (!keptByMaterial(material, hit.point, state.localClipping)) continue;
    best.distance = hit.distance;
    best.object = mesh;
    best.instanceId = instanceId;
    best.faceIndex = hit.faceIndex ?? -1;
    best.materialIndex = materialIndex;
    best.point.copy(hit.point);
    if (hit.face) best.localNormal.copy(hit.face.normal);
    else best.localNormal.set(0, 0, 0);
    best.matrix.copy(target.matrixWorld);
  }
}

/**
 * The material index of a triangle from the geometry's groups (the skinned tree reports 0 for all);
 * `fallback` when no group holds it.
 */
export function groupMaterial(geometry: BufferGeometry, faceIndex: number, fallback: number): number {
  if (faceIndex < 0) return fallback;
  const first = faceIndex * 3;
  for (const group of geometry.groups) {
    if (first >= group.start && first < group.start + group.count) return group.materialIndex ?? 0;
  }
  return fallback;
}

/**
 * Casts against one instance of an instanced asset group: each of the group's meshes (asset
 * parts) in the instance's world matrix `matrixWorld`, within the pick's interval narrowed by
 * each part's material. The hit, when nearest, carries the instance's stable `id`. Returns whether
 * it became the best hit.
 */
export function castInstance(ctx: RaycastContext, meshes: readonly Mesh[], matrixWorld: Matrix4, id: number): boolean {
  const { state } = ctx;
  const before = state.best.distance;
  proxy.matrixWorld.copy(matrixWorld);
  for (let i = 0; i < meshes.length; i++) {
    const mesh = meshes[i];
    const material = mesh.material;
    if (!material) continue;
    const simple = simpleMaterial(material, state.localClipping);
    meshInterval.near = state.near;
    meshInterval.far = state.far;
    if (simple) {
      if (!Array.isArray(material) && !material.visible) continue;
      if (!Array.isArray(material) && state.localClipping && material.clippingPlanes) {
        for (const plane of material.clippingPlanes) clipInterval(meshInterval, state.ray, plane);
      }
    }
    const far = Math.min(meshInterval.far, state.best.distance);
    if (!(meshInterval.near <= far)) continue;
    proxy.geometry = mesh.geometry;
    proxy.material = material;
    castTarget(ctx, mesh, proxy, id, meshInterval.near, far, simple !== null);
  }
  proxy.geometry = undefined as unknown as BufferGeometry;
  proxy.material = undefined as unknown as Material;
  return state.best.distance < before;
}
