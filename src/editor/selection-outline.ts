import { Box3, Vector2, type Camera, type Line, type Material, type Mesh, type Object3D, type Points, type WebGLRenderer } from 'three';
import { Transform } from '../../components';
import { addFrameStep } from '../engine/frame-steps';
import { BATCHED_LAYER } from '../engine/layers';
import { instanceGroupByUuid, type InstanceGroupRecord } from '../engine/instances';
import type { ViewerWorld } from '../engine/world';
import { screenRect, shown, subtreeBox, unionTransformed } from './selection-bounds';
import { createInstanceProxies } from './selection-instances';
import { createOutlinePass } from './selection-outline-pass';

/**
 * The editor's selection outline: a line along the silhouette of what is selected (a model node
 * with everything under it, the helpers of a light, camera or group, an instanced asset group, or
 * some instances of one), drawn the same way on every quality tier, with post-processing on or off.
 *
 * It is a step of the frame's 'afterDraw' slot, so it is drawn right over each picture the render
 * system draws (after the post-processing stack and the helpers, where there are any), and never
 * in screenshots. Per picture, inside the selection's screen rectangle only (a scissor: its
 * projected bounds plus the line's width):
 *  1. the mask: the selected objects drawn flat white into a one-channel buffer of the drawing
 *     buffer's size, without depth test (the whole silhouette, also where something stands in
 *     front of it: the selection is found even inside an assembly);
 *  2. the line: one full-screen triangle that, for each pixel outside the mask, looks at 16 points
 *     around it (two rings of 8) and draws the outline's colour as strongly as the mask is near.
 *
 * Chosen over postprocessing's OutlineEffect, which exists only where the stack does (the low tier
 * draws no post-processing) and costs its full-screen passes whatever the selection's size; this
 * outline's cost follows the selection's area on screen (`npm run bench -- selection-outline`).
 *
 * The selection's bounds are kept in each root's own space, so a drag (which moves the root and
 * its subtree rigidly) only carries the box along: the subtree is walked again only when something
 * else moved. Instances are drawn by one InstancedMesh per asset part holding only the selected
 * instances (never an object per instance).
 */
export interface SelectionOutline {
  /** Outlines these objects and everything under them; [] clears. */
  showObjects(objects: readonly Object3D[]): void;
  /** Outlines instances of an instanced asset group, by stable id; [] clears. */
  showInstances(groupId: string, ids: readonly number[]): void;
  clear(): void;
  /** Whether something is outlined. */
  readonly active: boolean;
  /**
   * The bounds and the screen rectangle for this camera and drawing-buffer size (what the frame
   * step does before drawing): [x, y, width, height] in drawing-buffer pixels from the bottom
   * left, or null when nothing is outlined on screen.
   */
  prepare(camera: Camera, width: number, height: number): readonly [number, number, number, number] | null;
  /** The selection's world box as prepare last computed it (tests). */
  readonly bounds: Box3;
  dispose(): void;
}

export interface SelectionOutlineOptions {
  /** The line's colour (sRGB); default OUTLINE_COLOR. */
  color?: number;
  /** The line's width in CSS pixels (times the pixel ratio on screen); default OUTLINE_WIDTH_PX. */
  width?: number;
}

/** The editor's selection blue. */
export const OUTLINE_COLOR = 0x1f8efa;
/** Outline width in CSS pixels. */
export const OUTLINE_WIDTH_PX = 2;
/** Instance selections up to this many are bounded instance by instance; larger ones by their group's box. */
export { MAX_BOXED_INSTANCES } from './selection-instances';

type Drawable = Mesh | Line | Points;

const bufferSize = new Vector2();

