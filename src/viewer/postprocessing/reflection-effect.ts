import { BlendFunction, Effect, EffectAttribute } from 'postprocessing';
import { Matrix4, Uniform, type Camera, type WebGLRenderer, type WebGLRenderTarget } from 'three';
import { RENDER_CONFIG_DEFAULTS } from '../../protocol/render-config';

/**
 * Screen-space reflections as a pmndrs/postprocessing Effect (postprocessing 6 has none, and the
 * maintained SSR packages on npm either target three's own EffectComposer or bring a G-buffer
 * pipeline of their own, which would not merge with our passes). Ours is one convolution effect,
 * so it shares an EffectPass with bloom and tone mapping and costs no pass of its own.
 *
 * Per pixel: the view-space position from the depth buffer, the normal from the depth of the
 * neighbouring pixels (the side with the smaller depth step, so silhouettes do not bend it), the
 * view ray reflected about it and marched in view space for `steps` steps up to `maxDistance`
 * scene units, starting at a per-pixel dithered offset (interleaved gradient noise, stable from
 * frame to frame), with steps growing quadratically (fine near the surface). A step that ends
 * behind the depth buffer by less than `thickness` is a hit; five bisection steps refine it. The
 * colour found there is mixed in with the weight intensity x Fresnel (Schlick, base reflectivity
 * 0.3) x fade at the screen border and towards the maximum distance.
 *
 * Limits (documented, not hidden): without material information in screen space every opaque
 * surface reflects alike, rough ones included, and nothing is blurred; what is off screen or
 * hidden cannot be reflected. Defaults: intensity 0.6, thickness 2, max distance 8, 25 steps
 * (viewer specification section 9).
 */

const fragmentShader = /* glsl */ `
uniform mat4 ssrProjection;
uniform mat4 ssrInverseProjection;
uniform float ssrIntensity;
uniform float ssrThickness;
uniform float ssrMaxDistance;
#define SSR_BASE_REFLECTIVITY 0.3

vec3 ssrViewPosition(const in vec2 screenUv, const in float screenDepth) {
  vec4 clip = vec4(vec3(screenUv, screenDepth) * 2.0 - 1.0, 1.0);
  vec4 view = ssrInverseProjection * clip;
  return view.xyz / view.w;
}

vec3 ssrViewAt(const in vec2 screenUv) {
  return ssrViewPosition(screenUv, readDepth(screenUv));
}

vec3 ssrNormal(const in vec2 screenUv, const in vec3 p) {
  vec3 right = ssrViewAt(screenUv + vec2(texelSize.x, 0.0));
  vec3 left = ssrViewAt(screenUv - vec2(texelSize.x, 0.0));
  vec3 up = ssrViewAt(screenUv + vec2(0.0, texelSize.y));
  vec3 down = ssrViewAt(screenUv - vec2(0.0, texelSize.y));
  vec3 dx = abs(right.z - p.z) < abs(p.z - left.z) ? right - p : p - left;
  vec3 dy = abs(up.z - p.z) < abs(p.z - down.z) ? up - p : p - down;
  return normalize(cross(dx, dy));
}

float ssrNoise(const in vec2 pixel) {
  return fract(52.9829189 * fract(dot(pixel, vec2(0.06711056, 0.00583715))));
}

vec2 ssrProject(const in vec3 v) {
  vec4 clip = ssrProjection * vec4(v, 1.0);
  return clip.xy / clip.w * 0.5 + 0.5;
}

void mainImage(const in vec4 inputColor, const in vec2 uv, const in float depth, out vec4 outputColor) {
  outputColor = inputColor;
  if (depth >= 0.99999 || ssrIntensity <= 0.0) return;

  vec3 p = ssrViewPosition(uv, depth);
  vec3 n = ssrNormal(uv, p);
  vec3 v = normalize(p);
  vec3 r = normalize(reflect(v, n));
  float cosTheta = clamp(dot(n, -v), 0.0, 1.0);

  // Steps grow quadratically: fine near the surface, where most contact reflections are.
  float jitter = ssrNoise(gl_FragCoord.xy);
  float t = 0.0;
  float previous = 0.0;
  bool hit = false;
  vec2 hitUv = uv;
  for (int i = 0; i < SSR_STEPS; i++) {
    float f = (float(i) + jitter) / float(SSR_STEPS);
    t = ssrMaxDistance * max(f * f, 1e-4);
    vec3 q = p + r * t;
    if (q.z > -cameraNear) break;
    vec2 s = ssrProject(q);
    if (s.x < 0.0 || s.x > 1.0 || s.y < 0.0 || s.y > 1.0) break;
    float sceneDepth = readDepth(s);
    if (sceneDepth < 0.99999) {
      float behind = ssrViewPosition(s, sceneDepth).z - q.z;
      if (behind > 0.0 && behind < ssrThickness) {
        float lo = previous;
        float hi = t;
        for (int j = 0; j < 5; j++) {
          float mid = 0.5 * (lo + hi);
          vec3 m = p + r * mid;
          vec2 ms = ssrProject(m);
          float d = ssrViewPosition(ms, readDepth(ms)).z - m.z;
          if (d > 0.0) hi = mid; else lo = mid;
        }
        hitUv = ssrProject(p + r * hi);
        t = hi;
        hit = true;
        break;
      }
    }
    previous = t;
  }
  if (!hit) return;

  vec3 reflected = texture2D(inputBuffer, hitUv).rgb;
  vec2 border = min(hitUv, 1.0 - hitUv);
  float edgeFade = smoothstep(0.0, 0.08, min(border.x, border.y));
  float distanceFade = 1.0 - smoothstep(0.6, 1.0, t / ssrMaxDistance);
  float fresnel = SSR_BASE_REFLECTIVITY + (1.0 - SSR_BASE_REFLECTIVITY) * pow(1.0 - cosTheta, 5.0);
  float weight = clamp(ssrIntensity * fresnel * edgeFade * distanceFade, 0.0, 1.0);
  outputColor = vec4(mix(inputColor.rgb, reflected, weight), inputColor.a);
}
`;

