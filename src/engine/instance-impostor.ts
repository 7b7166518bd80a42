import { Vector3, type WebGLProgramParametersWithUniforms } from 'three';
import { patchMaterialForCulling } from './instance-culling-shaders';
import type { InstanceImpostor } from './instances';

/**
 * The impostor's card (src/protocol/asset-levels.ts): its material's instanced program, after the
 * culling patch has fetched the instance's matrix, turns the unit quad to the camera about the
 * asset's bounding sphere (scaled by the instance), and picks the atlas tile whose direction is
 * nearest the one the instance is seen from, in the instance's own frame (a turned instance shows
 * its other side). The card's corners are written back as asset-space positions, so everything
 * after (projection, fog, clipping, shadow lookups) treats them as the mesh's own vertices; its
 * normal faces the camera, and the tile's normal map (the asset's normals as seen from that
 * side) bends it as the asset's surface is, so the scene's lights shade the card as they would the
 * asset.
 */

const impostorKey = (impostor: InstanceImpostor) => `impostor ${impostor.columns} ${impostor.elevations.length}`;

/** Patches the impostor's material (once: every group of the asset shares it). */
export function patchImpostorMaterial(impostor: InstanceImpostor): void {
  const centre = new Vector3(...impostor.center);
  const elevations = impostor.elevations.slice();
  patchMaterialForCulling(impostor.material, {
    key: impostorKey(impostor),
    patch(shader: WebGLProgramParametersWithUniforms) {
      shader.uniforms.impostorCentre = { value: centre };
      shader.uniforms.impostorRadius = { value: impostor.radius };
      shader.uniforms.impostorElevations = { value: elevations };
      shader.vertexShader = shader.vertexShader
        .replace(
          '#include <common>',
          `#include <common>
#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  #define IMPOSTOR_COLUMNS ${impostor.columns.toFixed(1)}
  #define IMPOSTOR_ROWS ${elevations.length}
  uniform vec3 impostorCentre;
  uniform float impostorRadius;
  uniform float impostorElevations[ IMPOSTOR_ROWS ];
#endif`,
        )
        .replace(
          '#include <normal_vertex>',
          `#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  transformedNormal = vec3( 0.0, 0.0, 1.0 );
#endif
#include <normal_vertex>`,
        )
        .replace(
          '#include <begin_vertex>',
          `#include <begin_vertex>
#if defined( USE_INSTANCING ) && defined( USE_INSTANCING_COLOR )
  {
    mat4 placed = modelMatrix * instanceMatrix;
    vec3 centre = ( placed * vec4( impostorCentre, 1.0 ) ).xyz;
    float scale = max( length( placed[ 0 ].xyz ), max( length( placed[ 1 ].xyz ), length( placed[ 2 ].xyz ) ) );
    vec3 right = vec3( viewMatrix[ 0 ][ 0 ], viewMatrix[ 1 ][ 0 ], viewMatrix[ 2 ][ 0 ] );
    vec3 up = vec3( viewMatrix[ 0 ][ 1 ], viewMatrix[ 1 ][ 1 ], viewMatrix[ 2 ][ 1 ] );
    vec3 back = vec3( viewMatrix[ 0 ][ 2 ], viewMatrix[ 1 ][ 2 ], viewMatrix[ 2 ][ 2 ] );
    vec3 corner = centre + ( right * position.x + up * position.y ) * ( 2.0 * impostorRadius * scale );
    transformed = ( inverse( placed ) * vec4( corner, 1.0 ) ).xyz;
    vec3 seen = normalize( inverse( mat3( placed ) ) * ( isOrthographic ? back : cameraPosition - centre ) );
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
        );
    },
  });
}
