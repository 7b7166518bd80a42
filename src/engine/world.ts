import { addEntity, createWorld, removeEntity, type World } from 'bitecs';
import type { AnimationAction, AnimationClip, AnimationMixer, Camera, Material, Object3D, Scene, Texture, WebGLRenderer } from 'three';
import { MAX_ENTITIES } from '../../components';
import { SHADOW_MAP_SIZE } from '../protocol/scene-settings';
import type { InstanceGroupRecord } from './instances';
import { createModelBatches, type ModelBatches } from './model-batches';
import { createMovingCasters, type MovingCasters } from './moving-casters';
import { createTriangleBudget, type TriangleBudget } from './triangle-budget';
import { createViewPose, type ViewPose } from './view-pose';

/** Anything the navigation slot of the frame drives; `update` returns true when the camera moved. */
export interface FrameControls {
  update(delta: number): boolean;
}

/** One animation of a loaded model (viewer specification: name default 'animation_N'). */
export interface AnimationEntry {
  /** Stable id within the model: the glTF animation index as a string. */
  id: string;
  name: string;
  clip: AnimationClip;
  action: AnimationAction | null;
}

/**
 * Everything the engine knows about one loaded model that is not numeric: the side maps from the
 * specification's stable ids to entities and resources, and the animation mixer.
 */
export interface ModelRecord {
  eid: number;
  modelId: string;
  /** The model's scene name: its sourceFileName. */
  name: string;
  root: Object3D;
  /** nodeId -> eid (written through src/engine/stable-ids.ts, which keeps both directions). */
  nodes: Map<string, number>;
  /** eid -> nodeId */
  nodeIds: Map<number, string>;
  /** primitiveId -> eid */
  primitives: Map<string, number>;
  /** materialId -> material */
  materials: Map<string, Material>;
  /** material -> materialId */
  materialIds: Map<Material, string>;
  /** textureId -> texture */
  textures: Map<string, Texture>;
  animations: AnimationEntry[];
  mixer: AnimationMixer | null;
  /** Eids of nodes written by animation tracks (copied back into Transform while playing). */
  animated: Uint32Array;
  /** Every eid of the model, root first, parents before children. */
  entities: Uint32Array;
  /** Set when the animated pose must be copied once more although nothing is playing. */
  syncPose: boolean;
}

export type AnimationEventType = 'start' | 'stop' | 'pause' | 'resume' | 'finish' | 'loop';

export interface AnimationEvent {
  modelId: string;
  animationName: string;
  eventType: AnimationEventType;
  isPlaying: boolean;
  time: number;
  weight: number;
  duration: number;
  loop: boolean;
}

/**
 * Per-frame work of a viewer part that is not an entity (coalesced pointer work, helper objects
 * that follow the view, DOM labels, the orientation gizmo): registered by the part with
 * addFrameStep (src/engine/frame-steps.ts) and run by the frame at its slot, never scheduled
 * anywhere else. A step allocates nothing per frame.
 */
export interface FrameStep {
  readonly name: string;
  run(world: ViewerWorld): void;
}

/**
 * Where a step runs: 'input' first, 'helpers' before the picture is drawn, 'afterDraw' right after
 * the render system drew a picture (only in those frames: GL drawn over it, such as the editor's
 * selection outline; screenshots draw without it), 'overlays' after the render system every frame.
 */
export type FrameSlot = 'input' | 'helpers' | 'afterDraw' | 'overlays';

/**
 * A change to the scene from outside the page's own input (the host page's window messages, a
 * meeting socket): queued when it arrives, applied by the message system at its slot in the frame
 * (src/engine/messages.ts).
 */
export interface SceneMessage {
  /** Who sent it: 'host' (window message), 'meeting' (socket), ... */
  readonly source: string;
  /** The handler's name (registered with onMessage). */
  readonly type: string;
  readonly payload: unknown;
  /** Called with the handler's result, or with an Error when it threw or no handler exists. */
  readonly reply?: (result: unknown, error: Error | null) => void;
}

export type MessageHandler = (world: ViewerWorld, payload: unknown, message: SceneMessage) => unknown;

/**
 * Where a scene's shadows are on their way in (src/engine/shadow-reveal.ts): `phase` one of
 * SHADOW_REVEAL (idle, first picture pending, held, maps, fading); `frame` the rendered-frame count
 * the phase waits to see pass; `start` the time (ms, as world.time.then) the phase's wait counts
 * from (the first picture for the maps' delay, the maps' frame for the fade).
 */
