import type CameraControls from 'camera-controls';
import type { Mesh, Object3D } from 'three';
import { PIPELINE, runPipeline } from '../../systems';
import { createRenderContext, resizeRenderContext, type RenderContext } from '../engine/renderer';
import { syncObjectMatrices } from '../engine/sync';
import { advanceTime, createViewerWorld, type ModelRecord, type ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import type { SceneDoc } from '../protocol/scene';
import { createModelLoader, type ModelLoader } from '../scene/gltf';
import { loadSceneModels, type LoadProgress, type LoadSceneResult, type ModelFailure } from '../scene/load-scene';
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
  const controls = createNavigation(world, context.camera, options.container);
  let loader: ModelLoader | null = null;
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
      loader ??= createModelLoader(context.renderer);
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
        await compileScene(context);
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
      loader?.dispose();
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

/** Uploads shaders and textures before the first frame, so the first frame is not one long task. */
async function compileScene(context: RenderContext): Promise<void> {
  try {
    await context.renderer.compileAsync(context.scene, context.camera);
  } catch (error) {
    // Compilation is an optimisation; a failure here shows up (with its reason) at draw time.
    console.warn('Shader precompilation failed:', error);
  }
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
