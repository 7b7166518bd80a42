import { Frustum, Matrix4, Sphere, Vector3, type Light as ThreeLight, type PointLight, type SpotLight } from 'three';
import { Light, LightType } from '../components';
import { lightEntities, shadowCost, viewFocus } from '../src/engine/lights';
import { MAX_SHADOW_MAPS } from '../src/protocol/constants';
import type { ViewerWorld } from '../src/engine/world';

/** Editor specification section 5 and 9: at most 12 active shadow maps, a point light counting 6. */
/**
 * A light that has its shadow keeps it until another light is this many times more important:
 * lights whose importance is close do not swap back and forth as the camera moves.
 */
export const SHADOW_HYSTERESIS = 1.5;
/** Outside the view frustum a light's importance counts this much. */
const OUT_OF_VIEW = 0.1;
/** Beyond its range (or where its light has fallen below this illuminance) a light hardly matters. */
const OUT_OF_RANGE = 0.01;
const MIN_ILLUMINANCE = 0.01;
/** Directional lights reach everything: they rank above any local light. */
const DIRECTIONAL_IMPORTANCE = 1e9;

type ShadowLight = Pick<SpotLight, 'shadow'>;

const frustum = new Frustum();
const viewProjection = new Matrix4();
const sphere = new Sphere();
const focus = new Vector3();
let order = new Uint32Array(64);
let orderScore = new Float64Array(64);

/**
 * Decides which lights have shadow maps: every light that wants a shadow (Light.wantsShadow) is
 * scored by its importance to the current view - intensity over squared distance to the nearer
 * of the camera and its target, much less beyond its range or outside the view frustum,
 * directional lights first - and a light that has its shadow now counts SHADOW_HYSTERESIS times
 * more. In order of score, lights get their shadow while the budget of 12 maps lasts (a point
 * light costs 6; one that does not fit is skipped and cheaper lights after it may still fit).
 * Runs when something moved or changed; allocates nothing (its scratch arrays grow rarely).
 */
export function shadowBudgetSystem(world: ViewerWorld): ViewerWorld {
  const camera = world.render.camera;
  if (!camera) return world;
  if (!world.render.needsRender && !world.camera.moved && world.transform.changed === 0) return world;
  const eids = lightEntities(world);

  camera.updateMatrixWorld();
  viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  frustum.setFromProjectionMatrix(viewProjection);
  viewFocus(world, focus);
  const cx = camera.position.x, cy = camera.position.y, cz = camera.position.z;

  if (order.length < eids.length) {
    order = new Uint32Array(eids.length * 2);
    orderScore = new Float64Array(eids.length * 2);
  }
  let n = 0;
  for (let i = 0; i < eids.length; i++) {
    const eid = eids[i];
    const light = world.objects[eid] as ThreeLight | undefined;
    if (!light) continue;
    if (
      Light.wantsShadow[eid] === 0 ||
      Light.type[eid] === LightType.other ||
      (Light.type[eid] === LightType.point && !world.shadows.pointLights) ||
      !light.visible ||
      light.intensity <= 0
    ) {
      Light.score[eid] = 0;
      setShadow(world, eid, light, false);
      continue;
    }
    let score: number;
    if (Light.type[eid] === LightType.directional) {
      score = DIRECTIONAL_IMPORTANCE * (1 + light.intensity);
    } else {
      const m = light.matrixWorld.elements;
      const x = m[12], y = m[13], z = m[14];
      const dFocus = (x - focus.x) ** 2 + (y - focus.y) ** 2 + (z - focus.z) ** 2;
      const dCamera = (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2;
      const d2 = Math.min(dFocus, dCamera);
      const declared = (light as PointLight).distance;
      const reach = declared > 0 ? declared : Math.sqrt(light.intensity / MIN_ILLUMINANCE);
      score = light.intensity / (1 + d2);
      if (d2 > reach * reach) score *= OUT_OF_RANGE;
      sphere.center.set(x, y, z);
      sphere.radius = reach;
      if (!frustum.intersectsSphere(sphere)) score *= OUT_OF_VIEW;
    }
    Light.score[eid] = score;
    if (Light.shadowOn[eid] === 1) score *= SHADOW_HYSTERESIS;
    // Insertion by descending score; equal scores keep query order (stable from frame to frame).
    let j = n++;
    while (j > 0 && orderScore[j - 1] < score) {
      order[j] = order[j - 1];
      orderScore[j] = orderScore[j - 1];
      j--;
    }
    order[j] = eid;
    orderScore[j] = score;
  }

  let budget = MAX_SHADOW_MAPS;
  for (let i = 0; i < n; i++) {
    const eid = order[i];
    const cost = shadowCost(Light.type[eid]);
    const on = cost <= budget;
    if (on) budget -= cost;
    setShadow(world, eid, world.objects[eid] as ThreeLight, on);
  }
  return world;
}

function setShadow(world: ViewerWorld, eid: number, light: ThreeLight, on: boolean): void {
  const value = on ? 1 : 0;
  if (Light.shadowOn[eid] === value && light.castShadow === on) return;
  Light.shadowOn[eid] = value;
  light.castShadow = on;
  const shadow = (light as Partial<ShadowLight>).shadow;
  if (!on && shadow?.map) {
    // Give the GPU memory back; a light that gets its shadow again gets a new map.
    shadow.map.dispose();
    shadow.map = null;
  }
  world.render.needsRender = true;
}
