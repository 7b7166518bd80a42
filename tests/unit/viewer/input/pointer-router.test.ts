import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../../src/engine/world';
import type { PickHit } from '../../../../src/viewer/pick-types';
import { createPointerRouter, POINTER_ORDER, type PointerHandler, type PointerSample, type PointerSlot } from '../../../../src/viewer/input/pointer-router';

function stage() {
  const world = createViewerWorld();
  const camera = { enabled: true };
  const picks: [number, number][] = [];
  const router = createPointerRouter(world, {
    camera: () => camera,
    pick: (x, y) => {
      picks.push([x, y]);
      return { point: new Vector3(x, y, 0) } as PickHit;
    },
  });
  const calls: string[] = [];
  let time = 1000;
  const sample = (id: number, x: number, y: number, extra: Partial<PointerSample> = {}): PointerSample => {
    time += 40;
    return { id, x, y, time, button: 0, buttons: 1, shift: false, primary: id === 1, kind: 'mouse', onCanvas: true, ...extra };
  };
  const press = (x: number, y: number, extra: Partial<PointerSample> = {}) => router.down(sample(1, x, y, extra));
  const lift = (x: number, y: number, extra: Partial<PointerSample> = {}) => router.up(sample(1, x, y, { buttons: 0, ...extra }));
  const move = (x: number, y: number, buttons = 0) => router.move(sample(1, x, y, { buttons }));
  /** A handler that records its calls under its name; `takes` lists the kinds it takes. */
  const handler = (name: string, takes: string[] = []): PointerHandler => ({
    grab: () => (calls.push(`${name} grab`), takes.includes('grab')),
    drag: (x, y) => void calls.push(`${name} drag ${x},${y}`),
    release: () => void calls.push(`${name} release`),
    click: () => (calls.push(`${name} click`), takes.includes('click')),
    doubleClick: () => (calls.push(`${name} doubleClick`), takes.includes('doubleClick')),
    hover: (x, y) => void calls.push(`${name} hover ${x},${y}`),
    wheel: () => (calls.push(`${name} wheel`), takes.includes('wheel')),
  });
  const frame = () => runFrameSteps(world, 'input');
  return { world, camera, router, calls, picks, handler, press, lift, move, sample, frame };
}

