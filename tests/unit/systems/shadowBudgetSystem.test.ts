import { addComponent, query } from 'bitecs';
import { DirectionalLight, PerspectiveCamera, PointLight, SpotLight, type Light as ThreeLight } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it, vi } from 'vitest';
import { Light, LightType } from '../../../components';
import { lightTypeOf, shadowCost } from '../../../src/engine/lights';
import { bindObject } from '../../../src/engine/registry';
import { addViewerEntity, createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { spawnModel } from '../../../src/scene/model-entities';
import { PIPELINE } from '../../../systems';
import { MAX_SHADOW_MAPS, POINT_LIGHT_SHADOW_COST } from '../../../src/protocol/constants';
import { shadowBudgetSystem } from '../../../systems/shadowBudgetSystem';
import { transformSystem } from '../../../systems/transformSystem';

/** A world with a camera at the origin looking down -Z (no controls: the focus is the camera). */
function freshWorld(): { world: ViewerWorld; camera: PerspectiveCamera } {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera(60, 1, 0.1, 2000);
  camera.updateMatrixWorld();
  world.render.camera = camera;
  return { world, camera };
}

/** A light entity wanting a shadow at (x, y, z). */
function spawnLight(world: ViewerWorld, light: ThreeLight, x: number, y: number, z: number, wants = true): number {
  const eid = addViewerEntity(world);
  addComponent(world, eid, Light);
  Light.type[eid] = lightTypeOf(light);
  Light.wantsShadow[eid] = wants ? 1 : 0;
  Light.shadowOn[eid] = 0;
  Light.score[eid] = 0;
  light.castShadow = false;
  light.position.set(x, y, z);
  light.updateMatrixWorld();
  bindObject(world, eid, light);
  return eid;
}

function move(world: ViewerWorld, eid: number, x: number, y: number, z: number): void {
  const light = world.objects[eid]!;
  light.position.set(x, y, z);
  light.updateMatrixWorld();
  world.render.needsRender = true;
}

/** Runs the system as a frame would (something changed). */
function frame(world: ViewerWorld): void {
  world.render.needsRender = true;
  shadowBudgetSystem(world);
}

function mapsInUse(world: ViewerWorld, eids: number[]): number {
  return eids.reduce((sum, eid) => sum + (Light.shadowOn[eid] ? shadowCost(Light.type[eid]) : 0), 0);
}

function casting(world: ViewerWorld, eids: number[]): number[] {
  return eids.filter((eid) => Light.shadowOn[eid] === 1 && (world.objects[eid] as ThreeLight).castShadow);
}

describe('shadowBudgetSystem', () => {
  it('has its place in the pipeline, before the render system', () => {
    expect(PIPELINE).toContain(shadowBudgetSystem);
    expect(PIPELINE.indexOf(shadowBudgetSystem)).toBeLessThan(PIPELINE.length - 1);
    expect(MAX_SHADOW_MAPS).toBe(12);
    expect(POINT_LIGHT_SHADOW_COST).toBe(6);
  });

  it('gives at most 12 lights of one map their shadow: the nearest ones', () => {
    const { world } = freshWorld();
    const eids = Array.from({ length: 20 }, (_, i) => spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -(i + 1)));
    frame(world);
    expect(casting(world, eids)).toEqual(eids.slice(0, 12));
    expect(mapsInUse(world, eids)).toBe(12);
  });

  it('counts a point light as 6 maps: two point lights fill the budget', () => {
    const { world } = freshWorld();
    const points = [1, 2, 3].map((d) => spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -d));
    frame(world);
    expect(casting(world, points)).toEqual(points.slice(0, 2));
    expect(mapsInUse(world, points)).toBe(12);
  });

  it('gives point lights no shadow where the quality tier turns them off (low), and gives it back when allowed', () => {
    const { world } = freshWorld();
    world.shadows.pointLights = false;
    const point = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -1);
    const spot = spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -2);
    frame(world);
    expect(casting(world, [point, spot])).toEqual([spot]);
    world.shadows.pointLights = true;
    world.render.needsRender = true;
    frame(world);
    expect(casting(world, [point, spot])).toEqual([point, spot]);
  });

  it('skips a point light that does not fit and fills the rest with cheaper lights', () => {
    const { world } = freshWorld();
    const sun = spawnLight(world, new DirectionalLight(0xffffff, 1), 10, 10, 10);
    const point1 = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -1);
    const point2 = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -2);
    const spots = [3, 4, 5, 6, 7, 8].map((d) => spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -d));
    frame(world);
    const all = [sun, point1, point2, ...spots];
    // The directional light first (1), the nearer point light (6), then the second does not fit
    // in the 5 left, and five spot lights take them.
    expect(casting(world, all)).toEqual([sun, point1, ...spots.slice(0, 5)]);
    expect(mapsInUse(world, all)).toBe(12);
  });

  it('ranks by importance to the view: intensity, distance to what the camera looks at, reach and frustum', () => {
    const { world } = freshWorld();
    // The camera looks at (0, 0, -5) (the view pose's target, written by the navigation).
    world.view.target.set(0, 0, -5);
    world.view.targetEnd.set(0, 0, -5);
    world.view.version++;
    // 12 bright spot lights around the target take the budget...
    const front = Array.from({ length: 12 }, (_, i) => spawnLight(world, new SpotLight(0xffffff, 50), i - 6, 0, -5));
    // ...a dim one as near, one behind the camera that reaches only 3 units, and one far away do not.
    const dim = spawnLight(world, new SpotLight(0xffffff, 1), 0, 1, -5);
    const behind = spawnLight(world, new SpotLight(0xffffff, 50, 3), 0, 0, 5);
    const far = spawnLight(world, new SpotLight(0xffffff, 50), 0, 0, -500);
    frame(world);
    expect(casting(world, [...front, dim, behind, far])).toEqual(front);
    const weakest = Math.min(...front.map((eid) => Light.score[eid]));
    expect(Light.score[dim]).toBeLessThan(weakest);
    expect(Light.score[behind]).toBeLessThan(weakest / 100);
    expect(Light.score[far]).toBeLessThan(weakest / 100);
  });

  it('is stable: a light keeps its shadow until another is clearly more important (hysteresis)', () => {
    const { world } = freshWorld();
    const a = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -4);
    const b = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -4.5);
    const c = spawnLight(world, new PointLight(0xffffff, 10), 0, 0, -9);
    frame(world);
    expect(casting(world, [a, b, c])).toEqual([a, b]);
    // c comes slightly nearer than b: a little more important, not enough to take b's shadow.
    move(world, c, 0, 0, -4.3);
    for (let i = 0; i < 10; i++) frame(world);
    expect(casting(world, [a, b, c])).toEqual([a, b]);
    // Much nearer: it takes over, and keeps it when it moves back a little.
    move(world, c, 0, 0, -1.5);
    frame(world);
    expect(casting(world, [a, b, c])).toEqual([a, c]);
    move(world, c, 0, 0, -4.3);
    for (let i = 0; i < 10; i++) frame(world);
    expect(casting(world, [a, b, c])).toEqual([a, c]);
  });

  it('never flickers while the camera wanders between equal lights', () => {
    const { world, camera } = freshWorld();
    const eids = Array.from({ length: 16 }, (_, i) => spawnLight(world, new SpotLight(0xffffff, 10), (i % 4) * 2, 0, -2 - Math.floor(i / 4) * 2));
    let changes = 0;
    let last = casting(world, eids).join();
    for (let i = 0; i < 200; i++) {
      camera.position.set(3 + Math.sin(i * 0.1) * 0.3, 0, Math.cos(i * 0.13) * 0.3);
      camera.updateMatrixWorld();
      frame(world);
      const now = casting(world, eids).join();
      if (now !== last) changes++;
      last = now;
      expect(mapsInUse(world, eids)).toBeLessThanOrEqual(12);
    }
    expect(changes).toBeLessThanOrEqual(2);
  });

  it('leaves lights that do not want a shadow, are hidden or dark without one, and frees a map it takes away', () => {
    const { world } = freshWorld();
    const off = spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -1, false);
    const hidden = spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -1);
    (world.objects[hidden] as ThreeLight).visible = false;
    const on = spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -1);
    frame(world);
    expect(casting(world, [off, hidden, on])).toEqual([on]);
    const light = world.objects[on] as SpotLight;
    const dispose = vi.fn();
    light.shadow.map = { dispose } as unknown as SpotLight['shadow']['map'];
    Light.wantsShadow[on] = 0;
    frame(world);
    expect(light.castShadow).toBe(false);
    expect(dispose).toHaveBeenCalled();
    expect(light.shadow.map).toBeNull();
  });

  it('does nothing when nothing moved or changed, or without a camera', () => {
    const { world } = freshWorld();
    const eid = spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -1);
    world.render.needsRender = false;
    shadowBudgetSystem(world);
    expect(Light.shadowOn[eid]).toBe(0);
    world.render.needsRender = true;
    shadowBudgetSystem(world);
    expect(Light.shadowOn[eid]).toBe(1);
    world.render.camera = null;
    Light.wantsShadow[eid] = 0;
    shadowBudgetSystem(world);
    expect(Light.shadowOn[eid]).toBe(1);
  });

  it('asks for a frame only when a shadow changed', () => {
    const { world } = freshWorld();
    spawnLight(world, new SpotLight(0xffffff, 10), 0, 0, -1);
    frame(world);
    world.render.needsRender = false;
    world.transform.changed = 1;
    shadowBudgetSystem(world);
    expect(world.render.needsRender).toBe(false);
  });
});

