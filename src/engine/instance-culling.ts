import {
  DataTexture,
  FloatType,
  Frustum,
  GLBufferAttribute,
  Matrix4,
  RGBAFormat,
  type Camera,
  type InstancedMesh,
  type Material,
  type WebGLRenderer,
} from 'three';
import type { InstanceBVH } from './instance-bvh';
import { cullingPatchFits, MATRICES_UNIFORM, patchMaterialForCulling, readsSlots, shadowMaterialsFor } from './instance-culling-shaders';
import { cardList, disposeCards, drawCards, uncountTail, type CardList } from './instance-card-list';
import { CARDS_PER_DRAW } from './instance-impostor';
import { levelView, type LevelledAsset } from './instance-levels';
import { countFiner, intoLevels, levelChanged, shadowLevelChanged } from './instance-pass-levels';

/**
 * Per-instance culling of instanced asset groups, in every pass (issue 35): the picture, each
 * shadow map (each light's own shadow camera: the sun's shadow box, a point light's six faces) and
 * any other render of the scene draws only the instances whose boxes reach into that pass's
 * frustum. No Object3D per instance and no copy of a matrix: an index indirection.
 *
 * - The group's matrices (its Float32Array, 16 floats a slot) are also a float texture, 4 texels a
 *   slot, MATRIX_TEXTURE_WIDTH texels a row (the array is sized to whole rows: instanceCapacity).
 *   An edit uploads the rows it touched, as it uploads its range of the instanceMatrix attribute.
 * - Each pass has a list of the visible slots, found by the group's bounds index (InstanceBVH.cull)
 *   in the group's local space, and uploaded into one GPU buffer of the group before the pass draws
 *   the group (three's onBeforeRender and onBeforeShadow, with the pass's camera); the meshes draw
 *   that many instances (`count`), and restore the group's count after (onAfterRender/Shadow), so
 *   that whatever reads `mesh.count` between passes finds every slot (the cards' mesh: the draw
 *   instances that hold every slot's card).
 * - The list rides in the mesh's `instanceColor`, the one per-object instanced attribute three
 *   binds besides `instanceMatrix` (a geometry attribute would be shared by every group of an
 *   asset): the programs of the asset's materials, patched (./instance-culling-shaders.ts), read it as the
 *   slot and never as a colour, and fetch `instanceMatrix` from the texture.
 * - Lists are kept per pass (its camera's view-projection times the group's world matrix) in a
 *   few entries: a pass whose camera and group did not change draws from its list again. A moved
 *   instance (`instanceMoved`) is tested against each list: one that newly enters a pass's frustum
 *   is appended, one that left stays (drawn outside, clipped: harmless) until the next cull, so a
 *   drag re-culls nothing. Adding and compacting re-cull at the next pass; a removed slot stays
 *   listed until then and draws nothing (its matrix is zero).
 * - A material the patch does not know (a pass's override material, as N8AO's normal pass; three's
 *   depth material for a part of several materials) draws every slot through `instanceMatrix`,
 *   unculled and right, as it does with culling switched off (`world.render.instanceCulling =
 *   false`: the plain InstancedMesh path, for comparing pictures).
 * - The matrix texture goes up in changed rows (MAX_ROW_UPLOADS at most, else whole) before the
 *   first culled draw that needs it.
 *
 * - Levels of detail (src/engine/instance-levels.ts): a group whose asset has simplified levels or
 *   an impostor has a mesh per part and level; a pass's list is then in segments, one a level
 *   (each visible instance in the one its projected size chooses), and each level's meshes draw
 *   their segment from a buffer of that level. Shadow passes draw impostor-level instances with the
 *   coarsest mesh level (a card casts no shadow). The impostor level's segment goes into a texture
 *   (the group's card list, ./instance-card-list.ts) rather than a buffer: its cards are pulled, CARDS_PER_DRAW
 *   to an instance of the draw (./instance-impostor.ts). A moved instance whose level changes makes every
 *   list stale; one that enters a pass's frustum makes that list stale (no appending into a
 *   segment), and one whose size gives it another level in a directional light's list (levels by
 *   size alone there) makes that list stale.
 *
 * Without a renderer (unit tests of the engine) nothing here is made and the meshes draw as plain
 * InstancedMeshes.
 */

