import { Vector3 } from 'three';
import { enqueueMessage, onMessage } from '../engine/messages';
import type { ViewerWorld } from '../engine/world';
import { HOST_FUNCTION_NAMES, HOST_FUNCTIONS, type HostEventName, type HostFunctionName, type HostParsedArgs, type HostResult } from '../protocol/host-api';
import type { AnnotationStore } from './annotations';
import type { Viewer } from './viewer';
import { createCameraFunctions } from './viewer-api/camera';
import { createLookups, type Lookups } from './viewer-api/lookups';
import { createMaterialFunctions } from './viewer-api/materials';
import { createNodeFunctions } from './viewer-api/nodes';
import { createOverlayFunctions } from './viewer-api/overlays';
import { createSceneFunctions } from './viewer-api/scene';
import { createToolFunctions } from './viewer-api/tools';

export { FIT_PADDING_DEFAULT } from './viewer-api/camera';
export { CAMERA_STOP_FRAMES, MAX_HOTSPOTS } from './viewer-api/overlays';

/**
 * The host API's functions on a running viewer (src/protocol/host-api.ts lists them with their
 * schemas), composed of one part per job in src/viewer/viewer-api/: lookups, camera (and
 * pictures), nodes, materials and textures, tools, scene (settings, quality, animations) and
 * overlays (hotspots, camera start/stop, annotations). Each request is queued as a scene message
 * and applied by the message system at its slot of the frame, never between two systems; the ECS
 * is the truth (Transform, Visibility, the view pose). Outward events come from the viewer's one
 * emitter and from one 'overlays' frame step.
 */

export type Impl = { [F in HostFunctionName]: (args: HostParsedArgs<F>) => HostResult<F> | Promise<HostResult<F>> };
export type Vec3T = [number, number, number];

/** Runs one checked request (the transport, src/api/host-api.ts, calls it once the viewer is ready). */
export type Execute = (func: HostFunctionName, args: unknown) => Promise<unknown>;

/**
 * What the functions need of the host-page API's transport (src/api/host-api.ts's HostApi is one):
 * declared here, so the viewer does not import the layer above it.
 */
export interface HostEvents {
  /** Whether any page listens (so event producers can skip their work). */
  readonly listening: boolean;
  /** An api.event to every page that called api.init and may hear events. */
  emit(event: HostEventName, data: unknown): void;
}

export interface ViewerApiOptions {
  viewer: Viewer;
  api: HostEvents;
  /** The viewer's container (annotation pins are drawn over its canvas). */
  container: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Where annotations are kept (default: in memory, for this page only). */
  annotations?: AnnotationStore;
  /**
   * The annotations are the scene's comments (src/api/comments.ts): the viewer's comment pins
   * draw them (no label pins here), a pin's click is 'annotation.click', and gotoAnnotation opens
   * the comment's whole view (camera, section planes, measurements) through `open`.
   */
  comments?: { open(id: string, transition: boolean): Promise<boolean> };
  /** Keeps the token a host page hands over (setAuthToken; src/api/host-auth.ts). Absent: the function says this viewer cannot. */
  auth?: { set(token: string | null): Promise<HostResult<'setAuthToken'>> };
}

export interface ViewerApi {
  execute: Execute;
  /** Runs a function directly (tests); the host's requests go through `execute`. */
  readonly functions: Impl;
  dispose(): void;
}

/** What every part of the functions is made with. */
export interface ApiContext {
  readonly options: ViewerApiOptions;
  readonly viewer: Viewer;
  readonly world: ViewerWorld;
  readonly api: HostEvents;
  readonly lookups: Lookups;
  /** Frame steps, handlers and listeners to remove on dispose. */
  readonly disposers: (() => void)[];
}

const MESSAGE_TYPE = 'host-api';

/** Functions that only read and draw nothing: answered without waiting for the frame when nothing of the host's is queued. */
export const IMMEDIATE: ReadonlySet<HostFunctionName> = new Set(
  HOST_FUNCTION_NAMES.filter((name) => HOST_FUNCTIONS[name].access === 'read' && name !== 'screenshot' && name !== 'renderOffscreenFrame'),
);

