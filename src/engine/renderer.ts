import {
  ACESFilmicToneMapping,
  AmbientLight,
  Color,
  DirectionalLight,
  PCFShadowMap,
  PerspectiveCamera,
  Scene,
  SRGBColorSpace,
  WebGLRenderer,
  type Texture,
} from 'three';
import { AMBIENT_INTENSITY, CAMERA_FAR, CAMERA_FOV, CAMERA_NEAR, DIRECTIONAL_INTENSITY, SCENE_BACKGROUND } from '../protocol/constants';
import { HELPER_LAYER } from './layers';
import { ensureShadowPasses } from './moving-casters';
import type { ViewerWorld } from './world';

/** The studio's strength as the scene's environment. */
const STUDIO_INTENSITY = 0.8;

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
   * pixels per face (at most 256) as soon as its chunk is in. Call it after any synchronous WebGL
   * queries (extension detection): with a software GPU those would otherwise wait for the
   * prefiltering to finish.
   *
   * With `prefiltered` (the studio prefiltered at build time, src/engine/prefiltered-cube.ts),
   * nothing is prefiltered here: the cube becomes the environment when it arrives. If it fails,
   * a warning says why and the studio is prefiltered on the GPU after all (the same picture).
   */
  useStudioEnvironment(size?: number, prefiltered?: Promise<Texture>): void;
  /** Resolves once the studio is the scene's environment (rejects only if its chunk cannot be loaded). */
  environmentReady(): Promise<void>;
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
  ensureShadowPasses(renderer, world);

  const scene = new Scene();
  scene.background = new Color(SCENE_BACKGROUND);
  let studio: { dispose(): void } | null = null;
  let studioReady: Promise<void> = Promise.resolve();
  let disposed = false;

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
    useStudioEnvironment(size = 256, prefiltered) {
      if (studio) return;
      const use = (texture: Texture) => {
        // The studio is the default: an environment set meanwhile (scene settings) stays.
        if (scene.environment !== null) return;
        scene.environment = texture;
        scene.environmentIntensity = STUDIO_INTENSITY;
        world.render.needsRender = true;
      };
      // The studio's scene and its GPU prefiltering are a chunk of their own: the low tier uses the
      // cube prefiltered at build time and never needs them.
      const prefilterHere = async () => {
        const { prefilterStudioOnGpu } = await import('./studio-environment');
        if (disposed) return;
        const target = prefilterStudioOnGpu(renderer, size);
        studio = target;
        use(target.texture);
      };
      studio = { dispose: () => undefined };
      studioReady = prefiltered
        ? prefiltered.then(
            (texture) => {
              if (disposed) {
                texture.dispose();
                return;
              }
              studio = texture;
              use(texture);
            },
            (error: Error) => {
              if (disposed) return;
              console.warn(`The prefiltered studio environment could not be used (${error.message}); prefiltering it on this device instead.`);
              return prefilterHere();
            },
          )
        : prefilterHere();
      // The load reports a failure as a notice; this says why where no load waits for it.
      studioReady.catch((error: Error) => console.error('The studio environment could not be made:', error));
    },
    environmentReady: () => studioReady,
    dispose() {
      disposed = true;
      studio?.dispose();
      renderer.dispose();
      world.render.renderer = null;
      world.render.scene = null;
      world.render.camera = null;
    },
  };
}

/** Resizes the drawing buffer and the camera to a CSS size in pixels. */
export function resizeRenderContext(world: ViewerWorld, ctx: RenderContext, width: number, height: number): void {
  if (width <= 0 || height <= 0) return;
  ctx.renderer.setSize(width, height, false);
  ctx.camera.aspect = width / height;
  ctx.camera.updateProjectionMatrix();
  world.render.needsRender = true;
}
