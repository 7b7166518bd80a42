import { Mesh, Object3D, OrthographicCamera, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { setPosition, spawnTransformEntity } from '../../../src/engine/hierarchy';
import { ensureShadowPasses, MOVING_CASTER_LAYER, setModelMoving } from '../../../src/engine/moving-casters';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

function spawn(world: ViewerWorld, object: Object3D, parent = 0): number {
  const eid = spawnTransformEntity(world, parent);
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  if (parent) world.objects[parent]!.add(object);
  return eid;
}

/** A model: a static body, a rotor (animated) with a blade below it, and a static lamp. */
function model(world: ViewerWorld) {
  const root = new Object3D();
  const rootEid = spawn(world, root);
  const body = spawn(world, new Mesh(), rootEid);
  const rotor = spawn(world, new Object3D(), rootEid);
  const blade = spawn(world, new Mesh(), rotor);
  const lamp = spawn(world, new Mesh(), rootEid);
  const record = { eid: rootEid, root, animated: Uint32Array.of(rotor), entities: Uint32Array.of(rootEid, body, rotor, blade, lamp) } as unknown as ModelRecord;
  world.models.set(rootEid, record);
  return { rootEid, body, rotor, blade, lamp };
}

describe('moving casters', () => {
  it("a playing model's animated nodes and what hangs below them are moving casters, on their layer; the rest stays static", () => {
    const world = createViewerWorld();
    const m = model(world);
    world.render.needsRender = false;
    let released = 0;
    world.render.movingCasters.release = () => void released++;
    setModelMoving(world, m.rootEid, true);
    const flagged = world.render.movingCasters.flagged;
    expect([m.rotor, m.blade].map((e) => flagged[e])).toEqual([1, 1]);
    expect([m.rootEid, m.body, m.lamp].map((e) => flagged[e])).toEqual([0, 0, 0]);
    expect(world.objects[m.blade]!.layers.isEnabled(MOVING_CASTER_LAYER)).toBe(true);
    expect(world.objects[m.blade]!.layers.isEnabled(0)).toBe(true);
    expect(world.objects[m.body]!.layers.isEnabled(MOVING_CASTER_LAYER)).toBe(false);
    // The static copy changes: the shadow maps are drawn whole once.
    expect(world.render.needsRender).toBe(true);
    world.render.needsRender = false;
    setModelMoving(world, m.rootEid, true);
    expect(world.render.needsRender).toBe(false);
    setModelMoving(world, m.rootEid, false);
    expect([m.rotor, m.blade].map((e) => flagged[e])).toEqual([0, 0]);
    expect(world.objects[m.blade]!.layers.isEnabled(MOVING_CASTER_LAYER)).toBe(false);
    expect(world.render.movingCasters.models.size).toBe(0);
    expect(world.render.needsRender).toBe(true);
    // Nothing plays: the lights' static copies are freed.
    expect(released).toBe(1);
    // Unmarked by the entities recorded, even once the objects are unbound (a model removed).
    setModelMoving(world, m.rootEid, true);
    for (const e of [m.rotor, m.blade]) delete world.objects[e]!.userData.eid;
    setModelMoving(world, m.rootEid, false);
    expect([m.rotor, m.blade].map((e) => flagged[e])).toEqual([0, 0]);
  });

  it("the sync system asks for the moving casters' shadows alone when only they moved, and for every shadow when anything else did", () => {
    const world = createViewerWorld();
    const m = model(world);
    transformSystem(world);
    syncSystem(world);
    setModelMoving(world, m.rootEid, true);
    world.render.needsRender = false;
    setPosition(world, m.rotor, 1, 0, 0);
    transformSystem(world);
    syncSystem(world);
    expect(world.render).toMatchObject({ needsRender: false, needsCasterShadows: true, needsPicture: true });
    world.render.needsCasterShadows = false;
    setPosition(world, m.lamp, 0, 2, 0);
    transformSystem(world);
    syncSystem(world);
    expect(world.render.needsRender).toBe(true);
  });

  it("counts shadow triangles on the renderer's shadow map, and again on the new one a restored context brings", () => {
    const world = createViewerWorld();
    const info = { render: { triangles: 0 } };
    const shadowMap = () => ({ enabled: true, autoUpdate: true, needsUpdate: false, render: () => void (info.render.triangles += 500) });
    const fake = { shadowMap: shadowMap(), info, clear: () => undefined, getRenderTarget: () => null };
    const renderer = fake as unknown as WebGLRenderer;
    ensureShadowPasses(renderer, world);
    ensureShadowPasses(renderer, world);
    renderer.shadowMap.render([{}] as never, null as never, null as never);
    // Wrapped once: counted once.
    expect(world.render.budget.frameShadow).toBe(500);
    // three.js makes a new shadow map when a lost context is restored.
    world.render.budget.frameShadow = null;
    fake.shadowMap = shadowMap();
    renderer.shadowMap.render([{}] as never, null as never, null as never);
    expect(world.render.budget.frameShadow).toBeNull();
    ensureShadowPasses(renderer, world);
    renderer.shadowMap.render([{}] as never, null as never, null as never);
    expect(world.render.budget.frameShadow).toBe(500);
  });

  it('never copies a static depth drawn before the last whole update (a light given its map back)', () => {
    const world = createViewerWorld();
    const root = new Object3D();
    const rootEid = spawn(world, root);
    const rotor = new Mesh();
    rotor.castShadow = true;
    const rotorEid = spawn(world, rotor, rootEid);
    world.models.set(rootEid, {
      eid: rootEid,
      root,
      animated: Uint32Array.of(rotorEid),
      entities: Uint32Array.of(rootEid, rotorEid),
    } as unknown as ModelRecord);
    let target: { name?: string } | null = null;
    const log: string[] = [];
    const light = { shadow: { map: null as null | object, autoUpdate: true, needsUpdate: false, camera: new OrthographicCamera(), getViewportCount: () => 1 } };
    let serial = 0;
    const fake = {
      info: { render: { triangles: 0 } },
      getRenderTarget: () => target,
      setRenderTarget: (t: { name?: string } | null) => void (target = t),
      clear: () => undefined,
      copyTextureToTexture: () => void log.push('copy'),
      shadowMap: {
        enabled: true,
        autoUpdate: true,
        needsUpdate: false,
        render(lights: (typeof light)[]) {
          for (const l of lights) {
            const s = l.shadow;
            if (s.map === null) s.map = { name: `map${++serial}`, width: 64, height: 64, depthTexture: {} };
            fake.setRenderTarget(s.map);
            fake.clear();
            log.push((s.map as { name?: string }).name ? 'draw map' : 'draw copy');
          }
        },
      },
    };
    ensureShadowPasses(fake as unknown as WebGLRenderer, world);
    setModelMoving(world, rootEid, true);
    const frame = (movingOnly: boolean, lights = [light]) => {
      log.length = 0;
      world.render.casterShadowsOnly = movingOnly;
      fake.shadowMap.render(lights);
      return [...log];
    };
    frame(false);
    // Whole: the static copy drawn, then the moving casters over it.
    expect(frame(false)).toEqual(['draw copy', 'copy', 'draw map']);
    expect(frame(true)).toEqual(['copy', 'draw map']);
    // The shadow budget takes the light's map, then gives it back: drawn whole, as a new map.
    light.shadow.map = null;
    frame(false, []);
    frame(false);
    // The next moving-only update draws the static copy again before copying it.
    expect(frame(true)).toEqual(['draw copy', 'copy', 'draw map']);
  });
});
