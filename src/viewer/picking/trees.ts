import type { BufferGeometry, Mesh, Object3D, SkinnedMesh } from 'three';
import { MeshBVH, SkinnedMeshBVH } from 'three-mesh-bvh';
import { createTreeBuilder, positionVersionOf, type TreeBuilder } from '../bvh-builder';
import { followsPose, isDrawable } from './drawables';
import { createSliceQueue, type SliceQueue } from './slices';

/**
 * Meshes with at least this many triangles get their tree from the worker; smaller ones are built
 * on the main thread in short slices (a worker round trip costs more than such a build).
 */
export const WORKER_MIN_TRIANGLES = 20_000;

export interface PickTreesOptions {
  /** Trees of meshes with at least this many triangles are built off the main thread; default WORKER_MIN_TRIANGLES. */
  workerMinTriangles?: number;
  /**
   * Builds trees in a Web Worker; default: when the environment has `Worker`. Without one (Node,
   * a page policy that refuses workers) every tree is built on the main thread in slices.
   */
  useWorker?: boolean;
}

/**
 * The acceleration trees of the picker: a static tree per geometry (shared by every mesh and
 * instance drawing it), built in the background (large geometries in the worker, small ones in
 * main-thread slices) and dropped when its geometry is edited or disposed; a pose tree per skinned
 * or morphed mesh, refitted to the current pose when it is used.
 */
export interface PickTrees {
  /** The current static tree of a geometry, or null when it has none or its geometry was edited since. */
  staticTree(geometry: BufferGeometry): MeshBVH | null;
  /** The pose tree of a skinned or morphed mesh, refitted to its current pose (built on first use). */
  poseTree(mesh: Mesh): SkinnedMeshBVH;
  /**
   * Starts building a geometry's static tree unless it has a current one or a build is under way
   * (then that build); null when nothing is to be built (or the trees were disposed). `name` names
   * the mesh in a failure report.
   */
  request(geometry: BufferGeometry, name: string): Promise<void> | null;
  /** Builds the trees of every drawable under `roots`; resolves when those builds are done. */
  prepare(roots: Object3D[]): Promise<void>;
  /** The tree a pick uses for this mesh now, or null. Builds and refits nothing. */
  treeOf(mesh: Mesh): MeshBVH | SkinnedMeshBVH | null;
  /** Resolves when every build started so far has finished (or failed, which is reported). */
  idle(): Promise<void>;
  /** Drops every tree and build, stops the worker, and takes the dispose listeners off the watched geometries. */
  dispose(): void;
}

/** A static tree and the geometry's position and index versions it was built from: an edit makes it stale. */
interface StaticTree {
  bvh: MeshBVH;
  positionVersion: number;
  indexVersion: number;
}

/** The tree of a skinned or morphed mesh: its triangles follow the current pose. */
interface PoseTree {
  bvh: SkinnedMeshBVH;
  geometry: BufferGeometry;
  /** Bone matrices, bind matrix and morph influences at the last refit. */
  pose: Float64Array;
}

