import { Box3, InstancedMesh, Scene, type Material } from 'three';
import { getInstanceBounds, instanceSlot, type InstanceGroupRecord } from '../engine/instances';

/**
 * The selection outline's stand-ins for selected instances: one InstancedMesh per asset part of the
 * group, holding only the selected instances (never an object per instance), drawn into the mask.
 */

/** Instance selections up to this many are bounded instance by instance; larger ones by their group's box. */
export const MAX_BOXED_INSTANCES = 1024;

export interface InstanceProxies {
  /** The proxies, for the mask pass. */
  readonly scene: Scene;
  /** Proxies for the group's parts, with room for `n` instances. */
  fit(target: InstanceGroupRecord, n: number): void;
  /** Copies the instances' matrices into the proxies and their world bounds into `bounds`. */
  refresh(target: InstanceGroupRecord, ids: readonly number[], bounds: Box3): void;
  hide(): void;
  dispose(): void;
}

const scratchBox = new Box3();

export function createInstanceProxies(material: Material): InstanceProxies {
  const proxies: InstancedMesh[] = [];
  let capacity = 0;
  const scene = new Scene();
  scene.matrixWorldAutoUpdate = false;
  return {
    scene,
    fit(target, n) {
      const parts = target.asset.parts;
      const grow = n > capacity;
      if (grow) capacity = Math.max(n, capacity * 2, 16);
      for (let i = 0; i < Math.max(parts.length, proxies.length); i++) {
        const part = parts[i];
        let proxy = proxies[i];
        if (!part) {
          if (proxy) proxy.visible = false;
          continue;
        }
        if (!proxy || grow) {
          if (proxy) {
            proxy.removeFromParent();
            proxy.dispose();
          }
          proxy = new InstancedMesh(part.geometry, material, capacity);
          proxy.matrixAutoUpdate = false;
          proxy.matrixWorldAutoUpdate = false;
          proxy.frustumCulled = false;
          proxy.name = 'Selection outline (instances)';
          proxies[i] = proxy;
          scene.add(proxy);
        }
        proxy.geometry = part.geometry;
        proxy.count = n;
        proxy.visible = true;
      }
    },
    refresh(target, ids, bounds) {
      bounds.makeEmpty();
      const source = target.attribute.array as Float32Array;
      let k = 0;
      const parts = target.asset.parts.length;
      for (let n = 0; n < ids.length; n++) {
        const id = ids[n]!;
        const slot = instanceSlot(target, id);
        if (slot < 0) continue;
        for (let p = 0; p < parts; p++) {
          const array = proxies[p]!.instanceMatrix.array as Float32Array;
          for (let e = 0; e < 16; e++) array[k * 16 + e] = source[slot * 16 + e]!;
        }
        if (ids.length <= MAX_BOXED_INSTANCES) bounds.union(getInstanceBounds(target, id, scratchBox));
        k++;
      }
      if (ids.length > MAX_BOXED_INSTANCES) bounds.copy(target.localBox).applyMatrix4(target.object.matrixWorld);
      for (let p = 0; p < parts; p++) {
        const proxy = proxies[p]!;
        proxy.count = k;
        proxy.instanceMatrix.needsUpdate = true;
        proxy.matrixWorld.copy(target.object.matrixWorld);
      }
    },
    hide() {
      for (const proxy of proxies) proxy.visible = false;
    },
    dispose() {
      for (const proxy of proxies) {
        proxy.removeFromParent();
        proxy.dispose();
      }
      proxies.length = 0;
    },
  };
}
