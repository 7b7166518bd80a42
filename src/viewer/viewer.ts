import type CameraControls from 'camera-controls';
import type { Material, Mesh, Object3D, Texture } from 'three';
import { PIPELINE, runPipeline } from '../../systems';
import { createRenderContext, resizeRenderContext, type RenderContext } from '../engine/renderer';
import { syncObjectMatrices } from '../engine/sync';
import { advanceTime, createViewerWorld, type ModelRecord, type ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import type { SceneDoc } from '../protocol/scene';
import { createModelLoader, type ModelLoader } from '../scene/gltf';
import { loadSceneModels, mark, type LoadProgress, type LoadSceneResult, type ModelFailure } from '../scene/load-scene';
import { transformSystem } from '../../systems/transformSystem';
import { attachAnimationEvents, listAnimations, type AnimationInfo } from './animation';
import { createNavigation, frameObjects } from './navigation';

export interface ViewerOptions {
  canvas: HTMLCanvasElement;
  /** The element whose size the canvas follows and that receives pointer input. */
  container: HTMLElement;
  antialias?: boolean;
  pixelRatio?: number;
  /** Called when the frame loop throws: the viewer stops drawing and reports. */
  onFatal?: (error: Error) => void;
}

export interface ModelSummary {
  modelId: string;
  name: string;
  /** glTF nodes of the default scene registered by nodeId. */
  nodes: number;
  /** Drawable objects (one per primitive and node; an instanced mesh counts once). */
  meshes: number;
  materials: number;
  textures: number;
  animations: AnimationInfo[];
  entities: number;
}

export interface Viewer {
  world: ViewerWorld;
  context: RenderContext;
  controls: CameraControls;
  loadScene(
    config: ClientConfig,
    scene: SceneDoc,
    callbacks?: { onProgress?: (p: LoadProgress) => void; onModelError?: (f: ModelFailure) => void; signal?: AbortSignal },
  ): Promise<LoadSceneResult>;
  /** Frames every loaded model. */
  frame(enableTransition?: boolean): Promise<void>;
  /** Resolves after the next frame was drawn. */
  nextFrame(): Promise<void>;
  summary(): ModelSummary[];
  dispose(): void;
}

/**
 * The viewer engine on a canvas: world, renderer, navigation, the frame loop running PIPELINE,
 * and scene loading. The UI (src/ui) drives it and shows its state.
 */
export function createViewer(options: ViewerOptions): Viewer {
  const world = createViewerWorld();
  const context = createRenderContext(world, {
    canvas: options.canvas,
    antialias: options.antialias,
    pixelRatio: options.pixelRatio,
  });
  // Detect compressed texture formats before the GPU gets busy: the queries are synchronous.
  const loader: ModelLoader = createModelLoader(context.renderer);
  context.useRoomEnvironment();
  mark('context');
  const controls = createNavigation(world, context.camera, options.container);
  let drawnWaiters: (() => void)[] = [];
  let stopped = false;

  const resize = () => {
    const rect = options.container.getBoundingClientRect();
    resizeRenderContext(world, context, Math.round(rect.width), Math.round(rect.height));
  };
  resize();
  const observer = new ResizeObserver(resize);
  observer.observe(options.container);

  context.renderer.setAnimationLoop((now) => {
    if (stopped) return;
    try {
      const before = world.stats.renderedFrames;
      advanceTime(world, now);
      runPipeline(world, PIPELINE);
      if (drawnWaiters.length && world.stats.renderedFrames > before) {
        const waiters = drawnWaiters;
        drawnWaiters = [];
        for (const resolve of waiters) resolve();
      }
    } catch (error) {
      stopped = true;
      context.renderer.setAnimationLoop(null);
      options.onFatal?.(error instanceof Error ? error : new Error(String(error)));
    }
  });

  const viewer: Viewer = {
    world,
    context,
    controls,
    async loadScene(config, scene, callbacks = {}) {
      const result = await loadSceneModels(world, config, scene, {
        loader,
        onModel: (record) => {
          attachAnimationEvents(world, record);
          context.scene.add(record.root);
        },
        onProgress: callbacks.onProgress,
        onModelError: callbacks.onModelError,
        signal: callbacks.signal,
      });
      if (result.loaded.length > 0) {
        await viewer.frame(false);
        mark('framed');
        await warmUp(context, result.loaded);
        mark('compiled');
      }
      return result;
    },
    async frame(enableTransition = false) {
      // Bring world matrices up to date now rather than at the next frame.
      transformSystem(world);
      syncObjectMatrices(world);
      const roots: Object3D[] = [];
      for (const record of world.models.values()) roots.push(record.root);
      const radius = await frameObjects(controls, context.camera, roots, enableTransition);
      if (radius > 0) fitShadowCamera(context, controls, radius);
      world.render.needsRender = true;
    },
    nextFrame() {
      world.render.needsRender = true;
      return new Promise((resolve) => drawnWaiters.push(resolve));
    },
    summary() {
      return [...world.models.values()].map(summarize);
    },
    dispose() {
      stopped = true;
      observer.disconnect();
      context.renderer.setAnimationLoop(null);
      controls.dispose();
      loader.dispose();
      context.dispose();
    },
  };
  return viewer;
}

function summarize(record: ModelRecord): ModelSummary {
  let meshes = 0;
  record.root.traverse((o) => {
    if ((o as Mesh).isMesh) meshes++;
  });
  return {
    modelId: record.modelId,
    name: record.name,
    nodes: record.nodes.size,
    meshes,
    materials: record.materials.size,
    textures: record.textures.size,
    animations: listAnimations(record),
    entities: record.entities.length,
  };
}

/**
 * Uploads textures and compiles materials before the first frame, one per task, so that the
 * first frame is not one long task that freezes the page (WebGL uploads and, without
 * KHR_parallel_shader_compile, program links are synchronous).
 */
async function warmUp(context: RenderContext, records: ModelRecord[]): Promise<void> {
  const textures = new Set<Texture>();
  const byMaterial = new Map<Material, Object3D>();
  for (const record of records) {
    for (const texture of record.textures.values()) textures.add(texture);
    record.root.traverse((o) => {
      const material = (o as Mesh).material;
      if (!material) return;
      for (const m of Array.isArray(material) ? material : [material]) if (!byMaterial.has(m)) byMaterial.set(m, o);
    });
  }
  for (const texture of textures) {
    context.renderer.initTexture(texture);
    await yieldToMain();
  }
  for (const object of byMaterial.values()) {
    try {
      await context.renderer.compileAsync(object, context.camera, context.scene);
    } catch (error) {
      // Precompiling is an optimisation; a shader that fails reports its error when drawn.
      console.warn('Shader precompilation failed:', error);
    }
    await yieldToMain();
  }
}

function yieldToMain(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Points the sun's shadow camera at the framed scene. */
function fitShadowCamera(context: RenderContext, controls: CameraControls, radius: number): void {
  const target = controls.getTarget(context.sun.target.position);
  context.sun.position.set(target.x + radius * 1.5, target.y + radius * 3, target.z + radius * 2);
  context.sun.target.updateMatrixWorld();
  const cam = context.sun.shadow.camera;
  cam.left = cam.bottom = -radius * 1.2;
  cam.right = cam.top = radius * 1.2;
  cam.near = 0.01;
  cam.far = radius * 8;
  cam.updateProjectionMatrix();
}
