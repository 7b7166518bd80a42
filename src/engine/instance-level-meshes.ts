import type { InstancedMesh } from 'three';
import { cullMesh, type GroupLevels } from './instance-culling';
import { cardBatchGeometry, patchImpostorMaterial } from './instance-impostor';
import type { InstanceAsset, InstanceAssetPart, InstanceGroupRecord } from './instances';
import type { ViewerWorld } from './world';

/**
 * A group's meshes of its asset's simplified levels and impostor (src/engine/instance-levels.ts
 * chooses between them; src/engine/instance-culling.ts draws each its segment of a pass's list).
 * Made only for a culled group: without culling a group draws at full detail.
 */

/** The levels culling chooses between for an asset (null: full detail only). */
export function assetLevelsOf(asset: InstanceAsset): GroupLevels | null {
  const errors = (asset.levels ?? []).map((level) => level.error);
  const impostorRadius = asset.impostor?.radius ?? 0;
  if (errors.length === 0 && impostorRadius === 0) return null;
  const b = asset.box;
  return { errors, impostorRadius, center: [(b[0]! + b[3]!) / 2, (b[1]! + b[4]!) / 2, (b[2]! + b[5]!) / 2] };
}

/** Adds a mesh per part of each simplified level, then the impostor's cards, to a culled group. */
export function addLevelMeshes(
  world: ViewerWorld,
  group: InstanceGroupRecord,
  asset: InstanceAsset,
  makeMesh: (part: InstanceAssetPart, level: number) => InstancedMesh,
): void {
  const simplified = asset.levels ?? [];
  simplified.forEach((level, i) => {
    for (const part of level.parts) {
      const mesh = makeMesh(part, i + 1);
      group.levelMeshes.push(mesh);
      cullMesh(world, group, mesh, i + 1);
    }
  });
  const impostor = asset.impostor;
  if (impostor) {
    patchImpostorMaterial(impostor);
    // Its cards are pulled, CARDS_PER_DRAW to an instance of the draw (./instance-impostor.ts).
    const mesh = makeMesh({ name: `${asset.assetId} (impostor)`, geometry: cardBatchGeometry(impostor), material: impostor.material }, simplified.length + 1);
    // A card casts no shadow: shadow passes draw its instances with the coarsest mesh level.
    mesh.castShadow = false;
    // Nor takes one: the coarsest mesh casting for it would shadow the card (it stands through the
    // middle of that mesh).
    mesh.receiveShadow = false;
    group.levelMeshes.push(mesh);
    cullMesh(world, group, mesh, simplified.length + 1);
  }
}
