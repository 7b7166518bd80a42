import { BufferAttribute, BufferGeometry, Matrix4, Vector3, type Camera, type Texture, type WebGLProgramParametersWithUniforms } from 'three';
import { MATRICES_UNIFORM, patchMaterialForCulling, SLOT_MATRIX_GLSL } from './instance-culling-shaders';
import type { InstanceImpostor } from './instances';

/**
 * The impostor's cards (src/protocol/asset-levels.ts), drawn by vertex pulling: a culled group's
 * instances at the impostor level are one draw of CARDS_PER_DRAW cards an instance of the draw
 * (cardBatchGeometry), each card finding its slot in the group's card list (a texture of the
 * pass's slots, CARD_SLOTS_UNIFORM, CARD_COUNT_UNIFORM of them) by its number, and its matrix in
 * the group's matrix texture. Drawn as one instance a card, a million cards cost a million
 * instances, and an instance of four vertices is what GPUs (SwiftShader most: about 23 µs each)
 * draw worst.
 *
 * Each card turns to the camera about the asset's bounding sphere (scaled by the instance), and
 * picks the atlas tile whose direction is nearest the one the instance is seen from, in the
 * instance's own frame (a turned instance shows its other side). The card's corners are written in
 * the group's space (the camera's place and axes there are uniforms, CARD_VIEW, set per draw:
 * setCardView), with instanceMatrix the identity, so everything after (projection, fog, clipping,
 * shadow lookups) treats them as the mesh's own vertices and no vertex inverts a matrix; the
 * instance's frame is its matrix without shear, so its transpose over its columns' squared
 * lengths is its inverse. Its normal faces the camera, and the tile's
 * normal map (the asset's normals as seen from that side) bends it as the asset's surface is, so the
 * scene's lights shade the card as they would the asset. Cards past the count (the last draw
 * instance's rest) are put outside the clip volume.
 */

/** Cards one instance of the cards' draw holds (1,000,000 cards: 977 instances). */
export const CARDS_PER_DRAW = 1024;
/** The pass's card list, set before each cards' draw (src/engine/instance-culling.ts). */
export const CARD_SLOTS_UNIFORM = { value: null as Texture | null };
/** How many cards the list holds. */
export const CARD_COUNT_UNIFORM = { value: 0 };
/** The drawing camera in the group's space: its place, and its right, up and back axes (unit length). */
export const CARD_VIEW = {
  cardCamera: { value: new Vector3() },
  cardRight: { value: new Vector3() },
  cardUp: { value: new Vector3() },
  cardBack: { value: new Vector3() },
};

const groupInverse = new Matrix4();

/** Sets CARD_VIEW for a draw of a group (its world matrix `groupMatrix`) seen by `camera`. */
export function setCardView(camera: Camera, groupMatrix: Matrix4): void {
  groupInverse.copy(groupMatrix).invert();
  const m = camera.matrixWorld;
  CARD_VIEW.cardCamera.value.setFromMatrixPosition(m).applyMatrix4(groupInverse);
  CARD_VIEW.cardRight.value.setFromMatrixColumn(m, 0).transformDirection(groupInverse);
  CARD_VIEW.cardUp.value.setFromMatrixColumn(m, 1).transformDirection(groupInverse);
  CARD_VIEW.cardBack.value.setFromMatrixColumn(m, 2).transformDirection(groupInverse);
}

/** What the cards' program is compiled with (its defines): programs are shared by this key alone. */
const impostorKey = (impostor: InstanceImpostor) =>
  `impostor cards ${impostor.columns} ${impostor.elevations.length} ${impostor.geometry.getAttribute('position').count}`;

const batches = new WeakMap<BufferGeometry, BufferGeometry>();

/**
 * The geometry the cards' draw uses: the impostor's quad CARDS_PER_DRAW times over (its attributes
 * repeated, its indices offset), shared by every group of the asset.
 */
export function cardBatchGeometry(impostor: InstanceImpostor): BufferGeometry {
  const card = impostor.geometry;
  let batch = batches.get(card);
  if (batch) return batch;
  const vertices = card.getAttribute('position').count;
  const index = card.index ? Array.from(card.index.array) : Array.from({ length: vertices }, (_, i) => i);
  batch = new BufferGeometry();
  batch.name = `${card.name || 'impostor'} (cards)`;
  for (const [name, attribute] of Object.entries(card.attributes)) {
    // The card's own values, de-interleaved (GLTFLoader keeps a glTF's interleaved buffer views so);
    // getComponent and setComponent (de)normalise a quantised attribute's values alike.
    const size = attribute.itemSize;
    const own = new BufferAttribute(new (attribute.array.constructor as Float32ArrayConstructor)(vertices * size), size, attribute.normalized);
    for (let i = 0; i < vertices; i++) for (let c = 0; c < size; c++) own.setComponent(i, c, attribute.getComponent(i, c));
    const one = own.array;
    const many = new (attribute.array.constructor as Float32ArrayConstructor)(one.length * CARDS_PER_DRAW);
    for (let k = 0; k < CARDS_PER_DRAW; k++) many.set(one, k * one.length);
    batch.setAttribute(name, new BufferAttribute(many, size, attribute.normalized));
  }
  const total = vertices * CARDS_PER_DRAW;
  const indices = total > 65535 ? new Uint32Array(index.length * CARDS_PER_DRAW) : new Uint16Array(index.length * CARDS_PER_DRAW);
  for (let k = 0; k < CARDS_PER_DRAW; k++) for (let i = 0; i < index.length; i++) indices[k * index.length + i] = index[i]! + k * vertices;
  batch.setIndex(new BufferAttribute(indices, 1));
  batches.set(card, batch);
  card.addEventListener('dispose', () => {
    batch!.dispose();
    batches.delete(card);
  });
  return batch;
}

