import {
  DataTexture,
  FloatType,
  Frustum,
  GLBufferAttribute,
  Matrix4,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  RGBAFormat,
  ShaderChunk,
  ShaderLib,
  type Camera,
  type InstancedMesh,
  type Material,
  type WebGLProgramParametersWithUniforms,
  type WebGLRenderer,
} from 'three';
import type { InstanceBVH } from './instance-bvh';

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
 *   that whatever reads `mesh.count` between passes finds every slot.
 * - The list rides in the mesh's `instanceColor`, the one per-object instanced attribute three
 *   binds besides `instanceMatrix` (a geometry attribute would be shared by every group of an
 *   asset): the programs of the asset's materials, patched here (patchForCulling), read it as the
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
  culling: GroupCulling | null;
}

/** One pass's list of visible slots. */
interface CullEntry {
  /** The pass's clip-from-group matrix (projection x view x the group's world). */
  readonly key: Float32Array;
  /** The group's culling version the list was made at. */
  version: number;
  readonly planes: Float32Array;
  slots: Float32Array;
  /** Which slots the list holds (bit `slot`), made when a moved instance first asks (bitsMade). */
  bits: Uint8Array;
  bitsMade: boolean;
  n: number;
  /** Use stamp, for reusing the oldest entry. */
  used: number;
  /** The list changed since it was last uploaded. */
  changed: boolean;
}

export interface GroupCulling {
  readonly gl: WebGL2RenderingContext;
  texture: DataTexture;
  buffer: WebGLBuffer;
  /** Slots the buffer holds. */
  bufferSlots: number;
  readonly attribute: SlotListAttribute;
  /** Bumped by whatever makes every list stale (adds, compaction, a rebuilt tree, a new capacity). */
  version: number;
  readonly entries: CullEntry[];
  /** The entry whose list is in the buffer now. */
  uploaded: CullEntry | null;
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
  stats: { passes: number; culls: number; drawn: number; cullMs: number };
}

/** The uniform every patched program reads the group's matrices from; set before each culled draw. */
const MATRICES_UNIFORM = { value: null as DataTexture | null };

const patched = new WeakSet<Material>();
const KEY = 'instance-culling';

/** The lines of three's shaders the patch hooks into (patchForCulling). */
const ANCHORS = ['#include <common>', 'void main() {'] as const;
let patchFits: boolean | null = null;

/**
 * Whether the patch finds its anchors in every vertex shader an instanced asset may be drawn with
 * (three's built-in materials and the shadow passes'). A three.js whose shaders changed turns
 * culling off, with one warning, rather than drawing the wrong instances.
 */
export function cullingPatchFits(): boolean {
  if (patchFits === null) {
    const missing = Object.entries(ShaderLib).filter(([, shader]) => ANCHORS.some((anchor) => !shader.vertexShader.includes(anchor)));
    const needed = ['standard', 'physical', 'basic', 'lambert', 'phong', 'toon', 'matcap', 'depth', 'distance'];
    const broken = missing.filter(([name]) => needed.includes(name)).map(([name]) => name);
    patchFits = broken.length === 0 && ShaderChunk.color_vertex.includes(COLOUR_LINE);
    if (!patchFits) console.warn(`Per-instance culling is off: three's ${broken.join(', ') || 'color_vertex'} shader no longer has the lines it hooks into.`);
  }
  return patchFits;
}

/** The line of color_vertex that multiplies by instanceColor (the slot list there). */
const COLOUR_LINE = 'vColor.rgb *= instanceColor.rgb;';

/** The vertex shader's instancing, through the slot list and the matrix texture (only with USE_INSTANCING_COLOR: our meshes). */
function patchForCulling(shader: WebGLProgramParametersWithUniforms): void {
  shader.uniforms.instanceMatrices = MATRICES_UNIFORM;
  shader.vertexShader = shader.vertexShader
    .replace(
      '#include <common>',
      `#include <common>
#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  uniform highp sampler2D instanceMatrices;
  mat4 culledInstanceMatrix;
  #define instanceMatrix culledInstanceMatrix
#endif`,
    )
    .replace(
      'void main() {',
      `void main() {
#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  {
    int texel = int( instanceColor.x ) * 4;
    int width = textureSize( instanceMatrices, 0 ).x;
    ivec2 at = ivec2( texel % width, texel / width );
    culledInstanceMatrix = mat4( texelFetch( instanceMatrices, at, 0 ), texelFetch( instanceMatrices, at + ivec2( 1, 0 ), 0 ), texelFetch( instanceMatrices, at + ivec2( 2, 0 ), 0 ), texelFetch( instanceMatrices, at + ivec2( 3, 0 ), 0 ) );
  }
#endif`,
    )
    .replace('#include <color_vertex>', ShaderChunk.color_vertex.replace(COLOUR_LINE, ''));
  // The slot list turned USE_COLOR on; without vertex colours there is no colour to multiply by
  // (a varying and a multiply per fragment saved).
  if (!shader.vertexColors) shader.fragmentShader = shader.fragmentShader.replace('#include <color_fragment>', '');
}

