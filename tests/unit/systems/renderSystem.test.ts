import { Object3D, PerspectiveCamera, Scene, type WebGLRenderer } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { ERR_CAMERA, ERR_RENDERER, ERR_SCENE } from '../../../src/protocol/errors';
import { setPosition, spawnTransformEntity } from '../../../src/engine/hierarchy';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { addFrameStep } from '../../../src/engine/frame-steps';
import { PIPELINE, runPipeline } from '../../../systems';
import { overlaySystem } from '../../../systems/overlaySystem';
import { renderSystem } from '../../../systems/renderSystem';
import { levelView } from '../../../src/engine/instance-levels';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

/** Just what renderSystem uses of a WebGLRenderer: render(), info.render and shadowMap.autoUpdate. */
function fakeRenderer(calls = 3, triangles = 36) {
  const shadowMap = { autoUpdate: true };
  /** Per render call: whether the shadow maps would be drawn in it. */
  const shadowPasses: boolean[] = [];
  const fake = {
    render: vi.fn(() => void shadowPasses.push(shadowMap.autoUpdate)),
    info: { render: { calls, triangles } },
    shadowMap,
    shadowPasses,
  };
  return fake;
}

function readyWorld(): { world: ViewerWorld; renderer: ReturnType<typeof fakeRenderer>; scene: Scene; camera: PerspectiveCamera } {
  const world = createViewerWorld();
  const renderer = fakeRenderer();
  const scene = new Scene();
  const camera = new PerspectiveCamera();
  world.render.renderer = renderer as unknown as WebGLRenderer;
  world.render.scene = scene;
  world.render.camera = camera;
  return { world, renderer, scene, camera };
}

/** An entity with an Object3D under ECS control, added to the scene. */
function spawnObject<T extends Object3D>(world: ViewerWorld, scene: Object3D, object: T, parent = 0): number {
  const eid = spawnTransformEntity(world, parent);
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  (parent ? world.objects[parent]! : scene).add(object);
  return eid;
}

function frame(world: ViewerWorld): void {
  transformSystem(world);
  syncSystem(world);
  renderSystem(world);
}

