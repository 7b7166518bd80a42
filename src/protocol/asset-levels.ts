import { z } from 'zod';

/**
 * Levels of detail of an instanced asset (issue 35, item 2), as the asset upload stores them in the
 * asset's own GLB (one file on the asset CDN, one download) and the viewer reads them:
 *
 * - The default scene is the asset at full detail, untouched: picking, snapping, measuring, the
 *   editor, the host API and the asset library see it alone.
 * - Scenes named `lod1`, `lod2` are simplified copies (meshoptimizer's simplifier): every mesh node
 *   of the default scene flattened into one node with its world transform, each primitive with
 *   the full primitive's material and a subset of its vertices. Their `extras.assetLevel`
 *   says the level, its geometric error (the largest distance, in the asset's units, a simplified
 *   surface lies from the full one) and its triangles.
 * - The scene named `impostor` is one quad whose material's base colour texture is an atlas of the
 *   asset seen from IMPOSTOR_COLUMNS directions around it at each of IMPOSTOR_ELEVATIONS (the rows, top of the image first), each tile
 *   the asset's bounding sphere seen orthographically (`extras.assetImpostor`).
 *
 * A viewer that knows none of this draws the default scene, as before.
 */

/** The simplified levels the upload aims for: a share of the full triangles and the largest error allowed (a share of the asset's radius). */
export const ASSET_LEVEL_TARGETS: readonly { ratio: number; error: number }[] = [
  { ratio: 0.25, error: 0.01 },
  { ratio: 0.06, error: 0.05 },
];
/** A level is kept only if it has at most this share of the previous level's triangles. */
export const LEVEL_MIN_REDUCTION = 0.7;

export const IMPOSTOR_SCENE = 'impostor';
export const IMPOSTOR_COLUMNS = 8;
/** The elevations (degrees above the horizon) the rows of the atlas see the asset from, top row first. */
export const IMPOSTOR_ELEVATIONS: readonly number[] = [0, 35, 70];
/** Texels a side of one tile of the atlas. */
export const IMPOSTOR_TILE = 64;

export function levelSceneName(level: number): string {
  return `lod${level}`;
}

export const AssetLevelExtras = z.object({
  level: z.number().int().min(1).max(8),
  error: z.number().finite().min(0),
  triangles: z.number().int().min(0),
});
export type AssetLevelExtras = z.infer<typeof AssetLevelExtras>;

export const AssetImpostorExtras = z.object({
  columns: z.number().int().min(1).max(64),
  elevations: z.array(z.number().finite().min(-90).max(90)).min(1).max(16),
  /** The asset's bounding sphere (its root space): every tile shows it, centred. */
  center: z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]),
  radius: z.number().finite().positive(),
});
export type AssetImpostorExtras = z.infer<typeof AssetImpostorExtras>;

/** The direction (unit, asset space) the tile at `column`, `row` sees the asset from: towards the viewer. */
export function impostorDirection(column: number, columns: number, elevationDeg: number): [number, number, number] {
  const az = (column / columns) * 2 * Math.PI;
  const el = (elevationDeg * Math.PI) / 180;
  return [Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el)];
}