export interface ReflectionEffectOptions {
  /** Mix weight of the reflection before Fresnel and fades, 0..1. Default 0.6. */
  intensity?: number;
  /** Scene units behind a surface that still count as a hit. Default 2. */
  thickness?: number;
  /** Longest ray in scene units. Default 8. */
  maxDistance?: number;
  /** Ray-march steps; changing it recompiles the shader. Default 25. */
  steps?: number;
}

export class ReflectionEffect extends Effect {
  private readonly camera: Camera;

  constructor(camera: Camera, options: ReflectionEffectOptions = {}) {
    const d = RENDER_CONFIG_DEFAULTS.ssr;
    super('ReflectionEffect', fragmentShader, {
      blendFunction: BlendFunction.SRC,
      attributes: EffectAttribute.CONVOLUTION | EffectAttribute.DEPTH,
      defines: new Map([['SSR_STEPS', String(Math.round(options.steps ?? d.steps))]]),
      uniforms: new Map<string, Uniform>([
        ['ssrProjection', new Uniform(new Matrix4())],
        ['ssrInverseProjection', new Uniform(new Matrix4())],
        ['ssrIntensity', new Uniform(options.intensity ?? d.intensity)],
        ['ssrThickness', new Uniform(options.thickness ?? d.thickness)],
        ['ssrMaxDistance', new Uniform(options.maxDistance ?? d.maxDistance)],
      ]),
    });
    this.camera = camera;
  }

  get intensity(): number {
    return this.uniforms.get('ssrIntensity')!.value as number;
  }
  set intensity(value: number) {
    this.uniforms.get('ssrIntensity')!.value = value;
  }
  get thickness(): number {
    return this.uniforms.get('ssrThickness')!.value as number;
  }
  set thickness(value: number) {
    this.uniforms.get('ssrThickness')!.value = value;
  }
  get maxDistance(): number {
    return this.uniforms.get('ssrMaxDistance')!.value as number;
  }
  set maxDistance(value: number) {
    this.uniforms.get('ssrMaxDistance')!.value = value;
  }
  get steps(): number {
    return Number(this.defines.get('SSR_STEPS'));
  }
  set steps(value: number) {
    const v = String(Math.max(1, Math.round(value)));
    if (this.defines.get('SSR_STEPS') === v) return;
    this.defines.set('SSR_STEPS', v);
    this.setChanged();
  }

  override update(_renderer: WebGLRenderer, _inputBuffer: WebGLRenderTarget, _deltaTime?: number): void {
    (this.uniforms.get('ssrProjection')!.value as Matrix4).copy(this.camera.projectionMatrix);
    (this.uniforms.get('ssrInverseProjection')!.value as Matrix4).copy(this.camera.projectionMatrixInverse);
  }
}
