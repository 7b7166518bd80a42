import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../src/engine/world';
import { navigationSystem } from '../../../systems/navigationSystem';

describe('navigationSystem', () => {
  it('updates the controls with the frame time and tells the frame whether the camera moved (not that the scene changed)', () => {
    const world = createViewerWorld();
    const deltas: number[] = [];
    let moved = true;
    world.navigation.controls = { update: (delta) => (deltas.push(delta), moved) };
    world.time.delta = 0.02;
    world.render.needsRender = false;
    navigationSystem(world);
    expect(deltas).toEqual([0.02]);
    expect(world.camera).toEqual({ moved: true, version: 1 });
    // The render system draws for a moved camera; needsRender stays for changes of the scene.
    expect(world.render.needsRender).toBe(false);
    moved = false;
    world.render.needsRender = false;
    navigationSystem(world);
    expect(world.camera).toEqual({ moved: false, version: 1 });
    expect(world.render.needsRender).toBe(false);
  });

  it('reports no move without controls', () => {
    const world = createViewerWorld();
    world.camera.moved = true;
    navigationSystem(world);
    expect(world.camera.moved).toBe(false);
  });
});