describe('model lights', () => {
  it('are Light entities at spawn (KHR_lights_punctual), and the budget gives them their shadows', async () => {
    // The four lights of ../shared/models/sphere_lights.glb, in a glTF without buffers or images.
    const json = {
      asset: { version: '2.0' },
      extensionsUsed: ['KHR_lights_punctual'],
      extensions: {
        KHR_lights_punctual: {
          lights: [
            { type: 'spot', intensity: 3, range: 100, spot: { innerConeAngle: 0.2, outerConeAngle: 0.8 } },
            { type: 'point', intensity: 5, range: 1000 },
            { type: 'directional', range: 200 },
            { type: 'spot', spot: {} },
          ],
        },
      },
      scene: 0,
      scenes: [{ nodes: [0] }],
      nodes: [
        { translation: [0, 0, -3], extensions: { KHR_lights_punctual: { light: 0 } }, children: [1, 2] },
        { extensions: { KHR_lights_punctual: { light: 2 } } },
        { translation: [1, 0, 0], extensions: { KHR_lights_punctual: { light: 3 } }, children: [3] },
        { translation: [0, 1, 0], extensions: { KHR_lights_punctual: { light: 1 } } },
      ],
    };
    const gltf = await new Promise<GLTF>((resolve, reject) => new GLTFLoader().parse(JSON.stringify(json), '', resolve, reject));
    const { world } = freshWorld();
    spawnModel(world, gltf, { modelId: 'm', name: 'lights.gltf' });
    const lights = [...query(world, [Light])];
    const types = lights.map((eid) => Light.type[eid]).sort();
    expect(types).toEqual([LightType.directional, LightType.point, LightType.spot, LightType.spot]);
    for (const eid of lights) {
      expect(Light.wantsShadow[eid]).toBe(1);
      expect((world.objects[eid] as ThreeLight).castShadow).toBe(false);
    }
    transformSystem(world);
    // World matrices reach the objects in the render system; here by hand.
    for (const eid of lights) world.objects[eid]!.updateMatrixWorld(true);
    frame(world);
    // 1 directional + 6 point + 2 spot = 9 maps: all fit.
    expect(casting(world, lights)).toHaveLength(4);
    expect(mapsInUse(world, lights)).toBe(9);
  });
});
