import { syncObjectFlags } from '../src/engine/object-flags';
import { noteFlaggedModels, syncModelBatches } from '../src/engine/model-batches';
import { syncObjectMatrices } from '../src/engine/sync';
import type { ViewerWorld } from '../src/engine/world';

/**
 * The ECS is the truth; this is the one step that applies it to three.js: the world matrices the
 * transform system changed (entity objects have matrixAutoUpdate off, so three.js never recomputes
 * them) and the Visibility and Shadows of flagged entities. Anything that changed asks for a picture:
 * the shadow maps too, or, where only moving casters moved, their shadows alone. Then the models'
 * batches (src/engine/model-batches.ts): made for models just loaded, their instances shown as their
 * meshes when flags changed (a batch's matrices follow in the matrix copy itself).
 */
export function syncSystem(world: ViewerWorld): ViewerWorld {
  if (world.transform.changed > 0) {
    // Only the nodes of playing animations moved: their shadows get their own pass (src/engine/moving-casters.ts).
    if (syncObjectMatrices(world) > 0) world.render.needsRender = true;
    else {
      world.render.needsCasterShadows = true;
      world.render.needsPicture = true;
    }
  }
  noteFlaggedModels(world);
  syncObjectFlags(world);
  syncModelBatches(world);
  return world;
}
