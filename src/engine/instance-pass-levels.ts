import { Matrix4, type InstancedMesh } from 'three';
import type { CulledGroup, CullEntry, CullingWorld, GroupCulling, GroupLevels } from './instance-culling';
import {
  chooseLevel,
  instanceMeasure,
  LEVEL_TOLERANCE_PIXELS,
  levelForMeasure,
  levelLimits,
  levelView,
  viewInGroup,
  worldScale,
  type LevelView,
} from './instance-levels';

/**
 * Which level each listed instance of a culled group's pass is drawn at (src/engine/instance-culling.ts
 * makes the lists; src/engine/instance-levels.ts says how a level is chosen).
 */

// Scratch of intoLevels.
const limits = new Float64Array(16);
const counts = new Int32Array(17);
const viewAt = new Float64Array(3);
const inverse = new Matrix4();

/** The level view in the group's space (viewAt) and the levels' limits for it (limits); returns how many levels. */
function levelsForView(levels: GroupLevels, group: CulledGroup): number {
  const groupScale = viewInGroup(levelView, group.object.matrixWorld, inverse, viewAt);
  return levelLimits(levels, levelView, groupScale, limits);
}

/**
 * Texels of a directional light's map a level's error may cover: the PCF filter spreads each
 * shadow edge over about two (its taps and the texture's bilinear comparison).
 */
export const SHADOW_LEVEL_TEXELS = 2;
/** The view a directional light's shadow pass chooses its levels for (orthographic, its map's texels; bias: the texels above). */
const shadowView: LevelView = {
  x: 0,
  y: 0,
  z: 0,
  pixelsPerUnit: 1,
  orthographic: true,
  bias: SHADOW_LEVEL_TEXELS / LEVEL_TOLERANCE_PIXELS,
  stamp: 0,
  set: true,
};
const shadowLimits = new Float64Array(16);
/** Each listed instance's level in the pass being made (scratch; grows rarely). */
let passLevels = new Uint8Array(0);

/**
 * Chooses the level of each slot of the group's scratch list and writes them into the entry's
 * segments. The picture's passes (and a spot or point light's) use the picture's view with its
 * hysteresis (`culling.slotLevels`); a directional light's map (`shadowTexels` > 0: texels per unit
 * across it) takes for each instance the coarsest mesh level whose error covers at most SHADOW_LEVEL_TEXELS
 * (LEVEL_TOLERANCE_PIXELS) of it: a map of 1024 texels over 300 m reads nothing finer, and the
 * choice does not follow the camera (nothing to flicker, nothing stored).
 */
export function intoLevels(culling: GroupCulling, group: CulledGroup, entry: CullEntry, shadow: boolean, shadowTexels: number): void {
  const levels = culling.levels!;
  const n = entry.n;
  const list = culling.scratch;
  const chosen = culling.slotLevels;
  const matrices = group.bvh.matrices!;
  const count = levelsForView(levels, group);
  const [cx, cy, cz] = levels.center;
  const vx = viewAt[0]!;
  const vy = viewAt[1]!;
  const vz = viewAt[2]!;
  const orthographic = levelView.orthographic;
  // Shadow passes draw the impostor's instances with the last mesh level.
  const top = shadow && levels.impostorRadius > 0 ? count - 2 : count - 1;
  if (passLevels.length < n) passLevels = new Uint8Array(group.ids.length);
  counts.fill(0, 0, count + 1);
  if (shadow && shadowTexels > 0) {
    shadowView.pixelsPerUnit = shadowTexels;
    const groupScale = viewInGroup(levelView, group.object.matrixWorld, inverse, viewAt);
    levelLimits(levels, shadowView, groupScale, shadowLimits);
    if (entry.castLevels.length < group.ids.length) entry.castLevels = new Uint8Array(group.ids.length);
    const cast = entry.castLevels;
    for (let i = 0; i < n; i++) {
      const slot = list[i]!;
      const level = levelForMeasure(instanceMeasure(matrices, slot * 16, cx, cy, cz, 0, 0, 0, true), shadowLimits, top + 1);
      cast[slot] = level;
      passLevels[i] = level;
      counts[level + 1]!++;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const slot = list[i]!;
      const level = chooseLevel(instanceMeasure(matrices, slot * 16, cx, cy, cz, vx, vy, vz, orthographic), chosen[slot]!, limits, count);
      chosen[slot] = level;
      const drawn = level > top ? top : level;
      passLevels[i] = drawn;
      counts[drawn + 1]!++;
    }
  }
  const offsets = entry.offsets;
  offsets[0] = 0;
  for (let k = 0; k < count; k++) offsets[k + 1] = offsets[k]! + counts[k + 1]!;
  // counts[k] becomes level k's next free place.
  for (let k = 0; k < count; k++) counts[k] = offsets[k]!;
  const slots = entry.slots;
  for (let i = 0; i < n; i++) slots[counts[passLevels[i]!]!++] = list[i]!;
}

/** Whether the moved instance at `slot` now has another level than it was listed at (and records the new one). */
export function levelChanged(culling: GroupCulling, group: CulledGroup, slot: number): boolean {
  const levels = culling.levels!;
  const count = levelsForView(levels, group);
  const [cx, cy, cz] = levels.center;
  const q = instanceMeasure(group.bvh.matrices!, slot * 16, cx, cy, cz, viewAt[0]!, viewAt[1]!, viewAt[2]!, levelView.orthographic);
  const level = chooseLevel(q, culling.slotLevels[slot]!, limits, count);
  if (level === culling.slotLevels[slot]) return false;
  culling.slotLevels[slot] = level;
  return true;
}

/**
 * Whether the moved instance at `slot`, listed in `entry` (a directional light's list in level
 * segments), now has another level there than it was listed at: its size changed.
 */
export function shadowLevelChanged(culling: GroupCulling, group: CulledGroup, entry: CullEntry, slot: number): boolean {
  const levels = culling.levels!;
  const count = culling.levelCount;
  const top = levels.impostorRadius > 0 ? count - 2 : count - 1;
  shadowView.pixelsPerUnit = entry.texels;
  levelLimits(levels, shadowView, worldScale(group.object.matrixWorld), shadowLimits);
  const [cx, cy, cz] = levels.center;
  const level = levelForMeasure(instanceMeasure(group.bvh.matrices!, slot * 16, cx, cy, cz, 0, 0, 0, true), shadowLimits, top + 1);
  return level !== entry.castLevels[slot];
}

/**
 * Counts a picture pass's draw of `n` instances of `mesh` at a level finer than the coarsest into
 * world.render.instanceFinerTriangles (the triangle budget's measure of what a higher bias could take
 * away): the triangles of the geometry group three draws (`drawn`: one call per material of a part),
 * else the whole geometry's.
 */
export function countFiner(world: CullingWorld, mesh: InstancedMesh, n: number, drawn: { count?: number } | null): void {
  const geometry = mesh.geometry;
  const whole = (geometry.index ?? geometry.attributes.position!).count;
  world.render.instanceFinerTriangles += (n * Math.min(whole, drawn?.count ?? whole)) / 3;
}