/** Texels a row of a group's matrix texture (a slot is 4 texels: 512 slots a row). WebGL 2 guarantees 2048. */
export const MATRIX_TEXTURE_WIDTH = 2048;
/** Slots a row of the matrix texture: group capacities are multiples of it. */
export const SLOTS_PER_ROW = MATRIX_TEXTURE_WIDTH / 4;
/** Pass lists kept per group (the picture, the sun's shadow, a point light's six faces; the oldest is reused). */
const ENTRIES = 8;
/** Rows touched past which an edit uploads the whole texture rather than row by row. */
const MAX_ROW_UPLOADS = 16;

/** The group as culling needs it (src/engine/instances.ts InstanceGroupRecord). */
export interface CulledGroup {
  count: number;
  ids: Uint32Array;
  bvh: InstanceBVH;
  meshes: InstancedMesh[];
  levelMeshes: InstancedMesh[];
  /** The group's Object3D (its world matrix places the instances; levels measure distance through it). */
  object: { matrixWorld: Matrix4 };
  culling: GroupCulling | null;
}

/** What a group's levels of detail are (none: null). */
export interface GroupLevels extends LevelledAsset {
  /** The asset's box centre (asset space): the point whose distance sets an instance's level. */
  center: readonly [number, number, number];
}

/** One pass's list of visible slots. */
export interface CullEntry {
  /** The pass's clip-from-group matrix (projection x view x the group's world). */
  readonly key: Float32Array;
  /** The group's culling version the list was made at. */
  version: number;
  readonly planes: Float32Array;
  /** The visible slots, in segments by level: level k's are [offsets[k], offsets[k + 1]). */
  slots: Float32Array;
  offsets: Int32Array;
  /** The level view (levelView.stamp) the segments were chosen for; -1 with levels off. */
  levelStamp: number;
  /** A shadow pass's list (impostor-level instances drawn with the coarsest mesh level). */
  shadow: boolean;
  /** A directional light's list: its map's texels per unit, its levels' measure (0 otherwise). */
  texels: number;
  /**
   * A directional light's list in level segments: each listed slot's level there (chosen by its
   * size alone), so that a moved instance still listed is checked against it. Sized on first use.
   */
  castLevels: Uint8Array;
  /** Which slots the list holds (bit `slot`), made when a moved instance first asks (bitsMade). */
  bits: Uint8Array;
  bitsMade: boolean;
  n: number;
  /** Use stamp, for reusing the oldest entry. */
  used: number;
  /** Levels whose segment changed since it was last uploaded (bit k). */
  changed: number;
}

export interface GroupCulling {
  readonly gl: WebGL2RenderingContext;
  /** three's GL state (textures bound and pixel store set through it, so that its cache stays true). */
  readonly state: WebGLRenderer['state'];
  texture: DataTexture;
  /** A buffer and its attribute per mesh level (level 0: full detail); the cards' level has its card list instead. */
  readonly buffers: WebGLBuffer[];
  /** Slots each buffer holds. */
  bufferSlots: number;
  readonly attributes: SlotListAttribute[];
  /** The impostor level's list (null: the asset has no impostor). */
  cards: CardList | null;
  /** The group's levels (null: one level, full detail). */
  readonly levels: GroupLevels | null;
  /** Levels in all (1 without levels). */
  readonly levelCount: number;
  /** Each slot's level as last chosen (the hysteresis remembers it). */
  slotLevels: Uint8Array;
  /** Whether the last list was made with levels on (world.render.instanceLevels). */
  levelsOn: boolean;
  /** A list before it is put in segments (shared by the group's passes). */
  scratch: Float32Array;
  /** Bumped by whatever makes every list stale (adds, compaction, a rebuilt tree, a new capacity). */
  version: number;
  readonly entries: CullEntry[];
  /** The entry whose segment is in each level's buffer now. */
  readonly uploaded: (CullEntry | null)[];
  /** Texture rows whose matrices changed since its last upload (1 a row), how many, and their span. */
  dirtyRows: Uint8Array;
  dirtyCount: number;
  dirtyFirst: number;
  dirtyLast: number;
  /** The renderer's largest texture side: a group that grows past it stops culling. */
  readonly maxRows: number;
  /** The texture went up whole once (before that an upload of ranges would leave the rest undefined). */
  textureReady: boolean;
  stamp: number;
  /** Passes that drew from a list, lists made, instances drawn, and the time finding lists took (ms): for tests and the bench. */
  stats: { passes: number; culls: number; drawn: number; cullMs: number; drawnByLevel: number[] };
}

