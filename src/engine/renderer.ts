import {
  ACESFilmicToneMapping,
  AmbientLight,
  Color,
  DirectionalLight,
  PCFShadowMap,
  PerspectiveCamera,
  PMREMGenerator,
  Scene,
  SRGBColorSpace,
  WebGLRenderer,
  type WebGLRenderTarget,
} from 'three';
import { AMBIENT_INTENSITY, CAMERA_FAR, CAMERA_FOV, CAMERA_NEAR, DIRECTIONAL_INTENSITY, SCENE_BACKGROUND } from '../protocol/constants';
import { HELPER_LAYER } from './layers';
import { createStudioScene } from './studio-environment';
import type { ViewerWorld } from './world';

export interface RenderContextOptions {
  canvas: HTMLCanvasElement;
  /** Multisampled antialiasing of the default framebuffer (the quality tiers turn it on for low). */
  antialias?: boolean;
  /** Device pixel ratio to render at (the quality tiers choose 1, 1.5 or min(device, 2)). */
  pixelRatio?: number;
  /** Keep the drawing buffer for readbacks (tests, screenshots); costs some speed. */
  preserveDrawingBuffer?: boolean;
}

export interface RenderContext {
  renderer: WebGLRenderer;
  scene: Scene;
  camera: PerspectiveCamera;
  sun: DirectionalLight;
  ambient: AmbientLight;
  /**
   * Lights PBR materials with a neutral studio, prefiltered on the GPU into a cube of `size`
   * pixels per face (at most 256). Call it after any synchronous WebGL queries (extension
   * detection): with a software GPU those would otherwise wait for the prefiltering to finish.
   */
  useStudioEnvironment(size?: number): void;
  dispose(): void;
}

/**
 * The WebGL2 renderer, scene and camera of the viewer specification: shadow map on, local clipping
 * on, camera fov 45 / near 0.1 / far 2000, dark blue background, ambient 0.5 and a directional sun of intensity 1. The camera sees the helper
 * layer 15; screenshots and picking leave it out. Stored in world.render.
 */
export function createRenderContext(world: ViewerWorld, options: RenderContextOptions): RenderContext {
  const renderer = new WebGLRenderer({
    canvas: options.canvas,
    antialias: options.antialias ?? false,
    alpha: true,
    powerPreference: 'high-performance',
    preserveDrawingBuffer: options.preserveDrawingBuffer ?? false,
  });
  if (!renderer.capabilities.isWebGL2) throw new Error('This viewer needs WebGL2, which this browser does not offer.');
  renderer.setPixelRatio(options.pixelRatio ?? Math.min(globalThis.devicePixelRatio ?? 1, 2));
  renderer.outputColorSpace = SRGBColorSpace;
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = PCFShadowMap;
  renderer.localClippingEnabled = true;

  const scene = new Scene();
  scene.background = new Color(SCENE_BACKGROUND);
  let envTarget: WebGLRenderTarget | null = null;

  const ambient = new AmbientLight(0xffffff, AMBIENT_INTENSITY);
  ambient.name = 'Ambient light';
  const sun = new DirectionalLight(0xffffff, DIRECTIONAL_INTENSITY);
  sun.name = 'Sun';
  sun.castShadow = true;
  sun.shadow.bias = -0.001;
  scene.add(ambient, sun, sun.target);

  const camera = new PerspectiveCamera(CAMERA_FOV, 1, CAMERA_NEAR, CAMERA_FAR);
  camera.layers.enable(HELPER_LAYER);

  world.render.renderer = renderer;
  world.render.scene = scene;
  world.render.camera = camera;
  world.render.needsRender = true;

  return {
    renderer,
    scene,
    camera,
    sun,
    ambient,
    useStudioEnvironment(size = 256) {
      if (envTarget) return;
      const pmrem = new SizedPMREMGenerator(renderer, size);
      const studio = createStudioScene();
      envTarget = pmrem.fromScene(studio.scene, 0.04);
      studio.dispose();
      pmrem.dispose();
      scene.environment = envTarget.texture;
      scene.environmentIntensity = 0.8;
      world.render.needsRender = true;
    },
    dispose() {
      envTarget?.dispose();
      renderer.dispose();
      world.render.renderer = null;
      world.render.scene = null;
      world.render.camera = null;
    },
  };
}

/**
 * A PMREMGenerator whose scene cube may be smaller than three's 256-pixel minimum. Prefiltering
 * (256 GGX samples per texel of the sharp levels) is the largest single piece of GPU work before
 * the first frame; a 128-pixel cube costs about a quarter of it. `_setSize` is three's (0.187)
 * internal sizing step; tests/unit/engine/renderer-environment.test.ts fails if it goes away.
 */
export class SizedPMREMGenerator extends PMREMGenerator {
  constructor(
    renderer: WebGLRenderer,
    private readonly faceSize: number,
  ) {
    super(renderer);
  }

  /** @internal three's sizing step, given the requested size: keep ours (a power of two, 16 to 256). */
  _setSize(): void {
    const size = 2 ** Math.round(Math.log2(Math.min(256, Math.max(16, this.faceSize))));
    (this as unknown as { _cubeSize: number })._cubeSize = size;
  }
}

/** Resizes the drawing buffer and the camera to a CSS size in pixels. */
export function resizeRenderContext(world: ViewerWorld, ctx: RenderContext, width: number, height: number): void {
  if (width <= 0 || height <= 0) return;
  ctx.renderer.setSize(width, height, false);
  ctx.camera.aspect = width / height;
  ctx.camera.updateProjectionMatrix();
  world.render.needsRender = true;
}
