import { Box3, Matrix4, type BufferGeometry, type Mesh, type Object3D } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { InstanceAsset, InstanceAssetLevel, InstanceAssetPart, InstanceImpostor } from '../engine/instances';
import { AssetImpostorExtras, AssetLevelExtras, IMPOSTOR_SCENE, levelSceneName } from '../protocol/asset-levels';

/**
 * An instanced asset as groups draw it, from its parsed GLB (the asset CDN's file): its parts, its
 * simplified levels and its impostor (the scenes an asset upload adds, src/protocol/asset-levels.ts).
 * No fetching here (./instance-assets.ts downloads and caches assets): the benches draw the very
 * assets the viewer draws from it.
 */

/**
 * An asset's drawable parts from its parsed glTF: every mesh primitive, its node transform (in the
 * asset's root space) baked into a copy of its geometry when it is not the identity, so an
 * instance's matrix alone places it.
 */
export function assetFromGltf(gltf: GLTF, assetId: string): InstanceAsset {
  const box = new Box3();
  const parts = partsOf(gltf.scene, assetId, box);
  if (parts.length === 0) throw new Error('The asset has no mesh to draw.');
  const { levels, impostor } = levelsOf(gltf, assetId);
  return { assetId, parts, levels, impostor, box: new Float32Array([box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z]), placeholder: false };
}

/** The mesh primitives of a scene with their node transforms baked in (`box` grows by each). */
function partsOf(root: Object3D, name: string, box: Box3 | null): InstanceAssetPart[] {
  root.updateMatrixWorld(true);
  const parts: InstanceAssetPart[] = [];
  root.traverse((o) => {
    const mesh = o as Mesh;
    if (!mesh.isMesh || !mesh.geometry) return;
    let geometry: BufferGeometry = mesh.geometry;
    if (!mesh.matrixWorld.equals(IDENTITY)) geometry = geometry.clone().applyMatrix4(mesh.matrixWorld);
    if (box) {
      if (geometry.boundingBox === null) geometry.computeBoundingBox();
      box.union(geometry.boundingBox!);
    }
    parts.push({ name: mesh.name || `${name} part ${parts.length}`, geometry, material: mesh.material });
  });
  return parts;
}

/**
 * The asset's levels of detail and impostor, from the scenes the asset upload adds beside the
 * default one (src/protocol/asset-levels.ts). Levels that do not read right are left out with a
 * warning: the asset still draws, at full detail.
 */
const MAX_LEVELS = 4;

export function levelsOf(gltf: GLTF, assetId: string): { levels: InstanceAssetLevel[]; impostor: InstanceImpostor | null } {
  const levels: (InstanceAssetLevel & { level: number })[] = [];
  let impostor: InstanceImpostor | null = null;
  for (const scene of gltf.scenes ?? []) {
    if (scene === gltf.scene) continue;
    const data = scene.userData as { assetLevel?: unknown; assetImpostor?: unknown };
    if (data.assetLevel !== undefined) {
      const extras = AssetLevelExtras.safeParse(data.assetLevel);
      const parts = extras.success ? partsOf(scene, `${assetId} ${levelSceneName(extras.data.level)}`, null) : [];
      if (extras.success && parts.length > 0) levels.push({ level: extras.data.level, error: extras.data.error, parts });
      else
        console.warn(
          `Asset ${assetId}: the level of detail "${scene.name}" is left out (${extras.success ? 'it has no mesh' : extras.error.issues[0]?.message}).`,
        );
    } else if (data.assetImpostor !== undefined && scene.name === IMPOSTOR_SCENE) {
      const extras = AssetImpostorExtras.safeParse(data.assetImpostor);
      const [card] = partsOf(scene, `${assetId} impostor`, null);
      const material = card && !Array.isArray(card.material) ? card.material : null;
      if (extras.success && card && material) {
        impostor = {
          geometry: card.geometry,
          material,
          center: extras.data.center,
          radius: extras.data.radius,
          columns: extras.data.columns,
          elevations: extras.data.elevations,
        };
      } else {
        console.warn(`Asset ${assetId}: its impostor is left out (${extras.success ? 'no card with one material' : extras.error.issues[0]?.message}).`);
      }
    }
  }
  levels.sort((a, b) => a.level - b.level);
  // At most the levels an upload makes (a level view's limits are a few numbers).
  levels.splice(MAX_LEVELS);
  // Coarser each: a level whose error is below the one before it is out of order and left out.
  const kept: InstanceAssetLevel[] = [];
  for (const { parts, error } of levels) {
    if (kept.length > 0 && error < kept[kept.length - 1]!.error) continue;
    kept.push({ parts, error });
  }
  return { levels: kept, impostor };
}

const IDENTITY = new Matrix4();