describe('pointer router (src/viewer/input/pointer-router.ts)', () => {
  it('declares the order: gizmo handles, section gizmo, the active tool, selection, meeting, navigation', () => {
    expect(POINTER_ORDER).toEqual(['gizmo', 'section-gizmo', 'tool', 'selection', 'meeting', 'navigation']);
  });

  it('offers a press in the declared order whatever the order of adding, and a taker stops the lower ones', () => {
    const s = stage();
    // Added last to first.
    for (const slot of [...POINTER_ORDER].reverse()) s.router.add(slot, s.handler(slot, slot === 'tool' ? ['grab'] : []));
    expect(s.press(10, 10)).toBe(true);
    expect(s.calls).toEqual(['gizmo grab', 'section-gizmo grab', 'tool grab']);
    expect(s.camera.enabled).toBe(false);
    expect(s.router.grabbing).toBe(true);
    s.move(20, 10, 1);
    s.frame();
    expect(s.calls.slice(3)).toEqual(['tool drag 20,10']);
    s.lift(20, 10);
    expect(s.calls.slice(4)).toEqual(['tool release']);
    expect(s.camera.enabled).toBe(true);
  });

  it('takes the highest taker when two slots would both take the press', () => {
    const s = stage();
    s.router.add('selection', s.handler('box', ['grab']));
    s.router.add('gizmo', s.handler('gizmo', ['grab']));
    s.press(5, 5);
    expect(s.calls).toEqual(['gizmo grab']);
  });

  it('offers clicks and double clicks down the order until one is taken; hover goes to every handler', () => {
    const s = stage();
    s.router.add('navigation', s.handler('nav'));
    s.router.add('tool', s.handler('tool', ['click']));
    s.router.add('gizmo', s.handler('gizmo'));
    s.press(1, 1);
    s.lift(1, 1);
    expect(s.calls).toEqual(['gizmo grab', 'tool grab', 'nav grab', 'gizmo click', 'tool click']);
    s.calls.length = 0;
    s.press(2, 1);
    s.lift(2, 1);
    expect(s.calls.filter((c) => c.includes('doubleClick'))).toEqual(['gizmo doubleClick', 'tool doubleClick', 'nav doubleClick']);
    s.calls.length = 0;
    s.move(7, 8);
    s.frame();
    expect(s.calls).toEqual(['gizmo hover 7,8', 'tool hover 7,8', 'nav hover 7,8']);
  });

  it('offers the wheel down the order until taken', () => {
    const s = stage();
    s.router.add('navigation', s.handler('nav', ['wheel']));
    s.router.add('meeting', s.handler('meeting'));
    s.router.wheel(3, 4, -100);
    expect(s.calls).toEqual(['meeting wheel', 'nav wheel']);
  });

  it('picks once in a frame of many moves, however many read the hit, and again in the next frame', () => {
    const s = stage();
    const readers = [0, 0, 0];
    for (const _ of readers) s.router.add('tool', { hover: () => void s.router.hit() });
    for (let x = 0; x < 50; x++) s.move(x, 3);
    s.frame();
    // The meeting's cursor and the wheel read the same frame's hit.
    const cursor = s.router.hit();
    s.router.wheel(49, 3, -1);
    expect(s.router.hit()).toBe(cursor);
    expect(s.picks).toEqual([[49, 3]]);
    expect(cursor?.point.x).toBe(49);
    s.move(60, 3);
    s.frame();
    expect(s.picks).toEqual([
      [49, 3],
      [60, 3],
    ]);
  });

  it('picks again when the pointer is somewhere else within the frame (a move, a wheel)', () => {
    const s = stage();
    s.move(10, 3);
    s.frame();
    expect(s.router.hit()?.point.x).toBe(10);
    s.move(100, 3);
    s.router.wheel(100, 3, -1);
    expect(s.router.hit()?.point.x).toBe(100);
    s.router.wheel(120, 3, -1);
    expect(s.router.hit()?.point.x).toBe(120);
    expect(s.router.hit()?.point.x).toBe(120);
    expect(s.picks).toEqual([
      [10, 3],
      [100, 3],
      [120, 3],
    ]);
  });

  it('leaves when the pointer moves onto a panel inside the viewer', () => {
    const s = stage();
    const left: string[] = [];
    s.router.add('meeting', { leave: () => void left.push('meeting') });
    s.move(10, 3);
    expect(s.router.hit()).not.toBeNull();
    s.router.move(s.sample(1, 12, 3, { buttons: 0, onCanvas: false }));
    expect(left).toEqual(['meeting']);
    expect(s.router.hit()).toBeNull();
    s.router.move(s.sample(1, 14, 3, { buttons: 0, onCanvas: false }));
    expect(left).toEqual(['meeting']);
  });

  it('has no hit outside the canvas or after the pointer left', () => {
    const s = stage();
    expect(s.router.hit()).toBeNull();
    s.move(1, 1);
    s.router.leave();
    s.frame();
    expect(s.router.hit()).toBeNull();
    expect(s.picks).toEqual([]);
  });

  it('a second finger cancels the click in progress; Shift never grabs', () => {
    const s = stage();
    s.router.add('tool', s.handler('tool', ['grab', 'click']));
    s.press(1, 1);
    s.router.down(s.sample(2, 50, 50));
    s.lift(1, 1);
    expect(s.calls).toEqual(['tool grab', 'tool release']);
    s.calls.length = 0;
    expect(s.press(1, 1, { shift: true })).toBe(false);
    expect(s.calls).toEqual([]);
  });

  it('gives the camera back when the grabbing handler is removed mid-drag, and refuses an unknown slot', () => {
    const s = stage();
    const remove = s.router.add('gizmo', s.handler('gizmo', ['grab']));
    s.press(1, 1);
    expect(s.camera.enabled).toBe(false);
    remove();
    expect(s.camera.enabled).toBe(true);
    expect(s.router.grabbing).toBe(false);
    expect(() => s.router.add('nowhere' as PointerSlot, {})).toThrow(/Unknown pointer slot/);
  });

  it('lets watchers see every event, and leaves the frame when disposed', () => {
    const s = stage();
    const seen: string[] = [];
    s.router.add('tool', { watch: (phase, sample) => void seen.push(`${phase} ${sample.kind}`) });
    s.router.down(s.sample(1, 0, 0, { kind: 'touch', onCanvas: false }));
    s.router.move(s.sample(1, 0, 0, { kind: 'touch' }));
    s.router.up(s.sample(1, 0, 0, { kind: 'touch' }));
    expect(seen).toEqual(['down touch', 'move touch', 'up touch']);
    s.router.dispose();
    expect(s.world.steps.input).toHaveLength(0);
  });
});