export function createPickTrees(options: PickTreesOptions = {}): PickTrees {
  const workerMinTriangles = options.workerMinTriangles ?? WORKER_MIN_TRIANGLES;
  const builder: TreeBuilder | null = (options.useWorker ?? typeof Worker !== 'undefined') ? createTreeBuilder() : null;
  const slices: SliceQueue = createSliceQueue();

  const trees = new WeakMap<BufferGeometry, StaticTree>();
  const poseTrees = new Map<Mesh, PoseTree>();
  /** Geometries queued or being built, with the build. */
  const building = new Map<BufferGeometry, Promise<void>>();
  // Each watched geometry's 'dispose' listener (removed again by dispose(), so a geometry that
  // outlives the viewer does not keep the picker alive); the geometries are held weakly.
  const watched = new WeakMap<BufferGeometry, () => void>();
  const watchedRefs = new Set<WeakRef<BufferGeometry>>();
  const inflight = new Set<Promise<void>>();
  /** The pose being compared with a tree's last one (swapped with it on a refit: no allocation per pick). */
  let poseScratch: Float64Array = new Float64Array(64);
  let disposed = false;

  const watch = (geometry: BufferGeometry): void => {
    if (watched.has(geometry)) return;
    const ref = new WeakRef(geometry);
    const onDispose = () => {
      geometry.removeEventListener('dispose', onDispose);
      watched.delete(geometry);
      watchedRefs.delete(ref);
      trees.delete(geometry);
      building.delete(geometry);
      for (const [mesh, entry] of poseTrees) if (entry.geometry === geometry) poseTrees.delete(mesh);
    };
    watched.set(geometry, onDispose);
    watchedRefs.add(ref);
    geometry.addEventListener('dispose', onDispose);
  };

  const staticTree = (geometry: BufferGeometry): MeshBVH | null => {
    const entry = trees.get(geometry);
    if (!entry) return null;
    if (positionVersionOf(geometry) !== entry.positionVersion || indexVersionOf(geometry) !== entry.indexVersion) {
      trees.delete(geometry);
      return null;
    }
    return entry.bvh;
  };

  const storeStatic = (geometry: BufferGeometry, bvh: MeshBVH, positionVersion: number, indexVersion: number): void => {
    if (disposed || !watched.has(geometry)) return; // disposed while building
    // Edited while the worker was building: that tree is stale, the next prepare or pick rebuilds it.
    if (positionVersionOf(geometry) !== positionVersion || indexVersionOf(geometry) !== indexVersion) return;
    trees.set(geometry, { bvh, positionVersion, indexVersion });
  };

  const buildInline = (geometry: BufferGeometry): void => {
    const positionVersion = positionVersionOf(geometry);
    const indexVersion = indexVersionOf(geometry);
    // indirect: the geometry's index stays as it is (it is shared with the GPU and with other tools).
    const bvh = new MeshBVH(geometry, { indirect: true, setBoundingBox: false });
    storeStatic(geometry, bvh, positionVersion, indexVersion);
  };

  const poseTree = (mesh: Mesh): SkinnedMeshBVH => {
    let entry = poseTrees.get(mesh);
    if (entry && entry.geometry !== mesh.geometry) {
      poseTrees.delete(mesh);
      entry = undefined;
    }
    if (!entry) {
      watch(mesh.geometry);
      // SkinnedMeshBVH reads mesh.getVertexPosition, which applies bones and morph targets alike.
      const bvh = new SkinnedMeshBVH(mesh as SkinnedMesh, { indirect: true, setBoundingBox: false });
      entry = { bvh, geometry: mesh.geometry, pose: poseOf(mesh, new Float64Array(0)) };
      poseTrees.set(mesh, entry);
      return entry.bvh;
    }
    poseScratch = poseOf(mesh, poseScratch);
    if (!samePose(poseScratch, entry.pose)) {
      entry.bvh.refit();
      const previous = entry.pose;
      entry.pose = poseScratch;
      poseScratch = previous.length === poseScratch.length ? previous : new Float64Array(poseScratch.length);
    }
    return entry.bvh;
  };

  const track = (promise: Promise<void>): Promise<void> => {
    inflight.add(promise);
    void promise.finally(() => inflight.delete(promise));
    return promise;
  };

  const request = (geometry: BufferGeometry, name: string): Promise<void> | null => {
    if (disposed) return null;
    const current = building.get(geometry);
    if (current) return current;
    if (staticTree(geometry) || !geometry.getAttribute('position')) return null;
    watch(geometry);
    let build: Promise<void>;
    if (builder && trianglesOf(geometry) >= workerMinTriangles) {
      build = builder
        .build(geometry, () => !disposed && building.get(geometry) === build)
        .then((built) => {
          if (!built || building.get(geometry) !== build) return; // disposed meanwhile
          const bvh = MeshBVH.deserialize(built.serialized, geometry, { setIndex: false });
          storeStatic(geometry, bvh, built.positionVersion, built.indexVersion);
        })
        .catch((error: unknown) => {
          // The mesh stays pickable through three's raycast; the failure is reported, not hidden.
          console.error(`The picking tree of "${name}" could not be built in the worker:`, error);
        });
    } else {
      build = slices.run(() => {
        if (building.get(geometry) !== build) return;
        try {
          buildInline(geometry);
        } catch (error) {
          console.error(`The picking tree of "${name}" could not be built:`, error);
        }
      });
    }
    const finished = build.finally(() => {
      if (building.get(geometry) === build) building.delete(geometry);
    });
    building.set(geometry, build);
    return track(finished);
  };

  const preparePose = (mesh: Mesh): Promise<void> =>
    track(
      slices.run(() => {
        try {
          if (mesh.geometry && !disposed) poseTree(mesh);
        } catch (error) {
          console.error(`The picking tree of "${mesh.name}" could not be built:`, error);
        }
      }),
    );

  return {
    staticTree,
    poseTree,
    request,
    async prepare(roots) {
      if (disposed) return;
      const started: Promise<void>[] = [];
      const seen = new Set<BufferGeometry>();
      for (const root of roots) {
        root.traverse((o) => {
          // An instanced group's simplified levels and impostor card are never cast against.
          if (!isDrawable(o) || o.userData.instanceLevel !== undefined) return;
          if (followsPose(o)) {
            if (!poseTrees.has(o)) started.push(preparePose(o));
            return;
          }
          if (seen.has(o.geometry)) return;
          seen.add(o.geometry);
          const build = request(o.geometry, o.name);
          if (build) started.push(build);
        });
      }
      await Promise.all(started);
    },
    treeOf(mesh) {
      if (followsPose(mesh)) return poseTrees.get(mesh)?.bvh ?? null;
      return staticTree(mesh.geometry);
    },
    async idle() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
    dispose() {
      disposed = true;
      slices.stop();
      for (const ref of watchedRefs) {
        const geometry = ref.deref();
        const onDispose = geometry && watched.get(geometry);
        if (onDispose) geometry.removeEventListener('dispose', onDispose);
        if (geometry) watched.delete(geometry);
      }
      watchedRefs.clear();
      building.clear();
      poseTrees.clear();
      builder?.dispose();
    },
  };
}

