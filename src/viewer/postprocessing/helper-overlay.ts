import {
  AlwaysDepth,
  BufferAttribute,
  BufferGeometry,
  Mesh,
  OrthographicCamera,
  ShaderMaterial,
  Uniform,
  type Camera,
  type Object3D,
  type Scene,
  type Texture,
  type WebGLRenderer,
} from 'three';
import { HELPER_LAYER } from '../../engine/layers';

/**
 * Helpers (layer 15: section plane handles, measurement and snap markers, gizmos) are drawn after
 * the post-processing, straight onto the screen, so they never get ambient occlusion, bloom,
 * reflections, vignette or colour fringes, and never cast AO onto the model. The scene pass of
 * the composer leaves layer 15 out; this overlay then
 *  1. copies the scene's depth (the composer's depth texture) into the screen's depth buffer with
 *     one depth-only full-screen triangle, so models still hide the helpers behind them, and
 *  2. draws the scene with the camera on layer 15 only, without background and without updating
 *     shadow maps.
 * Nothing is drawn (not even the depth copy) while the scene has no visible object on layer 15.
 */
export interface HelperOverlay {
  /** Whether a visible object of the scene is on the helper layer. */
  hasHelpers(scene: Scene): boolean;
  draw(renderer: WebGLRenderer, scene: Scene, camera: Camera, depthTexture: Texture | null): boolean;
  dispose(): void;
}

const HELPER_MASK = 1 << HELPER_LAYER;

function anyHelper(object: Object3D): boolean {
  if (!object.visible) return false;
  if ((object.layers.mask & HELPER_MASK) !== 0) {
    const renderable = object as Object3D & { isMesh?: boolean; isLine?: boolean; isPoints?: boolean; isSprite?: boolean };
    if (renderable.isMesh || renderable.isLine || renderable.isPoints || renderable.isSprite) return true;
  }
  const children = object.children;
  for (let i = 0; i < children.length; i++) if (anyHelper(children[i])) return true;
  return false;
}

export function createHelperOverlay(): HelperOverlay {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), 3));
  geometry.setAttribute('uv', new BufferAttribute(new Float32Array([0, 0, 2, 0, 0, 2]), 2));
  const material = new ShaderMaterial({
    name: 'HelperOverlay.DepthCopy',
    uniforms: { sceneDepth: new Uniform<Texture | null>(null) },
    vertexShader: /* glsl */ `
      varying vec2 vUv;
      void main() {
        vUv = uv;
        gl_Position = vec4(position.xy, 0.0, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      uniform highp sampler2D sceneDepth;
      varying vec2 vUv;
      void main() {
        gl_FragDepth = texture2D(sceneDepth, vUv).r;
        gl_FragColor = vec4(0.0);
      }`,
    colorWrite: false,
    depthWrite: true,
    depthTest: true,
    depthFunc: AlwaysDepth,
    toneMapped: false,
  });
  const quad = new Mesh(geometry, material);
  quad.frustumCulled = false;
  const quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);

  return {
    hasHelpers: anyHelper,
    draw(renderer, scene, camera, depthTexture) {
      if (!anyHelper(scene)) return false;
      const shadowMap = renderer.shadowMap;
      const saved = {
        mask: camera.layers.mask,
        background: scene.background,
        autoClear: renderer.autoClear,
        autoUpdate: shadowMap.autoUpdate,
        needsUpdate: shadowMap.needsUpdate,
      };
      renderer.autoClear = false;
      renderer.setRenderTarget(null);
      if (depthTexture) {
        material.uniforms.sceneDepth.value = depthTexture;
        renderer.render(quad, quadCamera);
      }
      camera.layers.set(HELPER_LAYER);
      scene.background = null;
      shadowMap.autoUpdate = false;
      shadowMap.needsUpdate = false;
      try {
        renderer.render(scene, camera);
      } finally {
        camera.layers.mask = saved.mask;
        scene.background = saved.background;
        renderer.autoClear = saved.autoClear;
        shadowMap.autoUpdate = saved.autoUpdate;
        shadowMap.needsUpdate = saved.needsUpdate;
      }
      return true;
    },
    dispose() {
      geometry.dispose();
      material.dispose();
    },
  };
}