const v1 = new Vector3();

export function createViewerApi(options: ViewerApiOptions): ViewerApi {
  const { viewer, api } = options;
  const { world } = viewer;
  const ctx: ApiContext = { options, viewer, world, api, lookups: createLookups(world), disposers: [] };
  const { disposers } = ctx;

  const camera = createCameraFunctions(ctx);
  const nodes = createNodeFunctions(ctx);
  const materials = createMaterialFunctions(ctx);
  const overlays = createOverlayFunctions(ctx, camera);
  const functions: Impl = {
    ...camera.functions,
    ...nodes.functions,
    ...materials.functions,
    ...createToolFunctions(ctx),
    ...createSceneFunctions(ctx),
    ...overlays.functions,
    setAuthToken: ({ token }) => {
      if (!options.auth) throw new Error('This viewer saves nothing as a person: it has no model service to check a token with.');
      return options.auth.set(token);
    },
  };

  // ---- outward events from the viewer's one emitter -----------------------------------------
  const on = viewer.events.on.bind(viewer.events);
  const emit = (event: HostEventName, data: unknown) => api.listening && api.emit(event, data);
  disposers.push(
    on('hit', (hit) => {
      const data = {
        position: [hit.point.x, hit.point.y, hit.point.z],
        normal: [hit.normal.x, hit.normal.y, hit.normal.z],
        distance: world.render.camera ? world.render.camera.position.distanceTo(v1.set(hit.point.x, hit.point.y, hit.point.z)) : 0,
        modelId: hit.modelId,
        nodeId: hit.nodeId,
        nodeName: hit.nodeName,
        materialId: hit.materialId,
        material: hit.materialName,
        instanceId: hit.instanceId,
      };
      emit('raycast', data);
      emit('selection', { modelId: hit.modelId, nodeId: hit.nodeId });
    }),
    on('background-hit', (e) => {
      const rect = options.canvas.getBoundingClientRect();
      emit('background.click', { x: e.clientX - rect.left, y: e.clientY - rect.top });
      emit('selection', { modelId: null, nodeId: null });
    }),
    on('animation', (e) => emit('animation', e)),
    on('measurement', (m) => emit('measurement', { action: m.action, id: m.id, kind: m.kind, value: m.value, label: m.label, points: m.points.map((p) => [p.x, p.y, p.z]) })),
    on('section', (s) => emit('section', { action: s.action, id: s.id, normal: [s.normal.x, s.normal.y, s.normal.z], constant: s.constant })),
    on('tool', (t) => emit('tool', t)),
    on('navigation', (n) => emit('navigation', n)),
  );

  // ---- requests: queued, applied by the message system ---------------------------------------
  disposers.push(
    onMessage(world, MESSAGE_TYPE, (_world, payload) => {
      const { func, args } = payload as { func: HostFunctionName; args: unknown };
      return (functions[func] as (a: unknown) => unknown)(args);
    }),
  );
  // Reads that only look (no picture drawn) are answered at once when no request of the host is
  // waiting in the queue: a message event never runs inside a frame, so they see the state the last
  // frame left. Behind a queued request they queue too, so a read after a change sees the change.
  let queued = 0;
  const execute: Execute = (func, args) => {
    if (queued === 0 && IMMEDIATE.has(func)) {
      try {
        return Promise.resolve((functions[func] as (a: unknown) => unknown)(args));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    queued++;
    return new Promise((resolve, reject) => {
      enqueueMessage(world, {
        source: 'host',
        type: MESSAGE_TYPE,
        payload: { func, args },
        reply: (result, error) => {
          queued--;
          if (error) reject(error);
          else Promise.resolve(result).then(resolve, reject);
        },
      });
    });
  };

  return {
    execute,
    functions,
    dispose() {
      for (const d of disposers.splice(0)) d();
      nodes.dispose();
      overlays.dispose();
      materials.dispose();
    },
  };
}