/**
 * A pass's slot list as three binds it: a buffer of ours (uploaded per pass), one float a drawn
 * instance, stepped per instance (three reads isInstancedBufferAttribute and meshPerAttribute for
 * the divisor). InstancedMesh.dispose disposes its instanceColor: the buffer goes with the group
 * (disposeGroupCulling), so that does nothing.
 */
class SlotListAttribute extends GLBufferAttribute {
  readonly isInstancedBufferAttribute = true;
  readonly meshPerAttribute = 1;
  dispose(): void {}
}

/** Slots a group of `n` instances makes room for: whole rows of the matrix texture, with some to grow. */
export function instanceCapacity(n: number): number {
  return Math.ceil(Math.max(16, n + (n >> 5)) / SLOTS_PER_ROW) * SLOTS_PER_ROW;
}

function matrixTexture(matrices: Float32Array): DataTexture {
  const rows = matrices.length / (MATRIX_TEXTURE_WIDTH * 4);
  if (!Number.isInteger(rows)) throw new Error(`A group's matrices fill whole rows of ${SLOTS_PER_ROW} slots (got ${matrices.length / 16} slots).`);
  const texture = new DataTexture(matrices, MATRIX_TEXTURE_WIDTH, rows, RGBAFormat, FloatType);
  texture.name = 'Instance matrices';
  texture.needsUpdate = true;
  return texture;
}

/**
 * Starts culling for a group whose meshes exist, when a renderer draws it and the texture fits its
 * limits; returns null otherwise (the meshes then draw as plain InstancedMeshes).
 */
export function createGroupCulling(
  renderer: WebGLRenderer | null,
  group: CulledGroup,
  matrices: Float32Array,
  levels: GroupLevels | null = null,
): GroupCulling | null {
  // A stand-in renderer (unit tests) has no context to draw with.
  if (!renderer || typeof renderer.getContext !== 'function' || !renderer.capabilities) return null;
  const gl = renderer.getContext() as WebGL2RenderingContext;
  const rows = matrices.length / (MATRIX_TEXTURE_WIDTH * 4);
  if (rows > renderer.capabilities.maxTextureSize || typeof gl.bufferSubData !== 'function' || !cullingPatchFits()) return null;
  const slots = group.ids.length;
  const levelCount = levels ? 1 + levels.errors.length + (levels.impostorRadius > 0 ? 1 : 0) : 1;
  const buffers: WebGLBuffer[] = [];
  const attributes: SlotListAttribute[] = [];
  const cards = levels && levels.impostorRadius > 0 ? cardList(gl, renderer.state, slots, levelCount - 1) : null;
  const meshLevels = cards ? levelCount - 1 : levelCount;
  for (let level = 0; level < meshLevels; level++) {
    const buffer = gl.createBuffer();
    if (!buffer || (levels && levels.impostorRadius > 0 && !cards)) {
      for (const made of buffers) gl.deleteBuffer(made);
      if (buffer) gl.deleteBuffer(buffer);
      if (cards) gl.deleteTexture(cards.texture);
      return null;
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, slots * 4, gl.DYNAMIC_DRAW);
    buffers.push(buffer);
    attributes.push(new SlotListAttribute(buffer, gl.FLOAT, 1, 4, slots));
  }
  const culling: GroupCulling = {
    gl,
    state: renderer.state,
    texture: matrixTexture(matrices),
    buffers,
    bufferSlots: slots,
    attributes,
    cards,
    levels: levelCount > 1 ? levels : null,
    levelCount,
    slotLevels: new Uint8Array(levelCount > 1 ? slots : 0),
    levelsOn: false,
    scratch: new Float32Array(0),
    version: 0,
    entries: [],
    uploaded: new Array<CullEntry | null>(levelCount).fill(null),
    dirtyRows: new Uint8Array(rows),
    dirtyCount: 0,
    dirtyFirst: Infinity,
    dirtyLast: -1,
    maxRows: renderer.capabilities.maxTextureSize,
    textureReady: false,
    stamp: 0,
    stats: { passes: 0, culls: 0, drawn: 0, cullMs: 0, drawnByLevel: new Array<number>(levelCount).fill(0) },
  };
  for (let i = 0; i < ENTRIES; i++) {
    culling.entries.push({
      key: new Float32Array(16),
      version: -1,
      planes: new Float32Array(24),
      slots: new Float32Array(0),
      offsets: new Int32Array(levelCount + 1),
      levelStamp: -1,
      shadow: false,
      texels: 0,
      bits: new Uint8Array(0),
      castLevels: new Uint8Array(0),
      bitsMade: false,
      n: 0,
      used: 0,
      changed: -1,
    });
  }
  return culling;
}

