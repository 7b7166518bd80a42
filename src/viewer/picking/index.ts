import {
  Layers,
  Matrix3,
  Matrix4,
  Mesh,
  Plane,
  Ray,
  Raycaster,
  Sphere,
  Vector2,
  Vector3,
  type BufferGeometry,
  type Camera,
  type InstancedMesh,
  type Intersection,
  type Material,
  type Object3D,
  type SkinnedMesh,
} from 'three';
import type { MeshBVH, SkinnedMeshBVH } from 'three-mesh-bvh';
import { ERR_CAMERA, ERR_RAYCASTER, ERR_RENDERER, ERR_SCENE } from '../../protocol/errors';
import { HELPER_LAYER, SCENE_LAYER } from '../../engine/layers';
import type { ModelRecord, ViewerWorld } from '../../engine/world';
import type { PickHit, Picker, PickOptions } from '../pick-types';
import { instancedBounds, posedBounds, rayMisses } from './bounds';
import { cameraInterval, clipInterval, keptByMaterial, keptByPlanes, localClippingOf, sectionPlanes, simpleMaterial, type Interval } from './clipping';
import { followsPose, isDrawable } from './drawables';
import { hitOn, makeHit } from './hits';
import { snapToVertex, type SnapContext } from './snapping';
import { createPickState, resetBest } from './state';
import { createPickTrees, type PickTreesOptions } from './trees';

export { toHitEventData } from './hits';
export { WORKER_MIN_TRIANGLES } from './trees';

export interface PickerOptions extends PickTreesOptions {
  world: ViewerWorld;
}

/** The viewer's picker: the Picker contract plus what tests and tools may inspect. */
export interface ViewerPicker extends Picker {
  /** The acceleration tree a pick uses for this mesh now, or null (a pick then falls back to three's raycast). */
  treeOf(mesh: Mesh): MeshBVH | SkinnedMeshBVH | null;
  /** Resolves when every tree build started so far has finished (or failed, which is reported). */
  idle(): Promise<void>;
  /**
   * A hit on `object` at a point found by other means (a section cap: the cut face of `object`),
   * with the ids a pick of `object` gives. The vectors are copied.
   */
  hitOn(object: Mesh, point: Vector3, normal: Vector3, distance: number): PickHit;
}

/**
 * The material index of a triangle from the geometry's groups (the skinned tree reports 0 for all);
 * `fallback` when no group holds it.
 */
function groupMaterial(geometry: BufferGeometry, faceIndex: number, fallback: number): number {
  if (faceIndex < 0) return fallback;
  const first = faceIndex * 3;
  for (const group of geometry.groups) {
    if (first >= group.start && first < group.start + group.count) return group.materialIndex ?? 0;
  }
  return fallback;
}



const MESH_RAYCAST = Mesh.prototype.raycast;
const MODEL_LAYERS = new Layers();
MODEL_LAYERS.set(SCENE_LAYER);

/**
 * Picking with three-mesh-bvh: first hits under a screen point for the viewer's current camera
 * (perspective or orthographic), skipping helpers (layer 15), invisible objects and parts cut away
 * by clipping planes; vertex snapping by a sphere query on the same trees. Trees are built in the
 * background by `prepare` (large meshes in a worker); until a mesh has one, picks use three's
 * plain raycast for it. Trees follow their geometry: an edited geometry is rebuilt, a disposed one
 * drops its tree.
 */
