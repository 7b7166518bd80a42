import { disposeInstanceGroup } from '../engine/instances';
import { addComponent } from 'bitecs';
import {
  AmbientLight,
  Color,
  DirectionalLight,
  Group,
  HemisphereLight,
  Object3D,
  PerspectiveCamera,
  PointLight,
  RectAreaLight,
  SpotLight,
  type Scene,
} from 'three';
import { Light, LightType, Shadows, Transform, Visibility } from '../../components';
import { addTransform, removeTransformEntity, setParent } from '../engine/hierarchy';
import { setLocalTransform } from '../engine/local-transform';
import { lightTypeOf } from '../engine/lights';
import { setVisible, flagObject } from '../engine/object-flags';
import { bindObject, unbindObject } from '../engine/registry';
import { detachFromThreeMatrixUpdates } from '../engine/sync';
import { addViewerEntity, type ViewerWorld } from '../engine/world';
import { shadowMapsOf, type SceneObject } from '../protocol/scene-objects';

/**
 * The scene's lights, cameras and groups (src/protocol/scene-objects.ts) as entities: each has a
 * Transform (its parent another scene object's entity, or the root), Visibility and, for a light,
 * Light (the shadow budget system decides its shadow map). Their three.js objects sit flat in one
 * container: the ECS writes their world matrices (the sync system), so the three.js hierarchy does
 * not matter. The viewer's load puts the saved ones; the editor puts, changes and removes them.
 */
export interface SceneObjectEntry {
  eid: number;
  object: Object3D;
  data: SceneObject;
}

/**
 * Rect area lights need three's LTC tables (RectAreaLightUniformsLib: about 100 kB compressed),
 * so they are fetched only when a scene has such a light, not with the embed's first chunk. The
 * light draws from the frame after they arrive; a load waits for them (`areaLightTables`).
 */