/** What culling reads of the world: its switches. */
export interface CullingWorld {
  render: { instanceCulling: boolean; instanceLevels: boolean; instanceFinerTriangles: number };
}

/**
 * Hooks a group's mesh into culling (called for each mesh once the group's culling exists); `level`
 * is the level of detail the mesh draws (0: full detail; a level above 0 draws nothing without culling).
 */
export function cullMesh(world: CullingWorld, group: CulledGroup, mesh: InstancedMesh, level = 0): void {
  const culling = group.culling;
  if (!culling) return;
  for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) if (!readsSlots(material)) patchMaterialForCulling(material);
  if (!Array.isArray(mesh.material)) {
    const { depth, distance } = shadowMaterialsFor(mesh.material);
    mesh.customDepthMaterial = depth;
    mesh.customDistanceMaterial = distance;
  }
  // The cards' mesh reads no instanceColor (its programs find their slots in the card list).
  const cards = culling.cards?.level === level;
  const slots = cards ? null : (culling.attributes[Math.min(level, culling.levelCount - 1)] as unknown as InstancedMesh['instanceColor']);
  mesh.instanceColor = slots;
  const restore = () => {
    mesh.count = cards ? Math.ceil(group.count / CARDS_PER_DRAW) : group.count;
    mesh.instanceColor = group.culling ? slots : null;
  };
  mesh.onBeforeRender = (renderer, _scene, camera, _geometry, material, drawn) =>
    beforeDraw(renderer, world, group, mesh, camera, material, level, false, drawn);
  mesh.onBeforeShadow = (renderer, _object, _camera, shadowCamera, _geometry, depthMaterial) =>
    beforeDraw(renderer, world, group, mesh, shadowCamera, depthMaterial, level, true);
  mesh.onAfterRender = cards
    ? (renderer) => {
        uncountTail(renderer, mesh);
        restore();
      }
    : restore;
  mesh.onAfterShadow = restore;
}

// Scratch.
const clip = new Matrix4();
const frustum = new Frustum();

