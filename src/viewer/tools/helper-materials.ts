import {
  Color,
  DoubleSide,
  MeshStandardMaterial,
  ShaderMaterial,
  type Material,
  type Object3D,
} from 'three';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { HELPER_LAYER } from '../../engine/layers';

/**
 * Materials of the tools' helpers and caps.
 *
 * Section planes go into renderer.clippingPlanes (global clipping, so everything drawn and picked
 * is cut). Helpers must not be cut: a measurement on a part that a plane removed stays readable,
 * the plane's own square and gizmo sit exactly on (or across) the plane. three.js has no per-material
 * opt-out of global planes, so helper materials drop the fragment clipping chunk at compile time
 * (onBeforeCompile; a distinct program cache key keeps the programs apart). Caps are cut by every
 * plane except their own: their chunk skips one plane index (a uniform), see createCapMaterial.
 */
const CLIP_CHUNK = '#include <clipping_planes_fragment>';

export function exemptFromClipping<M extends Material>(material: M): M {
  material.onBeforeCompile = (shader) => {
    shader.fragmentShader = shader.fragmentShader.replace(CLIP_CHUNK, '');
  };
  material.customProgramCacheKey = () => 'tools-helper-noclip';
  return material;
}

/** Puts an object tree on the helper layer (pictures and the picker leave it out). */
export function onHelperLayer<T extends Object3D>(object: T): T {
  object.traverse((o) => o.layers.set(HELPER_LAYER));
  return object;
}

/** A screen-constant line drawn over the model (no depth test), not clipped. */
export function createLineMaterial(color: number, width: number, dashed = false): LineMaterial {
  const material = new LineMaterial({
    color,
    linewidth: width,
    worldUnits: false,
    dashed,
    dashSize: 6,
    gapSize: 4,
    depthTest: false,
    depthWrite: false,
    transparent: true,
  });
  return exemptFromClipping(material);
}

/**
 * Round screen-constant point markers (a disc with a dark rim), drawn over the model, not clipped.
 * `size` in CSS pixels; the vertex shader scales by the renderer's pixel ratio (uniform).
 */
export function createPointMaterial(color: number, size: number): ShaderMaterial {
  const material = new ShaderMaterial({
    name: 'Tools.PointMarker',
    uniforms: { color: { value: new Color(color) }, size: { value: size }, pixelRatio: { value: 1 } },
    vertexShader: /* glsl */ `
      uniform float size;
      uniform float pixelRatio;
      void main() {
        gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
        gl_PointSize = size * pixelRatio;
      }`,
    fragmentShader: /* glsl */ `
      uniform vec3 color;
      void main() {
        vec2 c = gl_PointCoord * 2.0 - 1.0;
        float r = dot(c, c);
        if (r > 1.0) discard;
        vec3 rim = vec3(0.05, 0.08, 0.12);
        gl_FragColor = vec4(r > 0.55 ? rim : color, 1.0);
        #include <colorspace_fragment>
      }`,
    depthTest: false,
    depthWrite: false,
    transparent: true,
    // No clipping chunk in the shader: never cut by section planes.
    clipping: false,
  });
  // Sizes are CSS pixels: the pixel ratio is the renderer's at each draw (quality changes and
  // screenshots change it after the marker was made).
  material.onBeforeRender = (renderer) => {
    material.uniforms.pixelRatio.value = renderer.getPixelRatio();
  };
  return material;
}

/** A flat translucent fill (section plane squares, area fills), double sided, not clipped. */
export function createFillMaterial(color: number, opacity: number, depthTest = true): ShaderMaterial {
  return new ShaderMaterial({
    name: 'Tools.Fill',
    uniforms: { color: { value: new Color(color) }, opacity: { value: opacity } },
    vertexShader: /* glsl */ `
      void main() {
        gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      uniform vec3 color;
      uniform float opacity;
      void main() {
        gl_FragColor = vec4(color, opacity);
        #include <colorspace_fragment>
      }`,
    side: DoubleSide,
    transparent: true,
    depthTest,
    depthWrite: false,
    clipping: false,
  });
}

/** A section plane's fill away from its border: this share of the plane's opacity (the border band has all of it). */
export const PLANE_INTERIOR_SHARE = 0.3;
/** Width of the plane's border band, as a share of its side. */
export const PLANE_BAND = 0.06;

/**
 * A section plane's fill: the plane's colour at its full opacity in a band along the border (the
 * plane reads as a plane, its extent clear) and at PLANE_INTERIOR_SHARE of it inside, so what lies
 * behind the plane is tinted no more than needed to see that it is there. On a unit square (uv 0..1),
 * double sided, not clipped.
 */