/** Makes `material`'s instanced programs read the slot list (once; its other programs are unchanged). */
export function patchMaterialForCulling(material: Material): void {
  if (patched.has(material)) return;
  patched.add(material);
  material.onBeforeCompile = patchForCulling;
  material.customProgramCacheKey = () => KEY;
  material.needsUpdate = true;
}

/** Whether draws with `material` read the slot list. */
export function readsSlots(material: Material): boolean {
  return patched.has(material) || (material as { isCulledInstanceMaterial?: boolean }).isCulledInstanceMaterial === true;
}

/**
 * The shadow pass's depth material for culled instances, one per asset material (three sets its
 * side, maps and alpha test from that material at each draw; a clone stays one: its class patches).
 */
export class CulledDepthMaterial extends MeshDepthMaterial {
  readonly isCulledInstanceMaterial = true;
  override onBeforeCompile(shader: WebGLProgramParametersWithUniforms): void {
    patchForCulling(shader);
  }
  override customProgramCacheKey(): string {
    return KEY;
  }
}

/** The point-light shadow pass's distance material for culled instances. */
export class CulledDistanceMaterial extends MeshDistanceMaterial {
  readonly isCulledInstanceMaterial = true;
  override onBeforeCompile(shader: WebGLProgramParametersWithUniforms): void {
    patchForCulling(shader);
  }
  override customProgramCacheKey(): string {
    return KEY;
  }
}

const depthMaterials = new WeakMap<Material, { depth: CulledDepthMaterial; distance: CulledDistanceMaterial }>();

/** The culled shadow materials of an asset material (one pair per material: three sets their maps and sides from it per draw). */
export function shadowMaterialsFor(material: Material): { depth: CulledDepthMaterial; distance: CulledDistanceMaterial } {
  let pair = depthMaterials.get(material);
  if (!pair) {
    pair = { depth: new CulledDepthMaterial(), distance: new CulledDistanceMaterial() };
    depthMaterials.set(material, pair);
    material.addEventListener('dispose', () => {
      pair!.depth.dispose();
      pair!.distance.dispose();
      depthMaterials.delete(material);
    });
  }
  return pair;
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
export function createGroupCulling(renderer: WebGLRenderer | null, group: CulledGroup, matrices: Float32Array): GroupCulling | null {
  // A stand-in renderer (unit tests) has no context to draw with.
  if (!renderer || typeof renderer.getContext !== 'function' || !renderer.capabilities) return null;
  const gl = renderer.getContext() as WebGL2RenderingContext;
  const rows = matrices.length / (MATRIX_TEXTURE_WIDTH * 4);
  if (rows > renderer.capabilities.maxTextureSize || typeof gl.bufferSubData !== 'function' || !cullingPatchFits()) return null;
  const slots = group.ids.length;
  const buffer = gl.createBuffer();
  if (!buffer) return null;
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, slots * 4, gl.DYNAMIC_DRAW);
  const attribute = new SlotListAttribute(buffer, gl.FLOAT, 1, 4, slots);
  const culling: GroupCulling = {
    gl,
    texture: matrixTexture(matrices),
    buffer,
    bufferSlots: slots,
    attribute,
    version: 0,
    entries: [],
    uploaded: null,
    dirtyRows: new Uint8Array(rows),
    dirtyCount: 0,
    dirtyFirst: Infinity,
    dirtyLast: -1,
    maxRows: renderer.capabilities.maxTextureSize,
    textureReady: false,
    stamp: 0,
    stats: { passes: 0, culls: 0, drawn: 0, cullMs: 0 },
  };
  for (let i = 0; i < ENTRIES; i++) {
    culling.entries.push({
      key: new Float32Array(16),
      version: -1,
      planes: new Float32Array(24),
      slots: new Float32Array(0),
      bits: new Uint8Array(0),
      bitsMade: false,
      n: 0,
      used: 0,
      changed: true,
    });
  }
  return culling;
}