export interface ShadowReveal {
  phase: number;
  frame: number;
  start: number;
}

export interface ViewerContext {
  time: { delta: number; elapsed: number; frame: number; then: number };
  /** eid -> Object3D; `object.userData.eid` points back. Written only by src/engine/registry.ts. */
  objects: (Object3D | undefined)[];
  render: {
    renderer: WebGLRenderer | null;
    scene: Scene | null;
    camera: Camera | null;
    /**
     * Set by anything that changes the scene outside the ECS (resize, material edit, ...): the next
     * picture draws the shadow maps again too.
     */
    needsRender: boolean;
    /**
     * Set by what changes the picture but no shadow caster and no light's shadow (water's waves, the
     * adaptive tone mapping, the shadows' fade in, a gizmo's highlight, the magnifier, comment pins,
     * the selection outline, the editor's helpers, measurements' lines): the next picture keeps the
     * shadow maps unless `needsRender` asks too. Both wait out a hold.
     */
    needsPicture: boolean;
    /** Optional replacement for renderer.render (the post-processing composer of a later issue). */
    draw: ((delta: number) => void) | null;
    /**
     * While above 0 nothing is drawn (needsRender stays set): a scene being loaded is drawn once,
     * framed and with its textures and shaders ready, not also half-loaded and unframed before.
     */
    hold: number;
    /**
     * Instanced asset groups draw only the instances inside each pass's frustum
     * (src/engine/instance-culling.ts); false draws every instance in every pass, as a plain
     * InstancedMesh does (for comparing pictures and benchmarks).
     */
    instanceCulling: boolean;
    /**
     * Culled groups draw each instance at the level of detail its projected size chooses
     * (src/engine/instance-levels.ts); false draws every one at full detail (for comparing pictures).
     */
    instanceLevels: boolean;
    /**
     * Triangles the picture's passes of the frame being drawn gave to instances at a level finer
     * than their coarsest (what a higher bias could still take away; shadow passes left out, their
     * levels follow their maps): counted by src/engine/instance-culling.ts, read by the render system.
     */
    instanceFinerTriangles: number;
    /** The tier's triangle budget and the level bias it keeps (src/engine/triangle-budget.ts). */
    budget: TriangleBudget;
    /**
     * Set by what changed only moving casters (a playing animation's nodes, src/engine/moving-casters.ts):
     * the next picture draws their shadows over the static casters' kept depth, not every caster again.
     */
    needsCasterShadows: boolean;
    /** For the shadow-map update of the frame being drawn: moving casters only (set by the render system). */
    casterShadowsOnly: boolean;
    /** The moving casters of playing models (src/engine/moving-casters.ts). */
    movingCasters: MovingCasters;
    /** Moving casters' shadows drawn over the static casters' kept depth; false draws every shadow update whole (for comparing pictures). */
    splitShadows: boolean;
    /** Models' static meshes drawn through one batch per material (src/engine/model-batches.ts). */
    batches: ModelBatches;
  };
  navigation: { controls: FrameControls | null };
  /**
   * Shadows by quality tier: the sun's map size, and whether point lights may cast (the shadow budget
   * reads it); `reveal`: shadows that arrive after a scene's first picture (src/engine/shadow-reveal.ts).
   */
  shadows: { sunMapSize: number; pointLights: boolean; reveal: ShadowReveal };
  /** The view: `moved` is true for the frame in which the camera moved; `version` counts those frames. */
  camera: { moved: boolean; version: number };
  /** The view's pose (eye, target, orientation, projection), written only by the navigation: src/engine/view-pose.ts. */
  view: ViewPose;
  /** Steps of viewer parts by slot (src/engine/frame-steps.ts). */
  steps: Record<FrameSlot, FrameStep[]>;
  /** Scene messages waiting for the message system, and their handlers by type. */
  messages: { queue: SceneMessage[]; handlers: Map<string, MessageHandler> };
  /**
   * Entities whose Visibility or Shadows changed since the sync system last ran (src/engine/object-flags.ts):
   * `flagged[eid]` is 1 while eid is in `dirty[0..count)`.
   */
  flags: { dirty: Uint32Array; count: number; flagged: Uint8Array };
  /** Points of measurements (xyz triples, world space) by eid: src/engine/measurement-data.ts. */
  measurementPoints: Map<number, Float64Array>;
  transform: {
    /** Transform entities sorted by depth: parents before children. */
    order: Uint32Array;
    count: number;
    /** Bumped by every spawn, despawn and reparent; the order is rebuilt when it changes. */
    version: number;
    builtVersion: number;
    /** Set by markTransformDirty; the transform system skips its pass when false. */
    anyDirty: boolean;
    /** Number of world matrices the last transform system run changed. */
    changed: number;
    /**
     * Bumped by every transform system run that sets or clears worldChanged flags: a reader that
     * saw epoch E and now finds E + 1 with `changed > 0` may read the flags of exactly the runs it missed.
     */
    epoch: number;
  };
  models: Map<number, ModelRecord>;
  /** Instanced asset groups by their entity (src/engine/instances.ts). */
  instanceGroups: Map<number, InstanceGroupRecord>;
  animation: {
    /** Global speed scaling every mixer; never below ANIMATION_SPEED_MIN. */
    speed: number;
    listeners: Set<(event: AnimationEvent) => void>;
  };
  stats: { renderedFrames: number; lastRenderMs: number; drawCalls: number; triangles: number };
}

