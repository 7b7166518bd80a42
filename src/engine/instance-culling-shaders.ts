import {
  MeshDepthMaterial,
  MeshDistanceMaterial,
  ShaderChunk,
  ShaderLib,
  type DataTexture,
  type Material,
  type WebGLProgramParametersWithUniforms,
} from 'three';

/**
 * The shader side of per-instance culling (src/engine/instance-culling.ts): the patch that makes an
 * asset material's instanced programs read the slot list and fetch each instance's matrix from the
 * group's matrix texture, the culled shadow materials, and the check that three's shaders still
 * have the lines the patch hooks into.
 */

/** The uniform every patched program reads the group's matrices from; set before each culled draw. */
export const MATRICES_UNIFORM = { value: null as DataTexture | null };

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

/**
 * GLSL, at the vertex shader's top level: the group's matrix texture (set before each culled draw,
 * MATRICES_UNIFORM) and `slotMatrix( slot )`, a slot's matrix from it (4 texels a slot). Every
 * program that reads instance matrices from the texture declares it so: the slot list's and the
 * impostor's cards (./instance-impostor.ts).
 */
export const SLOT_MATRIX_GLSL = `uniform highp sampler2D instanceMatrices;
  mat4 slotMatrix( int slot ) {
    int texel = slot * 4;
    int width = textureSize( instanceMatrices, 0 ).x;
    ivec2 at = ivec2( texel % width, texel / width );
    return mat4( texelFetch( instanceMatrices, at, 0 ), texelFetch( instanceMatrices, at + ivec2( 1, 0 ), 0 ), texelFetch( instanceMatrices, at + ivec2( 2, 0 ), 0 ), texelFetch( instanceMatrices, at + ivec2( 3, 0 ), 0 ) );
  }`;

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
  ${SLOT_MATRIX_GLSL}
  mat4 culledInstanceMatrix;
  #define instanceMatrix culledInstanceMatrix
#endif`,
    )
    .replace(
      'void main() {',
      `void main() {
#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  culledInstanceMatrix = slotMatrix( int( instanceColor.x ) );
#endif`,
    )
    .replace('#include <color_vertex>', ShaderChunk.color_vertex.replace(COLOUR_LINE, ''));
  // The slot list turned USE_COLOR on; without vertex colours there is no colour to multiply by
  // (a varying and a multiply per fragment saved).
  if (!shader.vertexColors) shader.fragmentShader = shader.fragmentShader.replace('#include <color_fragment>', '');
}

/**
 * Makes `material`'s instanced programs read the slot list (once; its other programs are
 * unchanged); `extend` patches the shaders further after that, under its own program cache key,
 * or (`alone`) instead of it: the impostor's pulled cards (./instance-impostor.ts) find their
 * slots their own way.
 */
export function patchMaterialForCulling(
  material: Material,
  extend?: { patch: (shader: WebGLProgramParametersWithUniforms) => void; key: string; alone?: boolean },
): void {
  if (patched.has(material)) return;
  patched.add(material);
  material.onBeforeCompile = extend
    ? extend.alone
      ? extend.patch
      : (shader) => {
          patchForCulling(shader);
          extend.patch(shader);
        }
    : patchForCulling;
  const key = extend ? `${KEY} ${extend.key}` : KEY;
  material.customProgramCacheKey = () => key;
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