describe('renderSystem', () => {
  it('draws for a moved camera without drawing the shadow maps again; a changed scene draws them', () => {
    const { world, renderer } = readyWorld();
    world.render.needsRender = false;
    world.camera.moved = true;
    renderSystem(world);
    expect(renderer.shadowPasses).toEqual([false]);
    // Put back after the draw: whatever renders next (a screenshot) draws them as usual.
    expect(renderer.shadowMap.autoUpdate).toBe(true);
    world.render.needsRender = true;
    renderSystem(world);
    world.camera.moved = false;
    world.render.needsRender = true;
    renderSystem(world);
    expect(renderer.shadowPasses).toEqual([false, true, true]);
    // Neither: nothing drawn.
    renderSystem(world);
    expect(renderer.render).toHaveBeenCalledTimes(3);
    // A moved camera while a load holds the picture draws nothing either.
    world.camera.moved = true;
    world.render.hold = 1;
    renderSystem(world);
    expect(renderer.render).toHaveBeenCalledTimes(3);
  });

  it('draws for needsPicture keeping the shadow maps, with them when the scene changed too; a hold keeps the request', () => {
    const { world, renderer } = readyWorld();
    world.render.needsRender = false;
    world.render.needsPicture = true; // water's waves, the adaptive tone mapping, a gizmo's highlight
    renderSystem(world);
    expect(renderer.shadowPasses).toEqual([false]);
    expect(world.render.needsPicture).toBe(false);
    renderSystem(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    world.render.needsPicture = true;
    world.render.needsRender = true; // and an edit in the same frame
    renderSystem(world);
    expect(renderer.shadowPasses).toEqual([false, true]);
    // Held (a load): nothing drawn, the request waits, and the picture after the hold keeps the maps.
    world.render.needsPicture = true;
    world.render.hold = 1;
    renderSystem(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);
    expect(world.render.needsPicture).toBe(true);
    world.render.hold = 0;
    renderSystem(world);
    expect(renderer.shadowPasses).toEqual([false, true, false]);
  });

  it('draws nothing while held, keeps the request, and draws once when released', () => {
    const { world, renderer, scene } = readyWorld();
    const eid = spawnObject(world, scene, new Object3D());
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    world.render.hold = 1;
    setPosition(world, eid, 1, 2, 3);
    frame(world);
    world.render.needsRender = true;
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    // The moved object's matrix was still copied, and the request waits.
    expect(world.objects[eid]!.matrixWorld.elements[12]).toBe(1);
    expect(world.render.needsRender).toBe(true);
    world.render.hold = 0;
    frame(world);
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);
    expect(world.stats.renderedFrames).toBe(2);
  });

  it('throws the catalogue texts exactly when the renderer, scene or camera is missing', () => {
    const world = createViewerWorld();
    expect(() => renderSystem(world)).toThrow(ERR_RENDERER);
    world.render.renderer = fakeRenderer() as unknown as WebGLRenderer;
    expect(() => renderSystem(world)).toThrow(ERR_SCENE);
    world.render.scene = new Scene();
    expect(() => renderSystem(world)).toThrow(ERR_CAMERA);
    world.render.camera = new PerspectiveCamera();
    expect(() => renderSystem(world)).not.toThrow();

    expect(ERR_RENDERER).toBe("Renderer hasn't been initialised.");
    expect(ERR_SCENE).toBe("Scene hasn't been initialised.");
    expect(ERR_CAMERA).toBe("Camera hasn't been initialised.");

    const noScene = readyWorld().world;
    noScene.render.scene = null;
    expect(() => renderSystem(noScene)).toThrow(ERR_SCENE);
    const noCamera = readyWorld().world;
    noCamera.render.camera = null;
    expect(() => renderSystem(noCamera)).toThrow(ERR_CAMERA);
  });

  it('does no work when it throws', () => {
    const { world, renderer } = readyWorld();
    world.render.camera = null;
    expect(() => renderSystem(world)).toThrow(ERR_CAMERA);
    expect(renderer.render).not.toHaveBeenCalled();
    expect(world.render.needsRender).toBe(true);
    expect(world.stats.renderedFrames).toBe(0);
  });

  it('draws the first frame and records the stats', () => {
    const { world, renderer, scene, camera } = readyWorld();
    // The draw takes 12.5 ms of a clock the test holds: the time recorded is the draw's.
    let clock = 1000;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    renderer.render.mockImplementation(() => {
      clock += 12.5;
    });
    try {
      renderSystem(world);
    } finally {
      now.mockRestore();
    }
    expect(renderer.render).toHaveBeenCalledTimes(1);
    expect(renderer.render).toHaveBeenCalledWith(scene, camera);
    expect(world.render.needsRender).toBe(false);
    expect(world.stats.renderedFrames).toBe(1);
    expect(world.stats.drawCalls).toBe(3);
    expect(world.stats.triangles).toBe(36);
    expect(world.stats.lastRenderMs).toBe(12.5);
  });

  it('draws only when something changed', () => {
    const { world, renderer, scene } = readyWorld();
    const eid = spawnObject(world, scene, new Object3D());
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);

    // Still frames: no draw.
    frame(world);
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);

    // A transform change draws once.
    setPosition(world, eid, 1, 2, 3);
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);

    // An explicit request draws once.
    world.render.needsRender = true;
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(3);
    frame(world);
    expect(renderer.render).toHaveBeenCalledTimes(3);
    expect(world.stats.renderedFrames).toBe(3);
  });

  it('uses the replacement draw function with the frame time when one is set', () => {
    const { world, renderer } = readyWorld();
    const draw = vi.fn();
    world.render.draw = draw;
    world.time.delta = 0.25;
    renderSystem(world);
    expect(draw).toHaveBeenCalledWith(0.25);
    expect(renderer.render).not.toHaveBeenCalled();
    expect(world.stats.renderedFrames).toBe(1);
  });

  it('runs after the sync system, with only the DOM overlays after it', () => {
    const { world, renderer, scene } = readyWorld();
    const eid = spawnObject(world, scene, new Object3D());
    expect(PIPELINE.indexOf(renderSystem)).toBeGreaterThan(PIPELINE.indexOf(syncSystem));
    expect(PIPELINE[PIPELINE.length - 1]).toBe(overlaySystem);
    expect(PIPELINE[PIPELINE.length - 2]).toBe(renderSystem);
    runPipeline(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    runPipeline(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    setPosition(world, eid, 4, 0, 0);
    runPipeline(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);
    expect(world.objects[eid]!.matrixWorld.elements[12]).toBe(4);
  });

  it('draws when the camera controls report a move', () => {
    const { world, renderer } = readyWorld();
    let moved = false;
    world.navigation.controls = { update: () => moved };
    runPipeline(world);
    runPipeline(world);
    expect(renderer.render).toHaveBeenCalledTimes(1);
    moved = true;
    runPipeline(world);
    expect(renderer.render).toHaveBeenCalledTimes(2);
  });

  it("runs the 'afterDraw' steps right after each picture it draws, and only then", () => {
    const { world, renderer } = readyWorld();
    const order: string[] = [];
    renderer.render.mockImplementation(() => void order.push('picture'));
    addFrameStep(world, 'afterDraw', { name: 'selection outline', run: () => order.push('outline') });
    renderSystem(world);
    renderSystem(world); // nothing asked for a picture: no outline over nothing
    world.render.needsRender = true;
    world.render.hold = 1;
    renderSystem(world);
    world.render.hold = 0;
    renderSystem(world);
    expect(order).toEqual(['picture', 'outline', 'picture', 'outline']);
  });

  /**
   * A ready world with a levelled instance group, a budget of 1M triangles, and a picture that
   * costs `triangles(bias)`, `finer(triangles)` of them finer than their coarsest level (as the
   * culling counts them).
   */
  function budgetedWorld(triangles: (bias: number) => number, finer: (triangles: number) => number) {
    const ready = readyWorld();
    const { world, renderer } = ready;
    world.instanceGroups.set(99, {} as never);
    const fake = renderer as unknown as { getDrawingBufferSize(v: { set(x: number, y: number): void }): void };
    fake.getDrawingBufferSize = (v) => v.set(800, 600);
    renderer.render.mockImplementation(() => {
      renderer.info.render.triangles = triangles(levelView.bias);
      world.render.instanceFinerTriangles = finer(renderer.info.render.triangles);
    });
    world.render.budget.budget = 1_000_000;
    return ready;
  }

  it('keeps a levelled scene under its triangle budget: raised at once when over, coarser while moving, refined at rest by itself', () => {
    // Levelled instances that cost 4M triangles at bias 1, as 1 / bias^2 (src/engine/triangle-budget.ts),
    // every one finer than its coarsest level (a higher bias takes them away).
    const { world } = budgetedWorld(
      (bias) => Math.round(4_000_000 / bias ** 2),
      (all) => all,
    );
    const drawnAt: number[] = [];
    const tick = (ms: number, moved = false) => {
      world.time.then = ms;
      world.camera.moved = moved;
      const before = world.stats.renderedFrames;
      renderSystem(world);
      if (world.stats.renderedFrames > before) drawnAt.push(levelView.bias);
    };
    tick(1000);
    // Over at rest: the next frame is asked for, with the shadow maps, and fits.
    expect(world.render.needsRender).toBe(true);
    tick(1016);
    expect(world.stats.triangles).toBeLessThanOrEqual(1_000_000);
    tick(1032);
    tick(1048);
    expect(drawnAt).toEqual([1, 2]);
    // Moving: half the budget.
    for (let t = 2000; t < 2100; t += 16) tick(t, true);
    expect(world.stats.triangles).toBeLessThanOrEqual(500_000);
    const moving = levelView.bias;
    expect(moving).toBeGreaterThan(2);
    // Rest: nothing else asks for a picture, yet one comes, at the finer bias the whole budget allows.
    drawnAt.length = 0;
    for (let t = 2100; t < 3000; t += 16) tick(t);
    expect(drawnAt).toHaveLength(1);
    expect(drawnAt[0]).toBeLessThan(moving);
    expect(world.render.budget.cost).toBeLessThanOrEqual(1_000_000);
    expect(world.render.needsRender || world.render.needsPicture).toBe(false);
  });

  it('draws no frame for the budget when nothing in the picture can give way (every instance at its coarsest level)', () => {
    // A city of cards: over the budget whatever the bias, and the culling counted nothing finer.
    const { world } = budgetedWorld(
      () => 2_000_000,
      () => 0,
    );
    world.time.then = 1000;
    world.camera.moved = false;
    world.render.needsRender = true;
    renderSystem(world);
    expect(world.stats.renderedFrames).toBe(1);
    expect(world.render.budget.over).toBe(true);
    expect(world.render.budget.bias).toBe(1);
    expect(world.render.needsRender || world.render.needsPicture).toBe(false);
  });
});
