import type { Mesh, Vector3 } from 'three';
import type { MeshBVH, SkinnedMeshBVH } from 'three-mesh-bvh';
import type { ViewerWorld } from '../../engine/world';
import { ERR_RAYCASTER, ERR_RENDERER } from '../../protocol/errors';
import type { PickHit, Picker, PickOptions } from '../pick-types';
import { hitOn, makeHit } from './hits';
import { castInstanceGroups } from './instances';
import { castRay, pickCamera, type RaycastContext } from './raycast';
import { snapToVertex } from './snapping';
import { createPickState } from './state';
import { createPickTrees, type PickTreesOptions } from './trees';
import { SceneMeshIndex } from './scene-index';
import { addFrameStep } from '../../engine/frame-steps';

/**
 * Picking with three-mesh-bvh: first hits under a screen point for the viewer's current camera
 * (perspective or orthographic), skipping helpers (layer 15), invisible objects and parts cut away
 * by clipping planes; vertex snapping by a sphere query on the same trees. Trees are built in the
 * background by `prepare` (large meshes in a worker); until a mesh has one, picks use three's
 * plain raycast for it. Trees follow their geometry: an edited geometry is rebuilt, a disposed one
 * drops its tree.
 *
 * One file per job, composed here:
 *   trees.ts      the static and pose trees, their builds (worker or slices) and invalidation
 *   slices.ts     main-thread builds in short slices that yield to the page
 *   bounds.ts     the bounding spheres tested before a mesh's triangles
 *   clipping.ts   the drawn interval of the ray; what material and section planes keep
 *   raycast.ts    casting the ray through the models, mesh by mesh, into the best hit
 *   scene-index.ts  the models' mesh bounds index: a pick casts only the meshes its ray reaches
 *   state.ts      what one pick's parts share: the ray, its drawn interval, the best hit
 *   snapping.ts   the nearest vertex of a hit's mesh
 *   hits.ts       the hit with its ids (src/engine/stable-ids.ts); hits as event data
 *   drawables.ts  what is cast against, and which meshes follow a pose
 */

export { toHitEventData } from './hits';
export { WORKER_MIN_TRIANGLES } from './trees';

export interface PickerOptions extends PickTreesOptions {
  /** The world whose models, camera, scene and renderer a pick reads. */
  world: ViewerWorld;
  /**
   * Model picks through the scene's mesh bounds index (scene-index.ts; default true). False: every
   * object is visited (the full scan; the benchmark's baseline).
   */
  sceneIndex?: boolean;
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

/** The picker of a viewer world. Its methods do not use `this`: they may be passed around alone. */
export function createPicker(options: PickerOptions): ViewerPicker {
  const { world } = options;
  const trees = createPickTrees({ workerMinTriangles: options.workerMinTriangles, useWorker: options.useWorker });
  const index = options.sceneIndex === false ? null : new SceneMeshIndex(world);
  const ctx: RaycastContext = { world, trees, state: createPickState(), index, castInstanceGroups };
  // The index follows moved meshes each frame, after the sync system (a pick also catches up first).
  const removeStep = index ? addFrameStep(world, 'helpers', { name: 'pick-index-refit', run: () => index.refitChanged() }) : () => undefined;
  let disposed = false;

  const pick = (x: number, y: number, pickOptions?: PickOptions): PickHit | null => {
    if (disposed) throw new Error(ERR_RAYCASTER);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`A pick needs finite coordinates (got ${x}, ${y}).`);
    const camera = pickCamera(world);
    return castRay(ctx, camera, x, y, pickOptions?.objects) ? makeHit(world, ctx.state) : null;
  };

  return {
    pick,
    pickAtClient(clientX, clientY, pickOptions) {
      const canvas = world.render.renderer?.domElement;
      if (!canvas) throw new Error(ERR_RENDERER);
      const rect = canvas.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) return null;
      const x = ((clientX - rect.left) / rect.width) * 2 - 1;
      const y = -((clientY - rect.top) / rect.height) * 2 + 1;
      return pick(x, y, pickOptions);
    },
    snapToVertex: (hit, target, radius, plane) => snapToVertex(ctx, hit, target, radius, plane),
    prepare: (roots) => trees.prepare(roots),
    treeOf: (mesh) => trees.treeOf(mesh),
    hitOn: (object, point, normal, distance) => hitOn(world, object, point, normal, distance),
    idle: () => trees.idle(),
    dispose() {
      disposed = true;
      removeStep();
      trees.dispose();
    },
  };
}
