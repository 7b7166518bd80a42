import type { Camera, Object3D, SkinnedMesh } from 'three';
import { Transform } from '../../components';
import { writeBatchedMatrix } from './model-batches';
import type { ViewerWorld } from './world';

const { world: W, worldChanged: CHANGED } = Transform;

/**
 * Copies the world matrices the transform system changed into their Object3Ds. Entity objects
 * have matrixAutoUpdate and matrixWorldAutoUpdate off, so three.js never recomputes them.
 */
export function syncObjectMatrices(world: ViewerWorld): number {
  const { order, count } = world.transform;
  const objects = world.objects;
  const moving = world.render.movingCasters.flagged;
  const batched = world.render.batches.batchOf;
  let fixed = 0;
  for (let i = 0; i < count; i++) {
    const e = order[i];
    if (CHANGED[e] === 0) continue;
    const object = objects[e];
    if (!object) continue;
    if (moving[e] === 0) fixed++;
    const m = object.matrixWorld.elements;
    const o = e * 16;
    for (let k = 0; k < 16; k++) m[k] = W[o + k];
    afterWorldChange(object);
    // A mesh drawn through its material's batch: the batch's instance follows (src/engine/model-batches.ts).
    if (batched !== null && batched[e] !== 0) writeBatchedMatrix(world, e, object);
  }
  return fixed;
}

/** What three.js would otherwise do in updateMatrixWorld for special objects. */
function afterWorldChange(object: Object3D): void {
  if ((object as SkinnedMesh).isSkinnedMesh) {
    const mesh = object as SkinnedMesh;
    if (mesh.bindMode === 'attached') mesh.bindMatrixInverse.copy(mesh.matrixWorld).invert();
  } else if ((object as Camera).isCamera) {
    (object as Camera).matrixWorldInverse.copy(object.matrixWorld).invert();
  }
}

/** Puts an object under ECS control: three.js must not recompute its matrices. */
export function detachFromThreeMatrixUpdates(object: Object3D): void {
  object.matrixAutoUpdate = false;
  object.matrixWorldAutoUpdate = false;
}