export function createPlaneFillMaterial(color: number, opacity: number): ShaderMaterial {
  return new ShaderMaterial({
    name: 'Tools.PlaneFill',
    uniforms: { color: { value: new Color(color) }, opacity: { value: opacity }, interior: { value: PLANE_INTERIOR_SHARE }, band: { value: PLANE_BAND } },
    vertexShader: /* glsl */ `
      varying vec2 vUv;
      void main() {
        vUv = uv;
        gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      uniform vec3 color;
      uniform float opacity;
      uniform float interior;
      uniform float band;
      varying vec2 vUv;
      void main() {
        float edge = min(min(vUv.x, 1.0 - vUv.x), min(vUv.y, 1.0 - vUv.y));
        float a = edge < band ? opacity : opacity * interior;
        gl_FragColor = vec4(color, a);
        #include <colorspace_fragment>
      }`,
    side: DoubleSide,
    transparent: true,
    depthWrite: false,
    clipping: false,
  });
}

/** Black or white, whichever stands out more against `color` (the hatch and cut outline of a cap). */
export function contrastingColor(color: Color, out = new Color()): Color {
  // Relative luminance of the linear colour.
  const luminance = 0.2126 * color.r + 0.7152 * color.g + 0.0722 * color.b;
  return luminance > 0.18 ? out.setRGB(0.02, 0.02, 0.03) : out.setRGB(0.92, 0.92, 0.92);
}

/** Hatch lines of a cap: one every CAP_HATCH_SPACING CSS pixels, CAP_HATCH_WIDTH wide, at 45 degrees on screen. */
export const CAP_HATCH_SPACING = 9;
export const CAP_HATCH_WIDTH = 1.6;

/**
 * The material of a cap: the cut mesh's colour, lit, with a 45° hatch in a contrasting colour (a cut
 * reads as a cut, not as a face), double sided, cut by every section plane but the one it lies on (`skipPlane` = that plane's index in renderer.clippingPlanes, kept current by
 * the section tool). GLSL ES 3.0 allows the loop's dynamic index into the uniform array.
 */
export function createCapMaterial(color: Color): MeshStandardMaterial & { userData: { skipPlane: { value: number }; hatchColor: { value: Color } } } {
  const material = new MeshStandardMaterial({ color, side: DoubleSide, roughness: 0.85, metalness: 0 });
  const skipPlane = { value: -1 };
  const hatchColor = { value: contrastingColor(color) };
  const pixelRatio = { value: 1 };
  material.userData.skipPlane = skipPlane;
  material.userData.hatchColor = hatchColor;
  material.onBeforeRender = (renderer) => {
    pixelRatio.value = renderer.getPixelRatio();
  };
  material.onBeforeCompile = (shader) => {
    shader.uniforms.capSkipPlane = skipPlane;
    shader.uniforms.capHatchColor = hatchColor;
    shader.uniforms.capPixelRatio = pixelRatio;
    shader.fragmentShader = `uniform int capSkipPlane;\nuniform vec3 capHatchColor;\nuniform float capPixelRatio;\n${shader.fragmentShader}`
      .replace(
        '#include <color_fragment>',
        /* glsl */ `#include <color_fragment>
      {
        float spacing = ${CAP_HATCH_SPACING.toFixed(1)} * capPixelRatio;
        float along = mod(gl_FragCoord.x + gl_FragCoord.y, spacing);
        float line = 1.0 - smoothstep(${CAP_HATCH_WIDTH.toFixed(1)} * capPixelRatio * 0.5, ${CAP_HATCH_WIDTH.toFixed(1)} * capPixelRatio, abs(along - spacing * 0.5));
        diffuseColor.rgb = mix(diffuseColor.rgb, capHatchColor, 0.75 * line);
      }`,
      )
      .replace(
      CLIP_CHUNK,
      /* glsl */ `
      #if NUM_CLIPPING_PLANES > 0
        for (int i = 0; i < UNION_CLIPPING_PLANES; i++) {
          if (i == capSkipPlane) continue;
          vec4 capPlane = clippingPlanes[i];
          if (dot(vClipPosition, capPlane.xyz) > capPlane.w) discard;
        }
      #endif`,
    );
  };
  material.customProgramCacheKey = () => 'tools-section-cap-hatched';
  return material as MeshStandardMaterial & { userData: { skipPlane: { value: number }; hatchColor: { value: Color } } };
}
