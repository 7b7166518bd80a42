import {
  DepthFormat,
  DepthTexture,
  UnsignedIntType,
  WebGLRenderTarget,
  type Light,
  type LightShadow,
  type Object3D,
  type SkinnedMesh,
  type WebGLRenderer,
} from 'three';
import { MAX_ENTITIES } from '../../components';
import { getEid } from './registry';
import { measureShadowPasses } from './triangle-budget';
import type { ViewerWorld } from './world';

/**
 * Shadows of what moves by itself (issue 35, item 3): a playing animation changes its model's
 * shadow every frame, and redrawing every shadow map whole for it would draw the whole scene's
 * casters again (a city of instances) each frame. A playing model's moving casters are its
 * animated nodes with what hangs below them and its skinned and morphing meshes
 * (MOVING_CASTER_LAYER, and `movingCasters.flagged` by entity); every other caster is static.
 * Each directional or spot light's shadow map then keeps a copy of the static casters' depth,
 * drawn when the scene changes (`needsRender`); a frame in which only moving casters changed
 * (`needsCasterShadows`, set by the animation mixer and the sync systems) copies that depth into
 * the map and draws the moving casters alone over it. The picture is the same: the same depth as
 * one pass over every caster writes. Point lights (cube maps) are drawn whole.
 * `world.render.splitShadows = false` draws every update whole (for comparing pictures).
 */

/** The layer moving casters are on besides their own (the shadow pass of moving casters draws this layer alone). */
export const MOVING_CASTER_LAYER = 14;

export interface MovingCasters {
  /** 1 for the entities that move by themselves (animated nodes and what hangs below them). */
  flagged: Uint8Array;
  /** The moving objects of each playing model and the entities flagged for them, by the model's entity. */
  models: Map<number, { objects: Object3D[]; eids: number[] }>;
  /** Frees the lights' static copies (set by splitMovingShadows; called once no model plays). */
  release: () => void;
}

export function createMovingCasters(): MovingCasters {
  return { flagged: new Uint8Array(MAX_ENTITIES), models: new Map(), release: () => undefined };
}

/**
 * Marks or unmarks a model's moving casters: the subtrees of its animated nodes, and its skinned
 * and morphing meshes (they change shape with no transform changing). The rest of the model stays
 * static. The shadow maps are drawn whole once (the static copy changes).
 */
export function setModelMoving(world: ViewerWorld, modelEid: number, moving: boolean): void {
  const casters = world.render.movingCasters;
  if (casters.models.has(modelEid) === moving) return;
  world.render.needsRender = true;
  if (!moving) {
    // By the entities recorded when marked: a model being removed has its objects unbound already.
    const marked = casters.models.get(modelEid)!;
    for (const object of marked.objects) object.layers.disable(MOVING_CASTER_LAYER);
    for (const eid of marked.eids) casters.flagged[eid] = 0;
    casters.models.delete(modelEid);
    if (casters.models.size === 0) casters.release();
    return;
  }
  const record = world.models.get(modelEid);
  if (!record) return;
  const found = new Set<Object3D>();
  const add = (object: Object3D) => void found.add(object);
  for (let i = 0; i < record.animated.length; i++) world.objects[record.animated[i]!]?.traverse(add);
  record.root.traverse((object) => {
    const mesh = object as SkinnedMesh;
    if (mesh.isSkinnedMesh || (mesh.morphTargetInfluences?.length ?? 0) > 0) object.traverse(add);
  });
  const objects = [...found];
  const eids: number[] = [];
  for (const object of objects) {
    object.layers.enable(MOVING_CASTER_LAYER);
    // An animated light moves shadows too, the static casters' with them: its moves stay changes
    // of the scene (every map drawn whole). Entity 0 is "none": never flagged.
    const eid = getEid(object);
    if (eid !== 0 && !(object as Light).isLight) {
      casters.flagged[eid] = 1;
      eids.push(eid);
    }
  }
  casters.models.set(modelEid, { objects, eids });
}