function beforeDraw(
  renderer: WebGLRenderer,
  world: CullingWorld,
  group: CulledGroup,
  mesh: InstancedMesh,
  camera: Camera,
  material: Material,
  level: number,
  shadow: boolean,
  drawn: { count?: number } | null = null,
): void {
  const culling = group.culling;
  if (!culling || !world.render.instanceCulling || !readsSlots(material)) {
    // Every slot through instanceMatrix at full detail, as a plain InstancedMesh draws, and no slot
    // list where a colour would be read; the other levels draw nothing.
    mesh.count = level === 0 ? group.count : 0;
    mesh.instanceColor = null;
    return;
  }
  if (culling.dirtyCount > 0) queueRows(culling);
  clip.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse).multiply(mesh.matrixWorld);
  // A directional light's map: texels per unit across it (its levels follow them, not the picture's view).
  const texels =
    shadow && (camera as { isOrthographicCamera?: boolean }).isOrthographicCamera
      ? (camera.projectionMatrix.elements[5]! * (renderer.getRenderTarget()?.height ?? 0)) / 2
      : 0;
  const entry = listFor(culling, group, clip, camera, world.render.instanceLevels, shadow, texels);
  const first = entry.offsets[level]!;
  const n = entry.offsets[level + 1]! - first;
  const bit = 1 << level;
  const cards = culling.cards !== null && culling.cards.level === level;
  if (!cards && level >= culling.buffers.length) {
    // The cards' level without its card list (no texture for a grown group): nothing to draw from.
    mesh.count = 0;
    return;
  }
  const upload = culling.uploaded[level] !== entry || (entry.changed & bit) !== 0;
  if (upload) {
    culling.uploaded[level] = entry;
    entry.changed &= ~bit;
  }
  if (cards) {
    drawCards(culling, mesh, camera, entry.slots, first, n, upload);
  } else {
    const gl = culling.gl;
    if (upload && n > 0) {
      gl.bindBuffer(gl.ARRAY_BUFFER, culling.buffers[level]!);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, entry.slots, first, n);
    }
    mesh.count = n;
  }
  if (!shadow && level < culling.levelCount - 1 && entry.levelStamp !== -1) countFiner(world, mesh, n, drawn);
  culling.stats.passes++;
  culling.stats.drawn += n;
  culling.stats.drawnByLevel[level]! += n;
  MATRICES_UNIFORM.value = culling.texture;
  // Bound, so uploaded (whole the first time), by this draw's uniforms.
  culling.textureReady = true;
  // Another group of the same asset may have drawn last with this program and material: three
  // uploads a material's uniforms again only when its program or material changes, so unbind the
  // program to have this group's texture bound.
  renderer.state.useProgram(null as unknown as WebGLProgram);
}

/** The pass's list: a kept one when the pass and the group are as they were, else a new cull into the oldest entry. */
function listFor(
  culling: GroupCulling,
  group: CulledGroup,
  m: Matrix4,
  camera: Camera,
  levelsWanted: boolean,
  shadow: boolean,
  shadowTexels: number,
): CullEntry {
  const e = m.elements;
  const version = culling.version;
  const levels = levelsWanted && culling.levels !== null && levelView.set;
  const levelStamp = levels ? levelView.stamp : -1;
  culling.levelsOn = levels;
  let oldest = culling.entries[0]!;
  for (const entry of culling.entries) {
    if (entry.version === version && entry.levelStamp === levelStamp && entry.shadow === shadow && entry.texels === shadowTexels && sameKey(entry.key, e)) {
      entry.used = ++culling.stamp;
      return entry;
    }
    if (entry.used < oldest.used) oldest = entry;
  }
  const started = performance.now();
  const entry = oldest;
  for (let i = 0; i < 16; i++) entry.key[i] = e[i]!;
  entry.version = version;
  entry.levelStamp = levelStamp;
  entry.shadow = shadow;
  entry.texels = shadowTexels;
  entry.used = ++culling.stamp;
  entry.changed = -1;
  const count = group.count;
  if (entry.slots.length < count) entry.slots = new Float32Array(group.ids.length);
  entry.bitsMade = false;
  culling.stats.culls++;
  frustum.setFromProjectionMatrix(m, camera.coordinateSystem, (camera as { reversedDepth?: boolean }).reversedDepth ?? false);
  for (let p = 0; p < 6; p++) {
    const plane = frustum.planes[p]!;
    entry.planes[p * 4] = plane.normal.x;
    entry.planes[p * 4 + 1] = plane.normal.y;
    entry.planes[p * 4 + 2] = plane.normal.z;
    entry.planes[p * 4 + 3] = plane.constant;
  }
  const offsets = entry.offsets;
  if (levels) {
    if (culling.scratch.length < count) culling.scratch = new Float32Array(group.ids.length);
    entry.n = group.bvh.cull(entry.planes, count, group.ids, culling.scratch);
    intoLevels(culling, group, entry, shadow, shadowTexels);
  } else {
    entry.n = group.bvh.cull(entry.planes, count, group.ids, entry.slots);
    offsets.fill(entry.n);
    offsets[0] = 0;
  }
  culling.stats.cullMs += performance.now() - started;
  return entry;
}

