import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../../src/engine/world';
import { attachDomPointerSource } from '../../../../src/viewer/input/pointer';
import { createPointerRouter, type PointerHandler } from '../../../../src/viewer/input/pointer-router';
import { fakePage, type FakeNode } from '../../support/fake-dom';

function stage(options: { grab?: boolean } = {}) {
  const page = fakePage();
  const world = createViewerWorld();
  const calls: string[] = [];
  const camera = { enabled: true };
  const handlers: PointerHandler = {
    grab: () => options.grab === true,
    drag: (x, y) => void calls.push(`drag ${x},${y}`),
    release: (x, y) => void calls.push(`release ${x},${y}`),
    click: () => calls.push('click') > 0,
    shiftClick: () => calls.push('shiftClick') > 0,
    doubleClick: () => calls.push('doubleClick') > 0,
    hover: (x, y) => void calls.push(`hover ${x},${y}`),
    leave: () => void calls.push('leave'),
  };
  // The viewer's composition: one router, the DOM as its source.
  const router = createPointerRouter(world, { camera: () => camera });
  router.add('tool', handlers);
  const detach = attachDomPointerSource(router, page.container as unknown as HTMLElement, page.canvas as unknown as HTMLCanvasElement);
  const input = {
    dispose() {
      detach();
      router.dispose();
    },
  };
  let time = 1000;
  const pointer = (target: FakeNode, type: string, id: number, x: number, y: number, extra: Record<string, unknown> = {}) => {
    time += 40;
    page.dispatch(target, type, { pointerId: id, isPrimary: id === 1, pointerType: 'touch', button: 0, buttons: type === 'pointerup' ? 0 : 1, clientX: x, clientY: y, timeStamp: time, shiftKey: false, ...extra });
  };
  const tap = (x: number, y: number) => {
    pointer(page.canvas, 'pointerdown', 1, x, y);
    pointer(page.canvas, 'pointerup', 1, x, y);
  };
  const frame = () => runFrameSteps(world, 'input');
  return { ...page, world, calls, camera, input, pointer, tap, frame };
}

describe('pointer input (the DOM source and the router)', () => {
  it('reports a tap as a click and two taps as a double tap', () => {
    const s = stage();
    s.tap(100, 100);
    s.tap(102, 101);
    expect(s.calls).toEqual(['click', 'click', 'doubleClick']);
  });

  it('never makes a click or a double tap out of two fingers (a two-finger tap, a small pinch)', () => {
    const s = stage();
    for (let round = 0; round < 2; round++) {
      s.pointer(s.canvas, 'pointerdown', 1, 100, 100);
      s.pointer(s.canvas, 'pointerdown', 2, 200, 200);
      if (round === 1) {
        s.pointer(s.canvas, 'pointermove', 1, 102, 100);
        s.pointer(s.canvas, 'pointermove', 2, 198, 200);
      }
      s.pointer(s.canvas, 'pointerup', 1, 101, 100);
      s.pointer(s.canvas, 'pointerup', 2, 200, 200);
    }
    expect(s.calls).toEqual([]);
    // A tap right after a pinch is one click, not the second half of a double tap.
    s.tap(100, 100);
    expect(s.calls).toEqual(['click']);
  });

  it('takes only presses on the canvas (panels and labels are the UI\'s), and Shift+click samples', () => {
    const s = stage();
    s.pointer(s.panelButton, 'pointerdown', 1, 10, 10);
    s.pointer(s.panelButton, 'pointerup', 1, 10, 10);
    expect(s.calls).toEqual([]);
    s.pointer(s.canvas, 'pointerdown', 1, 50, 50, { shiftKey: true });
    s.pointer(s.canvas, 'pointerup', 1, 50, 50, { shiftKey: true });
    expect(s.calls).toEqual(['shiftClick']);
  });

  it('drags a grabbed handle once per frame (the frame\'s input slot), and lets go where the pointer did', () => {
    const s = stage({ grab: true });
    s.pointer(s.canvas, 'pointerdown', 1, 100, 100);
    expect(s.camera.enabled).toBe(false);
    for (const x of [110, 120, 130]) s.pointer(s.canvas, 'pointermove', 1, x, 100);
    expect(s.calls).toEqual([]);
    expect(s.world.render.needsRender).toBe(true);
    s.frame();
    expect(s.calls).toEqual(['drag 130,100']);
    s.frame();
    expect(s.calls).toEqual(['drag 130,100']);
    // Moves still waiting for their frame are applied before the release.
    s.pointer(s.canvas, 'pointermove', 1, 140, 100);
    s.pointer(s.canvas, 'pointermove', 1, 150, 105);
    s.pointer(s.canvas, 'pointerup', 1, 150, 105);
    expect(s.calls).toEqual(['drag 130,100', 'drag 150,105', 'release 150,105']);
    expect(s.camera.enabled).toBe(true);
    s.frame();
    expect(s.calls).toHaveLength(3);
  });

  it('hovers once per frame with the latest position, and not after leaving', () => {
    const s = stage();
    for (const x of [10, 20, 30]) s.pointer(s.canvas, 'pointermove', 1, x, 5, { buttons: 0 });
    s.frame();
    s.frame();
    expect(s.calls).toEqual(['hover 30,5']);
    s.pointer(s.canvas, 'pointermove', 1, 40, 5, { buttons: 0 });
    s.dispatch(s.container, 'pointerleave');
    s.frame();
    expect(s.calls).toEqual(['hover 30,5', 'leave']);
  });

  it('stops listening and leaves the frame when disposed', () => {
    const s = stage();
    s.input.dispose();
    expect(s.world.steps.input).toHaveLength(0);
    s.tap(1, 1);
    expect(s.calls).toEqual([]);
  });
});