interface ShadowMapLike {
  enabled: boolean;
  autoUpdate: boolean;
  needsUpdate: boolean;
  render(lights: Light[], scene: Object3D, camera: Object3D): void;
}

type ShadowLight = Light & { shadow: LightShadow & { getViewportCount(): number } };

const wrapped = new WeakMap<ViewerWorld, object>();

/**
 * Wraps `renderer`'s shadow-map update (once for each of its shadow maps: three.js makes a new one
 * when a lost context is restored): the moving casters' own pass, counted with the rest by the
 * triangle budget's measure around it. The render system asks every frame (an identity check).
 */
export function ensureShadowPasses(renderer: WebGLRenderer, world: ViewerWorld): void {
  const shadowMap = renderer.shadowMap as unknown as object;
  if (wrapped.get(world) === shadowMap || typeof (shadowMap as { render?: unknown }).render !== 'function') return;
  wrapped.set(world, shadowMap);
  splitMovingShadows(renderer, world);
  measureShadowPasses(renderer as unknown as Parameters<typeof measureShadowPasses>[0], world.render.budget);
}

/**
 * Wraps `renderer`'s shadow-map update with the static copies (see the top of the file). Reads
 * `world.render.movingCasters` and, per update, `world.render.casterShadowsOnly`.
 */
function splitMovingShadows(renderer: WebGLRenderer, world: ViewerWorld): void {
  const shadowMap = renderer.shadowMap as unknown as ShadowMapLike;
  const draw = shadowMap.render.bind(shadowMap);
  const copies = new WeakMap<LightShadow, WebGLRenderTarget>();
  // The copies made, to free them once nothing plays (a 4192 px map's copy is 70 MB of GPU memory).
  const made = new Set<WebGLRenderTarget>();
  // Each copy's generation when its static pass drew it; the generation counts the updates that were not moving-only.
  const drawnAt = new WeakMap<WebGLRenderTarget, number>();
  let generation = 0;
  world.render.movingCasters.release = () => {
    for (const copy of made) copy.dispose();
    made.clear();
  };
  const split: ShadowLight[] = [];
  const whole: Light[] = [];
  const masks: number[] = [];
  const hidden: Object3D[] = [];
  const clear = renderer.clear.bind(renderer);
  let copying = false;

  // Inside the moving casters' pass, three.js clears each map before drawing into it: the static
  // copy's depth is put there instead.
  renderer.clear = (color?: boolean, depth?: boolean, stencil?: boolean) => {
    const target = renderer.getRenderTarget();
    if (copying && target) {
      for (const light of split) {
        const map = light.shadow.map;
        const copy = copies.get(light.shadow);
        if (map === target && copy && map.depthTexture && copy.depthTexture) {
          renderer.copyTextureToTexture(copy.depthTexture, map.depthTexture);
          // The copy unbinds the framebuffers: the map is drawn into next.
          renderer.setRenderTarget(null);
          renderer.setRenderTarget(map as WebGLRenderTarget);
          return;
        }
      }
    }
    clear(color, depth, stencil);
  };

  shadowMap.render = (lights, scene, camera) => {
    const casters = world.render.movingCasters;
    const updating = shadowMap.enabled && (shadowMap.autoUpdate || shadowMap.needsUpdate) && lights.length > 0;
    if (!updating || casters.models.size === 0 || !world.render.splitShadows) {
      // Maps drawn whole: the copies no longer hold their static part.
      if (updating) generation++;
      world.render.casterShadowsOnly = false;
      draw(lights, scene, camera);
      return;
    }
    const movingOnly = world.render.casterShadowsOnly;
    // Any other update may have changed static casters, a light, or made a map anew (the shadow
    // budget gives a light its map back): every copy is drawn again before it is used.
    if (!movingOnly) generation++;
    world.render.casterShadowsOnly = false;
    split.length = 0;
    whole.length = 0;
    for (const light of lights) {
      const shadow = (light as ShadowLight).shadow;
      const map = shadow?.map;
      // Lights three.js would skip stay skipped; point lights (cube maps) are drawn whole.
      if (!shadow || (!shadow.autoUpdate && !shadow.needsUpdate)) continue;
      const splittable = map && !(map as { isWebGLCubeRenderTarget?: boolean }).isWebGLCubeRenderTarget && map.depthTexture && shadow.getViewportCount() === 1;
      if (splittable) split.push(light as ShadowLight);
      else whole.push(light);
    }
    // A light whose map is new (or of another size) gets it drawn whole this once.
    const mapNeedsUpdate = shadowMap.needsUpdate;
    if (whole.length > 0) {
      draw(whole, scene, camera);
      shadowMap.needsUpdate = mapNeedsUpdate;
    }
    if (split.length === 0) return;
    let copiesReady = movingOnly;
    for (let i = 0; i < split.length && copiesReady; i++) {
      const copy = copies.get(split[i]!.shadow);
      copiesReady = copy !== undefined && made.has(copy) && drawnAt.get(copy) === generation && copyFits(copy, split[i]!.shadow);
    }
    if (!copiesReady) {
      // The static casters into each light's copy: moving casters hidden, the copy in the map's place.
      hideMoving(world, hidden);
      for (const light of split) {
        const shadow = light.shadow;
        const copy = copyFor(copies, shadow, made);
        const map = shadow.map as WebGLRenderTarget;
        shadow.map = copy;
        copies.set(shadow, map);
        shadow.needsUpdate = true;
      }
      try {
        draw(split, scene, camera);
        for (const light of split) drawnAt.set(light.shadow.map as WebGLRenderTarget, generation);
      } finally {
        for (const light of split) {
          const shadow = light.shadow;
          const map = copies.get(shadow)!;
          copies.set(shadow, shadow.map as WebGLRenderTarget);
          shadow.map = map;
          shadow.needsUpdate = true;
        }
        for (const object of hidden) object.castShadow = true;
        hidden.length = 0;
        shadowMap.needsUpdate = mapNeedsUpdate;
      }
    }
    // The moving casters over the static depth.
    masks.length = 0;
    for (const light of split) {
      masks.push(light.shadow.camera.layers.mask);
      light.shadow.camera.layers.set(MOVING_CASTER_LAYER);
    }
    copying = true;
    try {
      draw(split, scene, camera);
    } finally {
      copying = false;
      for (let i = 0; i < split.length; i++) split[i]!.shadow.camera.layers.mask = masks[i]!;
    }
  };
}