function sameKey(key: Float32Array, e: ArrayLike<number>): boolean {
  for (let i = 0; i < 16; i++) if (key[i] !== Math.fround(e[i]!)) return false;
  return true;
}

/**
 * Instance `slot` got a new matrix: each pass list whose frustum it now reaches without holding it
 * takes it at its end (its texture rows are queued by the caller). Lists stay otherwise: a drag
 * re-culls nothing.
 */
export function instanceMoved(group: CulledGroup, slot: number): void {
  const culling = group.culling;
  if (!culling) return;
  if (culling.levelsOn && levelChanged(culling, group, slot)) {
    // Its segment changed in every list: each is made again at its next pass.
    culling.version++;
    return;
  }
  for (const entry of culling.entries) {
    if (entry.version !== culling.version) continue;
    if (!entry.bitsMade) markListed(entry, group.ids.length);
    const bit = 1 << (slot & 7);
    if ((entry.bits[slot >> 3]! & bit) !== 0) {
      // Listed. A directional light's list in level segments chose its level by its size alone,
      // which a new scale may change while the picture's level stays: then it is made again.
      if (entry.texels > 0 && entry.levelStamp !== -1 && shadowLevelChanged(culling, group, entry, slot)) entry.version = -1;
      continue;
    }
    if (!group.bvh.inside(entry.planes, slot)) continue;
    if (entry.n >= entry.slots.length || entry.levelStamp !== -1) {
      // No room (it lists every slot already, moved ones appended), or a list in level segments
      // (no appending inside a segment): cull again at its next pass.
      entry.version = -1;
      continue;
    }
    entry.slots[entry.n++] = slot;
    entry.offsets.fill(entry.n, 1);
    entry.bits[slot >> 3]! |= bit;
    entry.changed |= 1;
  }
}

/** Marks the slots a list holds (once per list: the cull itself only copies slots). */
function markListed(entry: CullEntry, slots: number): void {
  const bytes = (slots + 7) >> 3;
  if (entry.bits.length < bytes) entry.bits = new Uint8Array(bytes);
  else entry.bits.fill(0);
  const list = entry.slots;
  for (let i = 0; i < entry.n; i++) {
    const slot = list[i]!;
    entry.bits[slot >> 3]! |= 1 << (slot & 7);
  }
  entry.bitsMade = true;
}

/** Every pass list is stale (instances added, slots compacted, the tree rebuilt). */
export function cullingChanged(group: CulledGroup): void {
  if (group.culling) group.culling.version++;
}

/** The matrices of slots [first, first + count) changed: their texture rows go up before the next culled draw. */
export function matricesChanged(group: CulledGroup, first: number, count: number): void {
  const culling = group.culling;
  if (!culling || count <= 0) return;
  const rows = culling.dirtyRows;
  const last = Math.min(rows.length - 1, Math.floor((first + count - 1) / SLOTS_PER_ROW));
  for (let row = Math.floor(first / SLOTS_PER_ROW); row <= last; row++) {
    if (rows[row] === 1) continue;
    rows[row] = 1;
    culling.dirtyCount++;
    if (row < culling.dirtyFirst) culling.dirtyFirst = row;
    if (row > culling.dirtyLast) culling.dirtyLast = row;
  }
}

/**
 * Queues the changed rows for the texture's upload: each row as one range (a range may not cross a
 * row), or, past MAX_ROW_UPLOADS rows, the whole texture (no ranges). Scattered edits upload only
 * their rows: two dragged instances far apart are two rows, not the span between them.
 */