export type ViewerWorld = World<ViewerContext>;

/** A fresh world. bitecs 0.4 starts ids at 1, so eid 0 means "none" everywhere. */
export function createViewerWorld(): ViewerWorld {
  return createWorld<ViewerContext>({
    time: { delta: 0, elapsed: 0, frame: 0, then: 0 },
    objects: [],
    render: {
      renderer: null,
      scene: null,
      camera: null,
      needsRender: true,
      needsPicture: false,
      draw: null,
      hold: 0,
      instanceCulling: true,
      instanceLevels: true,
      instanceFinerTriangles: 0,
      budget: createTriangleBudget(),
      needsCasterShadows: false,
      casterShadowsOnly: false,
      movingCasters: createMovingCasters(),
      splitShadows: true,
      batches: createModelBatches(),
    },
    navigation: { controls: null },
    shadows: { sunMapSize: SHADOW_MAP_SIZE, pointLights: true, reveal: { phase: 0, frame: 0, start: 0 } },
    camera: { moved: false, version: 0 },
    view: createViewPose(),
    steps: { input: [], helpers: [], afterDraw: [], overlays: [] },
    messages: { queue: [], handlers: new Map() },
    flags: { dirty: new Uint32Array(256), count: 0, flagged: new Uint8Array(MAX_ENTITIES) },
    measurementPoints: new Map(),
    transform: { order: new Uint32Array(1024), count: 0, version: 0, builtVersion: -1, anyDirty: false, changed: 0, epoch: 0 },
    models: new Map(),
    instanceGroups: new Map(),
    animation: { speed: 1, listeners: new Set() },
    stats: { renderedFrames: 0, lastRenderMs: 0, drawCalls: 0, triangles: 0 },
  });
}

/**
 * Whether this frame's render system draws a picture: something asked (`needsRender`,
 * `needsPicture`) or the camera moved, and no load holds the picture. The shadow reveal asks it too,
 * to know which frame carries the first picture.
 */
export function pictureDue(world: ViewerWorld): boolean {
  const r = world.render;
  return r.hold === 0 && (r.needsRender || r.needsPicture || r.needsCasterShadows || world.camera.moved);
}

/** Allocates an entity, refusing to go past the component arrays' capacity. */
export function addViewerEntity(world: ViewerWorld): number {
  const eid = addEntity(world);
  if (eid >= MAX_ENTITIES) {
    // Give the id back: an entity past the arrays' end must not stay alive in the world.
    removeEntity(world, eid);
    throw new Error(`The scene has more than ${MAX_ENTITIES - 1} entities, which this viewer cannot hold.`);
  }
  return eid;
}

/** Advances world.time; `now` in milliseconds (performance.now or the rAF timestamp). */
export function advanceTime(world: ViewerWorld, now: number): void {
  const t = world.time;
  // Clamp long pauses (a background tab) so animations do not jump.
  t.delta = t.frame === 0 ? 0 : Math.min(Math.max(now - t.then, 0), 100) / 1000;
  t.then = now;
  t.elapsed += t.delta;
  t.frame++;
}
