import { Vector3 } from 'three';
import { addFrameStep } from '../../engine/frame-steps';
import type { HostResult } from '../../protocol/host-api';
import { createMemoryAnnotationStore } from '../annotations';
import { createLabelLayer, type Label } from '../tools/labels';
import type { ApiContext, Impl } from '../viewer-api';
import type { ApiCamera } from './camera';

/** Frames without camera movement after which 'camerastop' is sent. */
export const CAMERA_STOP_FRAMES = 2;
/** Hotspots a host page may register at once (each is projected on every camera move). */
export const MAX_HOTSPOTS = 1000;

type OverlayFunctions = Pick<
  Impl,
  | 'getWorldToScreenCoordinates'
  | 'registerHotspots'
  | 'unregisterHotspots'
  | 'listAnnotations'
  | 'getAnnotation'
  | 'createAnnotation'
  | 'updateAnnotation'
  | 'removeAnnotation'
  | 'gotoAnnotation'
>;

type ScreenPoint = { id: string; x: number; y: number; visible: boolean };

const v1 = new Vector3();

/**
 * What the host API draws or sends over the picture, from one 'overlays' frame step: camera
 * start/stop, hotspots' screen positions (on every camera move), annotation pins (the scene's
 * comments draw their own pins when the annotations are comments).
 */
export function createOverlayFunctions(ctx: ApiContext, camera: ApiCamera): { functions: OverlayFunctions; dispose(): void } {
  const { world, api, options } = ctx;
  const { cameraState, lookAt } = camera;
  const store = options.annotations ?? createMemoryAnnotationStore();
  const hotspots = new Map<string, { position: Vector3; out: ScreenPoint }>();
  let hotspotList: ScreenPoint[] = [];
  let hotspotsDirty = false;
  let moving = false;
  let still = 0;
  const labels = createLabelLayer(options.container, options.canvas);
  const pins = new Map<string, Label>();
  let pinsDirty = false;
  const size = { width: 0, height: 0 };
  const project = (position: Vector3, out: { x: number; y: number; visible: boolean }) => {
    const cam = world.render.camera;
    size.width = options.canvas.clientWidth;
    size.height = options.canvas.clientHeight;
    if (!cam) {
      out.x = 0;
      out.y = 0;
      out.visible = false;
      return out;
    }
    cam.updateMatrixWorld();
    v1.copy(position).project(cam);
    out.x = ((v1.x + 1) / 2) * size.width;
    out.y = ((1 - v1.y) / 2) * size.height;
    out.visible = v1.z > -1 && v1.z < 1 && out.x >= 0 && out.y >= 0 && out.x <= size.width && out.y <= size.height;
    return out;
  };
  const sendHotspots = () => {
    if (hotspotList.length === 0) return;
    for (const h of hotspots.values()) project(h.position, h.out);
    api.emit('hotspots', { points: hotspotList });
  };
  ctx.disposers.push(
    addFrameStep(world, 'overlays', {
      name: 'host-api',
      run() {
        const cam = world.render.camera;
        if (world.camera.moved) {
          still = 0;
          if (!moving) {
            moving = true;
            if (api.listening) api.emit('camerastart', cameraState());
          }
          if (api.listening) sendHotspots();
          pinsDirty = true;
        } else if (moving && ++still >= CAMERA_STOP_FRAMES) {
          moving = false;
          if (api.listening) api.emit('camerastop', cameraState());
        }
        if (hotspotsDirty) {
          hotspotsDirty = false;
          if (api.listening) sendHotspots();
        }
        if (pinsDirty && cam && pins.size > 0) {
          pinsDirty = false;
          labels.update(cam);
        }
      },
    }),
  );

  if (options.comments) {
    ctx.disposers.push(ctx.viewer.events.on('comment-pin', ({ id }) => api.emit('annotation.click', { annotationId: id })));
  }
  const showPin = (annotation: HostResult<'createAnnotation'>) => {
    if (options.comments) return;
    let label = pins.get(annotation.id);
    if (!label) {
      label = labels.add('annotation-pin', annotation.title, () => api.emit('annotation.click', { annotationId: annotation.id }));
      label.element.dataset.annotationId = annotation.id;
      pins.set(annotation.id, label);
    }
    label.setText(annotation.title || '•');
    label.element.title = annotation.text;
    label.point.set(annotation.position[0], annotation.position[1], annotation.position[2]);
    pinsDirty = true;
  };
  if (!options.comments) {
    void store.list().then(
      (list) => list.forEach(showPin),
      (error) => console.error('The annotations could not be read:', error),
    );
  }

  const functions: OverlayFunctions = {
    getWorldToScreenCoordinates: ({ position }) => {
      const out = { x: 0, y: 0, visible: false };
      return project(new Vector3(position[0], position[1], position[2]), out);
    },
    registerHotspots: ({ points }) => {
      // The limit is checked before anything changes: a refused call leaves the set as it was.
      let added = 0;
      const fresh = new Set<string>();
      for (const p of points) {
        if (!hotspots.has(p.id) && !fresh.has(p.id)) {
          fresh.add(p.id);
          added++;
        }
      }
      if (hotspots.size + added > MAX_HOTSPOTS) {
        throw new Error(`At most ${MAX_HOTSPOTS} hotspots may be registered (${hotspots.size} are, and this call adds ${added}).`);
      }
      for (const p of points) {
        const existing = hotspots.get(p.id);
        if (existing) existing.position.set(p.position[0], p.position[1], p.position[2]);
        else hotspots.set(p.id, { position: new Vector3(p.position[0], p.position[1], p.position[2]), out: { id: p.id, x: 0, y: 0, visible: false } });
      }
      hotspotList = [...hotspots.values()].map((h) => h.out);
      hotspotsDirty = true;
      return { count: hotspots.size };
    },
    unregisterHotspots: ({ ids }) => {
      if (ids) for (const id of ids) hotspots.delete(id);
      else hotspots.clear();
      hotspotList = [...hotspots.values()].map((h) => h.out);
      return { count: hotspots.size };
    },
    listAnnotations: () => store.list(),
    getAnnotation: async ({ id }) => {
      const found = (await store.list()).find((a) => a.id === id);
      if (!found) throw new Error(`There is no annotation '${id}'.`);
      return found;
    },
    createAnnotation: async ({ position, title, text, eye, target }) => {
      const now = cameraState();
      const created = await store.create({ position, title, text: text ?? '', eye: eye ?? now.position, target: target ?? now.target });
      showPin(created);
      return created;
    },
    updateAnnotation: async ({ id, ...fields }) => {
      const updated = await store.update(id, fields);
      showPin(updated);
      return updated;
    },
    removeAnnotation: async ({ id }) => {
      await store.remove(id);
      const label = pins.get(id);
      if (label) labels.remove(label);
      pins.delete(id);
      return { ok: true as const };
    },
    gotoAnnotation: async ({ id, transition }) => {
      if (options.comments) {
        if (!(await options.comments.open(id, transition ?? true))) throw new Error(`There is no annotation '${id}'.`);
        return cameraState();
      }
      const found = (await store.list()).find((a) => a.id === id);
      if (!found) throw new Error(`There is no annotation '${id}'.`);
      await lookAt(found.eye, found.target, transition ?? true);
      return cameraState();
    },
  };
  return { functions, dispose: () => labels.dispose() };
}