export function createPicker(options: PickerOptions): ViewerPicker {
  const { world } = options;
  const trees = createPickTrees({ workerMinTriangles: options.workerMinTriangles, useWorker: options.useWorker });
  const snapContext: SnapContext = { world, trees };
  let disposed = false;

  // Scratch state: a pick allocates only its returned hit (and what three's raycasts allocate).
  const raycaster = new Raycaster();
  raycaster.firstHitOnly = true;
  const ndc = new Vector2();
  const stack: Object3D[] = [];
  const hits: Intersection[] = [];
  const proxy = new Mesh();
  proxy.matrixAutoUpdate = false;
  proxy.matrixWorldAutoUpdate = false;
  const sphere = new Sphere();
  const meshInterval: Interval = { near: 0, far: Infinity };
  const instanceMatrix = new Matrix4();
  // What a pick's parts share: the ray, its drawn interval, the best hit so far.
  const state = createPickState();
  const { ray, best } = state;
  // ---- picking -----------------------------------------------------------------------------

  const readCamera = (): Camera => {
    const camera = world.render.camera;
    if (!camera) throw new Error(ERR_CAMERA);
    // What the renderer does before drawing: a camera without a parent follows its own transform.
    if (camera.parent === null && camera.matrixWorldAutoUpdate) camera.updateMatrixWorld();
    return camera;
  };

  /** Casts against one drawable in the matrix `target.matrixWorld`; keeps the hit when it is the nearest so far. */
  const castTarget = (mesh: Mesh, target: Mesh, instanceId: number, near: number, far: number, firstOnly: boolean): void => {
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
  };

  const castMesh = (mesh: Mesh): void => {
    const material = mesh.material;
    if (!material) return;
    const simple = simpleMaterial(material, state.localClipping);
    meshInterval.near = state.near;
    meshInterval.far = state.far;
    let firstOnly = true;
    if (simple) {
      if (!Array.isArray(material) && !material.visible) return;
      if (!Array.isArray(material) && state.localClipping && material.clippingPlanes) {
        for (const plane of material.clippingPlanes) clipInterval(meshInterval, ray, plane);
      }
    } else {
      // Planes that cut by intersection, or several materials with their own planes: every hit in
      // the interval is tested one by one.
      firstOnly = false;
    }
    const near = meshInterval.near;
    const far = Math.min(meshInterval.far, best.distance);
    if (!(near <= far)) return;
    if ((mesh as InstancedMesh).isInstancedMesh) {
      const instanced = mesh as InstancedMesh;
      // All instances' sphere first, as three's InstancedMesh.raycast does: no walk over the
      // instances when the ray passes far from all of them.
      if (instanced.count === 0 || rayMisses(ray, sphere.copy(instancedBounds(instanced)).applyMatrix4(instanced.matrixWorld), far)) return;
      proxy.geometry = instanced.geometry;
      proxy.material = instanced.material;
      for (let i = 0; i < instanced.count; i++) {
        instanced.getMatrixAt(i, instanceMatrix);
        proxy.matrixWorld.multiplyMatrices(instanced.matrixWorld, instanceMatrix);
        castTarget(mesh, proxy, i, near, Math.min(far, best.distance), firstOnly);
      }
      proxy.geometry = undefined as unknown as BufferGeometry;
      proxy.material = undefined as unknown as Material;
    } else {
      castTarget(mesh, mesh, -1, near, far, firstOnly);
    }
  };

  /** Whether a model root is drawn: in the scene, under visible ancestors that are not helpers. */
  const drawnRoot = (root: Object3D, scene: Object3D): boolean => {
    for (let o: Object3D | null = root.parent; o; o = o.parent) {
      if (!o.visible || o.layers.isEnabled(HELPER_LAYER)) return false;
      if (o === scene) return true;
    }
    return false;
  };

  /** Casts against every drawable under the objects already on the stack. */
  const walk = (modelLayersOnly: boolean): void => {
    while (stack.length > 0) {
      const o = stack.pop()!;
      if (!o.visible) continue;
      // Helpers, and everything under them, are never hit by a model pick.
      if (modelLayersOnly && o.layers.isEnabled(HELPER_LAYER)) continue;
      if (isDrawable(o) && (!modelLayersOnly || o.layers.test(MODEL_LAYERS))) castMesh(o);
      const children = o.children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  };

  const pickImpl = (x: number, y: number, pickOptions?: PickOptions): PickHit | null => {
    if (disposed) throw new Error(ERR_RAYCASTER);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`A pick needs finite coordinates (got ${x}, ${y}).`);
    const camera = readCamera();
    const objects = pickOptions?.objects;
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
    ray.copy(raycaster.ray);
    state.localClipping = localClippingOf(world);
    cameraInterval(state, ray, camera);
    const planes = sectionPlanes(world);
    if (planes) for (const plane of planes) clipInterval(state, ray, plane);
    resetBest(state);
    if (state.near <= state.far) walk(!objects);
    stack.length = 0;
    raycaster.ray.copy(ray);
    if (!best.object) return null;
    return makeHit(world, state);
  };

  // ---- the Picker --------------------------------------------------------------------------

  return {
    pick: pickImpl,
    pickAtClient(clientX, clientY, pickOptions) {
      const canvas = world.render.renderer?.domElement;
      if (!canvas) throw new Error(ERR_RENDERER);
      const rect = canvas.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) return null;
      const x = ((clientX - rect.left) / rect.width) * 2 - 1;
      const y = -((clientY - rect.top) / rect.height) * 2 + 1;
      return pickImpl(x, y, pickOptions);
    },
    snapToVertex: (hit, target, radius, plane) => snapToVertex(snapContext, hit, target, radius, plane),
    prepare: (roots) => trees.prepare(roots),
    treeOf: (mesh) => trees.treeOf(mesh),
    hitOn: (object, point, normal, distance) => hitOn(world, object, point, normal, distance),
    idle: () => trees.idle(),
    dispose() {
      disposed = true;
      trees.dispose();
    },
  };
}
