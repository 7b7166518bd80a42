import { addComponent, commitRemovals, registerQuery, type Query } from 'bitecs';
import { Vector3, type DirectionalLight, type Object3D } from 'three';
import { Light, LightType, ShadowFollow } from '../../components';
import {
  SCENE_SETTINGS_DEFAULTS,
  SHADOW_CAMERA_FOLLOW_DISTANCE,
  SHADOW_CAMERA_HALF_EXTENT,
  SHADOW_MAP_SIZE,
} from '../protocol/scene-settings';
import { POINT_LIGHT_SHADOW_COST } from '../protocol/constants';
import { bindObject } from './registry';
import { viewEye, viewFocus } from './view-pose';
import { addViewerEntity, type ViewerWorld } from './world';

/** The kind of a three.js light, by how it uses shadow maps. */
export function lightTypeOf(object: Object3D): LightType {
  const o = object as { isDirectionalLight?: boolean; isPointLight?: boolean; isSpotLight?: boolean };
  if (o.isDirectionalLight) return LightType.directional;
  if (o.isPointLight) return LightType.point;
  if (o.isSpotLight) return LightType.spot;
  return LightType.other;
}

/** Shadow maps a light of this kind needs when it casts (the shadow budget, the editor's 12-map warning). */
export function shadowCost(type: number): number {
  return type === LightType.point ? POINT_LIGHT_SHADOW_COST : 1;
}

/** Whether a three.js object is a light (any kind). */
export function isLight(object: Object3D): boolean {
  return (object as { isLight?: boolean }).isLight === true;
}

const lightQueries = new WeakMap<ViewerWorld, Query>();

/**
 * The light entities of a world (every Light, the sun included), removals committed: what the
 * shadow budget ranks and the shadow reveal fades. Registered once per world; allocates nothing.
 */
export function lightEntities(world: ViewerWorld): Query['dense'] {
  let q = lightQueries.get(world);
  if (!q) {
    q = registerQuery(world, [Light]);
    lightQueries.set(world, q);
  }
  commitRemovals(world);
  return q.dense;
}

/**
 * Makes the viewer's sun (the renderer's DirectionalLight) an entity once: a Light that wants its
 * shadow, with a ShadowFollow box of the viewer's default half-extent (150) lit from the default
 * sun direction, and the shadow map of the quality tier (world.shadows.sunMapSize: the
 * specification's 4192 x 4192 on high; never above the GPU's maximum texture size). Returns its
 * entity id (the same on every call).
 */
export function ensureSunEntity(world: ViewerWorld, sun: DirectionalLight): number {
  const bound = sun.userData.eid;
  if (typeof bound === 'number' && world.objects[bound] === sun) return bound;
  const eid = addViewerEntity(world);
  addComponent(world, eid, Light);
  Light.type[eid] = LightType.directional;
  Light.wantsShadow[eid] = 1;
  Light.shadowOn[eid] = sun.castShadow ? 1 : 0;
  Light.score[eid] = 0;
  addComponent(world, eid, ShadowFollow);
  ShadowFollow.halfExtent[eid] = SHADOW_CAMERA_HALF_EXTENT;
  ShadowFollow.anchor.fill(0, eid * 3, eid * 3 + 3);
  ShadowFollow.dirty[eid] = 1;
  bindObject(world, eid, sun);
  setSunDirection(world, eid, SCENE_SETTINGS_DEFAULTS.sunAzimuth, SCENE_SETTINGS_DEFAULTS.sunElevation);

  sizeSunShadow(world, sun);
  return eid;
}