function indexVersionOf(geometry: BufferGeometry): number {
  return geometry.index?.version ?? 0;
}

/** The triangles a geometry draws (its draw range, not its whole index). */
function trianglesOf(geometry: BufferGeometry): number {
  const count = geometry.index ? geometry.index.count : geometry.getAttribute('position').count;
  return Math.floor(Math.min(count, geometry.drawRange.count) / 3);
}

const NO_BONES: readonly Object3D[] = [];

/** What a posed mesh's triangles depend on: its bones' world matrices, bind matrix and morph influences. */
function poseOf(mesh: Mesh, into: Float64Array): Float64Array {
  const skinned = (mesh as SkinnedMesh).isSkinnedMesh ? (mesh as SkinnedMesh) : null;
  const bones = skinned ? skinned.skeleton.bones : NO_BONES;
  const morphs = mesh.morphTargetInfluences?.length ?? 0;
  const length = (bones.length + (skinned ? 1 : 0)) * 16 + morphs;
  const out = into.length === length ? into : new Float64Array(length);
  let k = 0;
  for (const bone of bones) {
    const e = bone.matrixWorld.elements;
    for (let i = 0; i < 16; i++) out[k++] = e[i];
  }
  if (skinned) for (let i = 0; i < 16; i++) out[k++] = skinned.bindMatrix.elements[i];
  for (let i = 0; i < morphs; i++) out[k++] = mesh.morphTargetInfluences![i];
  return out;
}

function samePose(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