/** Patches the impostor's material (once: every group of the asset shares it) to draw pulled cards. */
export function patchImpostorMaterial(impostor: InstanceImpostor): void {
  const centre = new Vector3(...impostor.center);
  const elevations = impostor.elevations.slice();
  const cardVertices = impostor.geometry.getAttribute('position').count;
  patchMaterialForCulling(impostor.material, {
    key: impostorKey(impostor),
    alone: true,
    patch(shader: WebGLProgramParametersWithUniforms) {
      shader.uniforms.instanceMatrices = MATRICES_UNIFORM;
      shader.uniforms.cardSlots = CARD_SLOTS_UNIFORM;
      shader.uniforms.cardCount = CARD_COUNT_UNIFORM;
      Object.assign(shader.uniforms, CARD_VIEW);
      shader.uniforms.impostorCentre = { value: centre };
      shader.uniforms.impostorRadius = { value: impostor.radius };
      shader.uniforms.impostorElevations = { value: elevations };
      shader.vertexShader = shader.vertexShader
        .replace(
          '#include <common>',
          `#include <common>
#ifdef USE_INSTANCING
  #define IMPOSTOR_COLUMNS ${impostor.columns.toFixed(1)}
  #define IMPOSTOR_ROWS ${elevations.length}
  #define CARDS_PER_DRAW ${CARDS_PER_DRAW}
  #define CARD_VERTICES ${cardVertices}
  ${SLOT_MATRIX_GLSL}
  uniform highp sampler2D cardSlots;
  uniform int cardCount;
  uniform vec3 impostorCentre;
  uniform float impostorRadius;
  uniform float impostorElevations[ IMPOSTOR_ROWS ];
  uniform vec3 cardCamera;
  uniform vec3 cardRight;
  uniform vec3 cardUp;
  uniform vec3 cardBack;
  mat4 cardMatrix;
  int cardNumber;
  // The corners are in the group's space already.
  #define instanceMatrix mat4( 1.0 )
#endif`,
        )
        .replace(
          'void main() {',
          `void main() {
#ifdef USE_INSTANCING
  {
    cardNumber = gl_InstanceID * CARDS_PER_DRAW + gl_VertexID / CARD_VERTICES;
    int listed = min( cardNumber, cardCount - 1 );
    int listWidth = textureSize( cardSlots, 0 ).x;
    cardMatrix = slotMatrix( int( texelFetch( cardSlots, ivec2( listed % listWidth, listed / listWidth ), 0 ).r ) );
  }
#endif`,
        )
        .replace(
          '#include <normal_vertex>',
          `#ifdef USE_INSTANCING
  transformedNormal = vec3( 0.0, 0.0, 1.0 );
#endif
#include <normal_vertex>`,
        )
        .replace(
          '#include <begin_vertex>',
          `#include <begin_vertex>
#ifdef USE_INSTANCING
  {
    vec3 centre = ( cardMatrix * vec4( impostorCentre, 1.0 ) ).xyz;
    mat3 frame = mat3( cardMatrix );
    vec3 squared = vec3( dot( frame[ 0 ], frame[ 0 ] ), dot( frame[ 1 ], frame[ 1 ] ), dot( frame[ 2 ], frame[ 2 ] ) );
    float scale = sqrt( max( squared.x, max( squared.y, squared.z ) ) );
    transformed = centre + ( cardRight * position.x + cardUp * position.y ) * ( 2.0 * impostorRadius * scale );
    // The inverse of the instance's frame (rotation and scale, no shear) applied to the view direction.
    vec3 seen = normalize( ( ( isOrthographic ? cardBack : cardCamera - centre ) * frame ) / max( squared, vec3( 1e-20 ) ) );
    float column = mod( floor( atan( seen.x, seen.z ) / ( 6.28318530718 / IMPOSTOR_COLUMNS ) + 0.5 ), IMPOSTOR_COLUMNS );
    float elevation = degrees( asin( clamp( seen.y, -1.0, 1.0 ) ) );
    float row = 0.0;
    float nearest = 1e9;
    for ( int r = 0; r < IMPOSTOR_ROWS; r++ ) {
      float off = abs( elevation - impostorElevations[ r ] );
      if ( off < nearest ) {
        nearest = off;
        row = float( r );
      }
    }
    vec2 tile = ( uv + vec2( column, row ) ) / vec2( IMPOSTOR_COLUMNS, float( IMPOSTOR_ROWS ) );
    #ifdef USE_MAP
      vMapUv = tile;
    #endif
    #ifdef USE_NORMALMAP
      vNormalMapUv = tile;
    #endif
  }
#endif`,
        )
        .replace(
          '#include <fog_vertex>',
          `#include <fog_vertex>
#ifdef USE_INSTANCING
  // The last draw instance's cards past the list: outside the clip volume, so never drawn.
  if ( cardNumber >= cardCount ) gl_Position = vec4( 0.0, 0.0, 2.0, 1.0 );
#endif`,
        );
    },
  });
}