function queueRows(culling: GroupCulling): void {
  const texture = culling.texture;
  const rows = culling.dirtyRows;
  texture.clearUpdateRanges();
  const row16 = SLOTS_PER_ROW * 16;
  if (culling.textureReady && culling.dirtyCount <= MAX_ROW_UPLOADS) {
    for (let row = culling.dirtyFirst; row <= culling.dirtyLast; row++) if (rows[row] === 1) texture.addUpdateRange(row * row16, row16);
  }
  // No ranges: three uploads the whole texture.
  texture.needsUpdate = true;
  rows.fill(0, culling.dirtyFirst, culling.dirtyLast + 1);
  culling.dirtyCount = 0;
  culling.dirtyFirst = Infinity;
  culling.dirtyLast = -1;
}

/** The group's arrays grew (a new matrices array): a new texture, and a buffer with room for every slot. */
export function cullingResized(group: CulledGroup, matrices: Float32Array): void {
  const culling = group.culling;
  if (!culling) return;
  const rows = matrices.length / (MATRIX_TEXTURE_WIDTH * 4);
  if (rows > culling.maxRows) {
    // Past the largest texture: this group draws every instance from now on, as a plain InstancedMesh.
    disposeGroupCulling(group);
    for (const mesh of group.meshes) mesh.instanceColor = null;
    // The levels draw through culling's lists only.
    for (const mesh of group.levelMeshes) mesh.visible = false;
    return;
  }
  culling.texture.dispose();
  culling.texture = matrixTexture(matrices);
  culling.dirtyRows = new Uint8Array(rows);
  culling.dirtyCount = 0;
  culling.dirtyFirst = Infinity;
  culling.dirtyLast = -1;
  culling.textureReady = false;
  const slots = group.ids.length;
  if (slots > culling.bufferSlots) {
    const gl = culling.gl;
    for (let level = 0; level < culling.buffers.length; level++) {
      gl.bindBuffer(gl.ARRAY_BUFFER, culling.buffers[level]!);
      gl.bufferData(gl.ARRAY_BUFFER, slots * 4, gl.DYNAMIC_DRAW);
      culling.attributes[level]!.count = slots;
    }
    if (culling.cards) {
      const cards = cardList(gl, culling.state, slots, culling.cards.level);
      disposeCards(culling);
      culling.cards = cards;
      // No texture for the larger list: the impostor level draws nothing from now on (said once).
      if (!cards) console.warn('Instance culling: no texture for a grown card list; the impostor level draws nothing.');
    }
    culling.bufferSlots = slots;
    if (culling.levelCount > 1) {
      const chosen = new Uint8Array(slots);
      chosen.set(culling.slotLevels.subarray(0, Math.min(slots, culling.slotLevels.length)));
      culling.slotLevels = chosen;
    }
  }
  culling.uploaded.fill(null);
  culling.version++;
}

/** Bytes the group's pass lists keep on the JS side (the texture shares the group's matrices). */
export function cullingBytes(group: CulledGroup): number {
  let bytes = 0;
  const culling = group.culling;
  if (!culling) return 0;
  for (const entry of culling.entries) bytes += entry.slots.byteLength + entry.bits.byteLength + entry.offsets.byteLength + entry.castLevels.byteLength + 160;
  return bytes + culling.slotLevels.byteLength + culling.scratch.byteLength;
}

/** Lets go of the group's texture and slot buffer; its meshes draw every slot from now on. */
export function disposeGroupCulling(group: CulledGroup): void {
  const culling = group.culling;
  if (!culling) return;
  culling.texture.dispose();
  // The uniform would keep the last drawn group's texture (and its matrices) alive.
  if (MATRICES_UNIFORM.value === culling.texture) MATRICES_UNIFORM.value = null;
  // three deletes it with a mesh it has drawn (its instanceColor); one never drawn keeps it: delete
  // it here (deleting a deleted buffer does nothing).
  for (const buffer of culling.buffers) culling.gl.deleteBuffer(buffer);
  disposeCards(culling);
  group.culling = null;
}