let areaTables: Promise<void> | null = null;
export function areaLightTables(): Promise<void> | null {
  return areaTables;
}
function loadAreaLightTables(): void {
  areaTables ??= import('three/examples/jsm/lights/RectAreaLightUniformsLib.js').then(
    ({ RectAreaLightUniformsLib }) => RectAreaLightUniformsLib.init(),
    (error: unknown) => {
      areaTables = null; // a later area light tries again
      throw new Error(`The tables of rect area lights could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
}

export class SceneObjects {
  readonly container = new Group();
  private readonly entries = new Map<string, SceneObjectEntry>();
  private readonly byEid = new Map<number, string>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly world: ViewerWorld,
    scene: Scene,
  ) {
    this.container.name = 'Scene objects';
    scene.add(this.container);
  }

  get size(): number {
    return this.entries.size;
  }

  get(uuid: string): SceneObjectEntry | undefined {
    return this.entries.get(uuid);
  }

  uuidOf(eid: number): string | undefined {
    return this.byEid.get(eid);
  }

  /** Every object's data, in the order they were added. */
  list(): SceneObject[] {
    return [...this.entries.values()].map((e) => e.data);
  }

  /** The uuids of an object's children (direct). */
  children(uuid: string): string[] {
    return [...this.entries.values()].filter((e) => e.data.parent === uuid).map((e) => e.data.uuid);
  }

  /** Puts saved objects, parents before their children whatever the list's order. */
  putAll(objects: readonly SceneObject[]): void {
    const pending = new Map(objects.map((o) => [o.uuid, o]));
    const visit = (o: SceneObject, depth: number) => {
      if (!pending.has(o.uuid)) return;
      pending.delete(o.uuid);
      const parent = o.parent ? pending.get(o.parent) : undefined;
      if (parent && depth < 1000) visit(parent, depth + 1);
      this.put(o);
    };
    for (const o of objects) visit(o, 0);
  }

  /** Adds the object, or changes it to `data` (its type is fixed: a new type makes a new object). */
  put(data: SceneObject): SceneObjectEntry {
    const world = this.world;
    let entry = this.entries.get(data.uuid);
    if (entry && entry.data.type !== data.type) {
      this.remove(data.uuid);
      entry = undefined;
    }
    if (!entry) {
      const object = createObject(data);
      // A rect area light lights the scene from the first picture after its tables arrive.
      if (data.type === 'RectAreaLight') {
        areaTables?.then(
          () => void (world.render.needsRender = true),
          () => undefined, // the load reports it
        );
      }
      const eid = addViewerEntity(world);
      addTransform(world, eid, 0, data.position, data.quaternion, data.scale);
      addComponent(world, eid, Visibility);
      Visibility.visible[eid] = data.visible ? 1 : 0;
      addComponent(world, eid, Shadows);
      Shadows.cast[eid] = 0;
      Shadows.receive[eid] = 0;
      if ((object as { isLight?: boolean }).isLight) {
        addComponent(world, eid, Light);
        Light.type[eid] = lightTypeOf(object);
        Light.shadowOn[eid] = 0;
        Light.score[eid] = 0;
        (object as DirectionalLight).castShadow = false;
      }
      detachFromThreeMatrixUpdates(object);
      object.userData.sceneObject = data.uuid;
      bindObject(world, eid, object);
      flagObject(world, eid);
      this.container.add(object);
      entry = { eid, object, data };
      this.entries.set(data.uuid, entry);
      this.byEid.set(eid, data.uuid);
      // Children put before their parent (a saved list in any order) find it now.
      for (const other of this.entries.values()) {
        if (other.data.parent === data.uuid && Transform.parent[other.eid] !== eid) setParent(world, other.eid, eid);
      }
    }
    const { eid, object } = entry;
    entry.data = data;
    object.name = data.name;
    setLocalTransform(world, eid, data.position, data.quaternion, data.scale);
    const parentEid = data.parent ? (this.entries.get(data.parent)?.eid ?? 0) : 0;
    if (Transform.parent[eid] !== parentEid) {
      try {
        setParent(world, eid, parentEid);
      } catch {
        // A cycle (a group under its own child): the object stays where it was.
      }
    }
    setVisible(world, eid, data.visible);
    applyFields(object, data);
    if ((object as { isLight?: boolean }).isLight) {
      Light.wantsShadow[eid] = shadowMapsOf({ ...data, visible: true }) > 0 && lightTypeOf(object) !== LightType.other ? 1 : 0;
    }
    world.render.needsRender = true;
    this.changed();
    return entry;
  }

  /** Removes an object; its children move to the root (the editor removes them first). */
  remove(uuid: string): boolean {
    const entry = this.entries.get(uuid);
    if (!entry) return false;
    const world = this.world;
    for (const other of this.entries.values()) {
      if (Transform.parent[other.eid] === entry.eid) setParent(world, other.eid, 0);
    }
    this.entries.delete(uuid);
    this.byEid.delete(entry.eid);
    // An instanced asset group's meshes and records go with its object.
    disposeInstanceGroup(world, entry.eid);
    unbindObject(world, entry.eid);
    removeTransformEntity(world, entry.eid);
    entry.object.removeFromParent();
    (entry.object as { dispose?: () => void }).dispose?.();
    world.render.needsRender = true;
    this.changed();
    return true;
  }

  /** Shadow maps the scene objects that cast need (a point light 6), leaving out `except`. */
  shadowMaps(except?: string): number {
    let total = 0;
    for (const entry of this.entries.values()) if (entry.data.uuid !== except) total += shadowMapsOf(entry.data);
    return total;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

const registries = new WeakMap<ViewerWorld, SceneObjects>();

/** The scene objects of a viewer's world (made on first use, in `scene`). */
export function sceneObjectsOf(world: ViewerWorld, scene: Scene): SceneObjects {
  let objects = registries.get(world);
  if (!objects) {
    objects = new SceneObjects(world, scene);
    registries.set(world, objects);
  }
  return objects;
}

function createObject(data: SceneObject): Object3D {
  switch (data.type) {
    case 'Group':
    case 'InstancedAssetGroup': // its instances' meshes are children of this group
      return new Group();
    case 'PointLight':
      return new PointLight();
    case 'AmbientLight':
      return new AmbientLight();
    case 'DirectionalLight':
    case 'SpotLight': {
      const light = data.type === 'SpotLight' ? new SpotLight() : new DirectionalLight();
      // It shines along its local -Z: the target is a child one unit ahead (three.js updates a
      // child's world matrix from its parent's, which the ECS writes).
      light.target.position.set(0, 0, -1);
      light.add(light.target);
      return light;
    }
    case 'RectAreaLight':
      loadAreaLightTables();
      return new RectAreaLight();
    case 'HemisphereLight':
      return new HemisphereLight();
    case 'PerspectiveCamera':
      return new PerspectiveCamera();
  }
}

function applyFields(object: Object3D, data: SceneObject): void {
  const o = object as Object3D & Record<string, unknown>;
  if (data.color !== undefined && o.color instanceof Color) o.color.setHex(data.color);
  if (data.groundColor !== undefined && o.groundColor instanceof Color) o.groundColor.setHex(data.groundColor);
  for (const key of ['intensity', 'distance', 'decay', 'angle', 'penumbra', 'width', 'height', 'fov', 'near', 'far'] as const) {
    if (data[key] !== undefined && typeof o[key] === 'number') o[key] = data[key];
  }
  if ((object as PerspectiveCamera).isPerspectiveCamera) (object as PerspectiveCamera).updateProjectionMatrix();
  const shadow = (object as SpotLight).shadow;
  if (shadow && (object as SpotLight).isSpotLight) shadow.bias = -0.0005;
}
