import { PerspectiveCamera, type BufferAttribute } from 'three';
import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../../src/engine/world';
import { createCommentPins, type PinInput } from '../../../../src/viewer/comments/pins';

function setup() {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera(60, 2, 0.1, 100);
  camera.position.set(0, 0, 10);
  camera.lookAt(0, 0, 0);
  world.render.camera = camera;
  const canvas = { clientWidth: 800, clientHeight: 400 } as HTMLCanvasElement;
  const pins = createCommentPins(world, { canvas, pixelRatio: () => 1 });
  const countAttribute = () => (pins.object as unknown as { geometry: { getAttribute(name: string): BufferAttribute } }).geometry.getAttribute('aCount');
  const frame = (moved: boolean) => {
    world.camera.moved = moved;
    runFrameSteps(world, 'helpers');
  };
  return { world, camera, pins, countAttribute, frame };
}

/** `n` pins on a 10 x n/10 grid in front of the camera, one unit apart (no two in one cell). */
function grid(n: number): PinInput[] {
  return Array.from({ length: n }, (_, i) => ({ id: `p${i}`, position: [(i % 10) - 4.5, Math.floor(i / 10) - 1.5, 0] as const, resolved: false }));
}

describe('comment pins frame step', () => {
  it('works only when the pins changed or the camera moved', () => {
    const { pins, countAttribute, frame } = setup();
    pins.set(grid(40));
    frame(false); // the new pins: projected once
    const version = countAttribute().version;
    expect(pins.drawn).toBe(40);
    frame(false);
    frame(false);
    expect(countAttribute().version).toBe(version);
    frame(true);
    expect(countAttribute().version).toBe(version + 1);
  });

  it('follows a moved camera without asking for a picture (the render system draws for it, and keeps the shadow maps)', () => {
    const { world, pins, frame } = setup();
    pins.set(grid(10));
    frame(false);
    world.render.needsRender = false;
    world.render.needsPicture = false;
    frame(true);
    expect(world.render).toMatchObject({ needsRender: false, needsPicture: false });
    // New pins ask for a picture, one that keeps the shadow maps (pins cast no shadow).
    pins.set(grid(12));
    world.render.needsPicture = false;
    frame(false);
    expect(world.render).toMatchObject({ needsRender: false, needsPicture: true });
  });

  it('an empty list where there were no pins asks for no frame; emptying shown pins asks for one', () => {
    const { world, pins, frame } = setup();
    world.render.needsRender = false;
    expect(pins.object.visible, 'no pins: nothing on the helper layer').toBe(false);
    pins.set([]);
    expect(world.render.needsPicture).toBe(false);
    expect(pins.object.visible).toBe(false);
    pins.set(grid(3));
    expect(pins.object.visible).toBe(true);
    expect(world.render.needsPicture).toBe(true);
    frame(false);
    world.render.needsPicture = false;
    pins.set([]);
    expect(world.render.needsPicture).toBe(true);
    expect(pins.object.visible).toBe(false);
  });

  it('uploads the whole count buffer while the pins fill half of it or more, a range otherwise', () => {
    const { pins, camera, countAttribute, frame } = setup();
    pins.set(grid(100)); // capacity 100
    frame(true);
    expect(countAttribute().count).toBe(100);
    expect(countAttribute().updateRanges).toEqual([]);
    camera.position.x = 0.5;
    camera.updateMatrixWorld();
    frame(true);
    expect(countAttribute().updateRanges).toEqual([]);
    expect(pins.drawn).toBeGreaterThan(0);

    pins.set(grid(10)); // same buffers, 10 of 100 used
    frame(true);
    expect(countAttribute().count).toBe(100);
    expect(countAttribute().updateRanges).toEqual([{ start: 0, count: 10 }]);
    // The unused tail stays hidden.
    expect(Array.from(countAttribute().array as Float32Array).slice(10).every((c) => c === 0)).toBe(true);
  });
});
