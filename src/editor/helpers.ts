import type { Camera, DirectionalLight, HemisphereLight, Object3D, PointLight, Scene, SpotLight } from 'three';
import { AxesHelper, CameraHelper, DirectionalLightHelper, HemisphereLightHelper, PointLightHelper, SpotLightHelper } from 'three';
import { RectAreaLightHelper } from 'three/examples/jsm/helpers/RectAreaLightHelper.js';
import type { RectAreaLight } from 'three';
import { addFrameStep } from '../engine/frame-steps';
import { HELPER_LAYER } from '../engine/layers';
import type { ViewerWorld } from '../engine/world';
import type { SceneObjects } from '../viewer/scene-objects';

type Helper = Object3D & { update?: () => void; dispose?: () => void };

/**
 * Visible helpers of the scene objects, in the editor only: on the helper layer (the viewport
 * camera sees it; screenshots and picking leave it out), following their objects in the frame's
 * helpers slot when a world matrix changed. The embedded viewer never makes them.
 */
export interface ObjectHelpers {
  /** Shows or hides every helper (the editor hides them while it is disabled). */
  setShown(shown: boolean): void;
  /** The helper drawn for a scene object, or null (an ambient light has none). */
  helperOf(uuid: string): Object3D | null;
  detach(): void;
}

export function attachObjectHelpers(world: ViewerWorld, scene: Scene, objects: SceneObjects, shown = true): ObjectHelpers {
  const helpers = new Map<string, { helper: Helper; source: Object3D }>();
  let due = true;

  const make = (object: Object3D, type: string): Helper | null => {
    switch (type) {
      case 'PointLight':
        return new PointLightHelper(object as PointLight, 0.25);
      case 'SpotLight':
        return new SpotLightHelper(object as SpotLight);
      case 'DirectionalLight':
        return new DirectionalLightHelper(object as DirectionalLight, 1);
      case 'HemisphereLight':
        return new HemisphereLightHelper(object as HemisphereLight, 0.5);
      case 'RectAreaLight':
        return new RectAreaLightHelper(object as RectAreaLight);
      case 'PerspectiveCamera':
        return new CameraHelper(object as Camera);
      case 'Group': {
        const axes = new AxesHelper(0.5) as Helper;
        axes.matrixAutoUpdate = false;
        axes.update = () => axes.matrix.copy(object.matrixWorld);
        return axes;
      }
      default:
        return null; // an ambient light has no place to show
    }
  };

  const sync = () => {
    const live = new Set<string>();
    for (const data of objects.list()) {
      const entry = objects.get(data.uuid)!;
      live.add(data.uuid);
      const existing = helpers.get(data.uuid);
      if (existing && existing.source === entry.object) continue;
      if (existing) drop(data.uuid);
      const helper = make(entry.object, data.type);
      if (!helper) continue;
      helper.userData.helperOf = data.uuid;
      helper.traverse((o) => o.layers.set(HELPER_LAYER));
      // A RectAreaLightHelper is drawn as its light's child.
      if (data.type === 'RectAreaLight') entry.object.add(helper);
      else scene.add(helper);
      helpers.set(data.uuid, { helper, source: entry.object });
    }
    for (const uuid of [...helpers.keys()]) if (!live.has(uuid)) drop(uuid);
    due = true;
    // Helpers (on the helper layer) cast no shadow: the shadow maps are kept.
    world.render.needsPicture = true;
  };

  const drop = (uuid: string) => {
    const entry = helpers.get(uuid);
    if (!entry) return;
    entry.helper.removeFromParent();
    entry.helper.dispose?.();
    helpers.delete(uuid);
  };

  const step = addFrameStep(world, 'helpers', {
    name: 'object helpers',
    run() {
    if (!due && world.transform.changed === 0) return;
    due = false;
    for (const { helper, source } of helpers.values()) {
      helper.visible = shown && source.visible;
      // A light's target is its child: bring its world matrix up to the light's before the helper reads it.
      if (source.children.length) source.updateMatrixWorld(true);
      helper.update?.();
    }
    },
  });
  const off = objects.onChange(sync);
  sync();
  return {
    setShown(next) {
      if (shown === next) return;
      shown = next;
      due = true;
      world.render.needsPicture = true;
    },
    helperOf(uuid) {
      return helpers.get(uuid)?.helper ?? null;
    },
    detach() {
      off();
      step();
      for (const uuid of [...helpers.keys()]) drop(uuid);
    },
  };
}

/** How many helpers are shown (tests). */
export function helperCount(scene: Scene): number {
  let n = 0;
  scene.traverse((o) => {
    if (o.userData.helperOf) n++;
  });
  return n;
}