export function createSelectionOutline(world: ViewerWorld, options: SelectionOutlineOptions = {}): SelectionOutline {
  const widthCss = options.width ?? OUTLINE_WIDTH_PX;
  // The GPU resources are made as the passes need them (the mask target on the first draw).
  const pass = createOutlinePass(widthCss, options.color ?? OUTLINE_COLOR);

  // ---- what is outlined ----
  let roots: Object3D[] = [];
  /** Each root's subtree box in the root's own space. */
  let localBoxes: Box3[] = [];
  /** The entity of each root (0 for helpers, which are not entities). */
  let rootEids: number[] = [];
  let drawables: Drawable[] = [];
  let savedMaterials: (Material | Material[])[] = [];
  let localDue = true;
  let seenEpoch = -1;
  /** A root is a helper (not an entity): its bounds are read at every picture. */
  let helperRoot = false;
  /** The drawing buffer's pixels per CSS pixel at the last draw. */
  let pixelRatio = 1;

  let groupId: string | null = null;
  let ids: number[] = [];
  let group: InstanceGroupRecord | null = null;
  let seenVersion = -1;
  let seenGroupEpoch = -1;
  const proxies = createInstanceProxies(pass.maskMaterial);

  const bounds = new Box3();
  const rect: [number, number, number, number] = [0, 0, 0, 0];

  const collect = () => {
    drawables = [];
    for (const root of roots) {
      root.traverse((o) => {
        if ((o as { isBatchedMesh?: boolean }).isBatchedMesh) return;
        if ((o as Mesh).isMesh || (o as Line).isLine || (o as Points).isPoints) drawables.push(o as Drawable);
      });
    }
    savedMaterials = new Array(drawables.length);
  };

  const clearInstances = () => {
    groupId = null;
    ids = [];
    group = null;
    proxies.hide();
  };

  /** The roots' subtree boxes in their own spaces. */
  const refreshLocal = () => {
    for (let r = 0; r < roots.length; r++) subtreeBox(roots[r]!, localBoxes[r]!);
  };

  const prepare: SelectionOutline['prepare'] = (camera, width, height) => {
    if (groupId !== null) {
      const now = instanceGroupByUuid(world, groupId);
      if (!now || !shown(now.object)) {
        if (!now) clearInstances();
        return null;
      }
      if (now !== group) {
        group = now;
        seenVersion = -1;
        proxies.fit(now, ids.length);
      }
      const epoch = world.transform.epoch;
      if (now.attribute.version !== seenVersion || epoch !== seenGroupEpoch) {
        seenVersion = now.attribute.version;
        seenGroupEpoch = epoch;
        proxies.refresh(now, ids, bounds);
      }
    } else if (roots.length > 0) {
      const epoch = world.transform.epoch;
      if (epoch !== seenEpoch) {
        // A drag moves one root and its subtree rigidly: its own-space box still holds.
        const onlyRootMoved = epoch === seenEpoch + 1 && roots.length === 1 && rootEids[0]! > 0 && Transform.worldChanged[rootEids[0]!] === 1;
        if (!onlyRootMoved) localDue = true;
        seenEpoch = epoch;
      }
      // Helpers are not entities: their geometry and place follow their objects in the helpers step.
      if (localDue || helperRoot) {
        localDue = false;
        refreshLocal();
      }
      bounds.makeEmpty();
      let any = false;
      for (let r = 0; r < roots.length; r++) {
        if (!shown(roots[r]!)) continue;
        any = true;
        unionTransformed(bounds, localBoxes[r]!, roots[r]!.matrixWorld);
      }
      if (!any) return null;
    } else {
      return null;
    }
    if (bounds.isEmpty() || width <= 0 || height <= 0) return null;
    return screenRect(bounds, camera, width, height, Math.ceil(widthCss * pixelRatio) + 2, rect);
  };

  /** The mask pass's drawing: the instances' proxies, or the roots with the flat materials. */
  const drawMask = (renderer: WebGLRenderer, camera: Camera) => {
    if (groupId !== null) {
      renderer.render(proxies.scene, camera);
      return;
    }
    const n = drawables.length;
    for (let i = 0; i < n; i++) {
      const d = drawables[i]!;
      savedMaterials[i] = d.material;
      d.material = (d as Points).isPoints ? pass.pointsMaterial : pass.maskMaterial;
    }
    // Meshes a batch draws (src/engine/model-batches.ts) are drawn as themselves here, the batches not at all.
    const batches = world.render.batches.list;
    const mask = camera.layers.mask;
    camera.layers.enable(BATCHED_LAYER);
    for (let i = 0; i < batches.length; i++) if (batches[i]) batches[i]!.mesh.visible = false;
    try {
      for (let r = 0; r < roots.length; r++) if (shown(roots[r]!)) renderer.render(roots[r]!, camera);
    } finally {
      for (let i = 0; i < n; i++) drawables[i]!.material = savedMaterials[i]!;
      for (let i = 0; i < batches.length; i++) if (batches[i]) batches[i]!.mesh.visible = true;
      camera.layers.mask = mask;
    }
  };

  const draw = (renderer: WebGLRenderer, camera: Camera) => {
    pixelRatio = renderer.getPixelRatio();
    renderer.getDrawingBufferSize(bufferSize);
    const area = prepare(camera, bufferSize.x, bufferSize.y);
    if (area) pass.draw(renderer, camera, area, bufferSize.x, bufferSize.y, pixelRatio, drawMask);
  };

  const removeStep = addFrameStep(world, 'afterDraw', {
    name: 'selection outline',
    run(w) {
      const { renderer, camera } = w.render;
      if (!renderer || !camera || (roots.length === 0 && groupId === null)) return;
      draw(renderer, camera);
    },
  });

  const api: SelectionOutline = {
    showObjects(objects) {
      clearInstances();
      roots = [...objects];
      rootEids = roots.map((o) => (typeof o.userData.eid === 'number' ? (o.userData.eid as number) : 0));
      helperRoot = rootEids.some((eid) => eid === 0);
      localBoxes = roots.map(() => new Box3());
      localDue = true;
      collect();
      // The outline is drawn over the picture and casts no shadow: the shadow maps are kept.
      world.render.needsPicture = true;
    },
    showInstances(nextGroup, nextIds) {
      roots = [];
      rootEids = [];
      localBoxes = [];
      helperRoot = false;
      collect();
      const target = instanceGroupByUuid(world, nextGroup);
      if (!target || nextIds.length === 0) {
        clearInstances();
        world.render.needsPicture = true;
        return;
      }
      groupId = nextGroup;
      ids = [...nextIds];
      group = target;
      seenVersion = -1;
      proxies.fit(target, ids.length);
      world.render.needsPicture = true;
    },
    clear() {
      api.showObjects([]);
    },
    get active() {
      return roots.length > 0 || groupId !== null;
    },
    prepare(camera, width, height) {
      return prepare(camera, width, height);
    },
    get bounds() {
      return bounds;
    },
    dispose() {
      removeStep();
      proxies.dispose();
      pass.dispose();
      roots = [];
      drawables = [];
    },
  };
  return api;
}