function copyFits(copy: WebGLRenderTarget | undefined, shadow: LightShadow): boolean {
  return copy !== undefined && shadow.map !== null && copy.width === shadow.map.width && copy.height === shadow.map.height;
}

/** The light's static copy, made (or resized) like three.js makes the map itself for PCF shadows. */
function copyFor(copies: WeakMap<LightShadow, WebGLRenderTarget>, shadow: LightShadow, made: Set<WebGLRenderTarget>): WebGLRenderTarget {
  const map = shadow.map!;
  let copy = copies.get(shadow);
  if (copy && copyFits(copy, shadow) && made.has(copy)) return copy;
  if (copy) {
    copy.dispose();
    made.delete(copy);
  }
  copy = new WebGLRenderTarget(map.width, map.height);
  const depth = new DepthTexture(map.width, map.height, UnsignedIntType);
  depth.format = DepthFormat;
  copy.depthTexture = depth;
  copies.set(shadow, copy);
  made.add(copy);
  return copy;
}

/** Sets castShadow false on the moving casters that cast, listing them in `hidden`. */
function hideMoving(world: ViewerWorld, hidden: Object3D[]): void {
  for (const { objects } of world.render.movingCasters.models.values()) {
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i]!;
      if (object.castShadow) {
        object.castShadow = false;
        hidden.push(object);
      }
    }
  }
}