/** Hooks a group's mesh into culling (called for each mesh once the group's culling exists). */
export function cullMesh(world: { render: { instanceCulling: boolean } }, group: CulledGroup, mesh: InstancedMesh): void {
  const culling = group.culling;
  if (!culling) return;
  for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) patchMaterialForCulling(material);
  if (!Array.isArray(mesh.material)) {
    const { depth, distance } = shadowMaterialsFor(mesh.material);
    mesh.customDepthMaterial = depth;
    mesh.customDistanceMaterial = distance;
  }
  const slots = culling.attribute as unknown as InstancedMesh['instanceColor'];
  mesh.instanceColor = slots;
  const restore = () => {
    mesh.count = group.count;
    mesh.instanceColor = group.culling ? slots : null;
  };
  mesh.onBeforeRender = (renderer, _scene, camera, _geometry, material) => beforeDraw(renderer, world, group, mesh, camera, material);
  mesh.onBeforeShadow = (renderer, _object, _camera, shadowCamera, _geometry, depthMaterial) =>
    beforeDraw(renderer, world, group, mesh, shadowCamera, depthMaterial);
  mesh.onAfterRender = restore;
  mesh.onAfterShadow = restore;
}

// Scratch.
const clip = new Matrix4();
const frustum = new Frustum();

function beforeDraw(
  renderer: WebGLRenderer,
  world: { render: { instanceCulling: boolean } },
  group: CulledGroup,
  mesh: InstancedMesh,
  camera: Camera,
  material: Material,
): void {
  const culling = group.culling;
  if (!culling || !world.render.instanceCulling || !readsSlots(material)) {
    // Every slot through instanceMatrix, as a plain InstancedMesh draws, and no slot list where a
    // colour would be read.
    mesh.count = group.count;
    mesh.instanceColor = null;
    return;
  }
  if (culling.dirtyCount > 0) queueRows(culling);
  clip.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse).multiply(mesh.matrixWorld);
  const entry = listFor(culling, group, clip, camera);
  if (culling.uploaded !== entry || entry.changed) {
    const gl = culling.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, culling.buffer);
    if (entry.n > 0) gl.bufferSubData(gl.ARRAY_BUFFER, 0, entry.slots, 0, entry.n);
    culling.uploaded = entry;
    entry.changed = false;
  }
  mesh.count = entry.n;
  culling.stats.passes++;
  culling.stats.drawn += entry.n;
  MATRICES_UNIFORM.value = culling.texture;
  // Bound, so uploaded (whole the first time), by this draw's uniforms.
  culling.textureReady = true;
  // Another group of the same asset may have drawn last with this program and material: three
  // uploads a material's uniforms again only when its program or material changes, so unbind the
  // program to have this group's texture bound.
  renderer.state.useProgram(null as unknown as WebGLProgram);
}

/** The pass's list: a kept one when the pass and the group are as they were, else a new cull into the oldest entry. */
function listFor(culling: GroupCulling, group: CulledGroup, m: Matrix4, camera: Camera): CullEntry {
  const e = m.elements;
  const version = culling.version;
  let oldest = culling.entries[0]!;
  for (const entry of culling.entries) {
    if (entry.version === version && sameKey(entry.key, e)) {
      entry.used = ++culling.stamp;
      return entry;
    }
    if (entry.used < oldest.used) oldest = entry;
  }
  const started = performance.now();
  const entry = oldest;
  for (let i = 0; i < 16; i++) entry.key[i] = e[i]!;
  entry.version = version;
  entry.used = ++culling.stamp;
  entry.changed = true;
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
  entry.n = group.bvh.cull(entry.planes, count, group.ids, entry.slots);
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
  for (const entry of culling.entries) {
    if (entry.version !== culling.version) continue;
    if (!entry.bitsMade) markListed(entry, group.ids.length);
    const bit = 1 << (slot & 7);
    if ((entry.bits[slot >> 3]! & bit) !== 0) continue;
    if (!group.bvh.inside(entry.planes, slot)) continue;
    if (entry.n >= entry.slots.length) {
      // No room (it lists every slot already, moved ones appended): cull again at its next pass.
      entry.version = -1;
      continue;
    }
    entry.slots[entry.n++] = slot;
    entry.bits[slot >> 3]! |= bit;
    entry.changed = true;
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
    gl.bindBuffer(gl.ARRAY_BUFFER, culling.buffer);
    gl.bufferData(gl.ARRAY_BUFFER, slots * 4, gl.DYNAMIC_DRAW);
    culling.bufferSlots = slots;
    culling.attribute.count = slots;
  }
  culling.uploaded = null;
  culling.version++;
}

/** Bytes the group's pass lists keep on the JS side (the texture shares the group's matrices). */
export function cullingBytes(group: CulledGroup): number {
  let bytes = 0;
  for (const entry of group.culling?.entries ?? []) bytes += entry.slots.byteLength + entry.bits.byteLength + 160;
  return bytes;
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
  culling.gl.deleteBuffer(culling.buffer);
  group.culling = null;
}