/** Gives the sun the shadow map size of the quality tier (world.shadows.sunMapSize), within the GPU's limit. */
export function sizeSunShadow(world: ViewerWorld, sun: DirectionalLight): void {
  const maxSize = world.render.renderer?.capabilities.maxTextureSize ?? SHADOW_MAP_SIZE;
  const size = Math.min(world.shadows.sunMapSize, maxSize);
  if (sun.shadow.mapSize.x === size && sun.shadow.mapSize.y === size) return;
  sun.shadow.mapSize.set(size, size);
  // A map allocated at the old size would be kept: let the renderer make a new one.
  sun.shadow.map?.dispose();
  sun.shadow.map = null;
  world.render.needsRender = true;
}

/** Points a following light from azimuth/elevation in degrees (azimuth 0 = +Z, 90 = +X). */
export function setSunDirection(world: ViewerWorld, eid: number, azimuthDeg: number, elevationDeg: number): void {
  const a = (azimuthDeg * Math.PI) / 180;
  const e = (elevationDeg * Math.PI) / 180;
  const d = ShadowFollow.direction;
  d[eid * 3] = Math.cos(e) * Math.sin(a);
  d[eid * 3 + 1] = Math.sin(e);
  d[eid * 3 + 2] = Math.cos(e) * Math.cos(a);
  ShadowFollow.dirty[eid] = 1;
  world.render.needsRender = true;
}

/** Sets the half-extent of a following light's shadow box. */
export function setShadowHalfExtent(world: ViewerWorld, eid: number, halfExtent: number): void {
  ShadowFollow.halfExtent[eid] = halfExtent;
  ShadowFollow.dirty[eid] = 1;
  world.render.needsRender = true;
}

// What the view looks at lives with the view pose; re-exported for the editor's lights.
export { viewFocus };

const focus = new Vector3();

/**
 * Places a following directional light now: its shadow box (half-extent h) centred on the view's
 * focus, the light 2h away along its direction, depth range 4h; remembers the camera position.
 */
export function placeFollowingShadow(world: ViewerWorld, eid: number): void {
  const light = world.objects[eid] as DirectionalLight | undefined;
  if (!light) return;
  viewFocus(world, focus);
  const h = ShadowFollow.halfExtent[eid];
  const d = ShadowFollow.direction;
  const o = eid * 3;
  light.position.set(focus.x + d[o] * 2 * h, focus.y + d[o + 1] * 2 * h, focus.z + d[o + 2] * 2 * h);
  light.target.position.copy(focus);
  light.updateMatrixWorld();
  light.target.updateMatrixWorld();
  const cam = light.shadow.camera;
  cam.left = -h;
  cam.right = h;
  cam.top = h;
  cam.bottom = -h;
  cam.near = h * 0.01;
  cam.far = h * 4;
  cam.updateProjectionMatrix();
  const eye = viewEye(world);
  if (eye) {
    ShadowFollow.anchor[o] = eye.x;
    ShadowFollow.anchor[o + 1] = eye.y;
    ShadowFollow.anchor[o + 2] = eye.z;
  }
  ShadowFollow.dirty[eid] = 0;
  world.render.needsRender = true;
}

/** Whether the camera has moved more than the follow distance since the light was last placed. */
export function cameraMovedAway(world: ViewerWorld, eid: number): boolean {
  const eye = viewEye(world);
  if (!eye) return false;
  const o = eid * 3;
  const dx = eye.x - ShadowFollow.anchor[o];
  const dy = eye.y - ShadowFollow.anchor[o + 1];
  const dz = eye.z - ShadowFollow.anchor[o + 2];
  return dx * dx + dy * dy + dz * dz > SHADOW_CAMERA_FOLLOW_DISTANCE * SHADOW_CAMERA_FOLLOW_DISTANCE;
}

/**
 * The sun's shadow after the view changed (framing, an initial camera): makes the sun an entity
 * if it is not one yet and places its shadow box around the view's focus now. Called by the
 * viewer where it frames the scene; the shadow-follow system keeps it placed afterwards.
 */
export function placeSunShadow(world: ViewerWorld, sun: DirectionalLight): number {
  const eid = ensureSunEntity(world, sun);
  placeFollowingShadow(world, eid);
  return eid;
}
