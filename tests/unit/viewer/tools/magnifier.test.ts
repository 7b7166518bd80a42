import { describe, expect, it, vi } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import { createPointerRouter, type PointerSample } from '../../../../src/viewer/input/pointer-router';
import { createMagnifier, MAGNIFIER_OFFSET, MAGNIFIER_SIZE, magnifierPlacement } from '../../../../src/viewer/tools/magnifier';

describe('magnifier placement', () => {
  it('sits above the finger, clear of it', () => {
    const at = magnifierPlacement(200, 500, 390, 844);
    expect(at.top + MAGNIFIER_SIZE).toBe(500 - MAGNIFIER_OFFSET);
    expect(at.left + MAGNIFIER_SIZE / 2).toBe(200);
  });

  it('goes below the finger near the top and stays inside the view', () => {
    const at = magnifierPlacement(5, 60, 390, 844);
    expect(at.top).toBe(60 + MAGNIFIER_OFFSET);
    expect(at.left).toBe(4);
    const right = magnifierPlacement(388, 400, 390, 844);
    expect(right.left + MAGNIFIER_SIZE).toBeLessThanOrEqual(386);
  });
});

describe('the magnifier on the pointer router', () => {
  function stage(wanted: boolean) {
    const world = createViewerWorld();
    const element = {
      style: {} as Record<string, string>,
      dataset: {} as Record<string, string>,
      className: '',
      setAttribute() {},
      getContext: () => null,
      remove: vi.fn(),
    };
    const container = { ownerDocument: { createElement: () => element }, appendChild() {} } as unknown as HTMLElement;
    const canvas = { getBoundingClientRect: () => ({ left: 0, top: 0, width: 390, height: 844 }) } as unknown as HTMLCanvasElement;
    const router = createPointerRouter(world, { camera: () => ({ enabled: true }) });
    const magnifier = createMagnifier(world, container, canvas, router, () => wanted);
    const sample = (id: number, x: number, y: number, kind = 'touch'): PointerSample => ({
      id,
      x,
      y,
      time: 0,
      button: 0,
      buttons: 1,
      shift: false,
      primary: id === 1,
      kind,
      onCanvas: true,
    });
    return { world, element, router, magnifier, sample };
  }

  it('shows above a finger that places a point, follows it, and hides when it lifts', () => {
    const s = stage(true);
    s.router.down(s.sample(1, 200, 500));
    expect(s.magnifier.visible).toBe(true);
    expect(s.element.style.display).toBe('');
    s.router.move(s.sample(1, 200, 400));
    const at = magnifierPlacement(200, 400, 390, 844);
    expect(s.element.style.transform).toBe(`translate(${at.left.toFixed(1)}px, ${at.top.toFixed(1)}px)`);
    // Another finger does not move it.
    s.router.move(s.sample(2, 10, 10));
    expect(s.element.style.transform).toBe(`translate(${at.left.toFixed(1)}px, ${at.top.toFixed(1)}px)`);
    s.router.up(s.sample(1, 200, 400));
    expect(s.magnifier.visible).toBe(false);
    expect(s.element.style.display).toBe('none');
    s.magnifier.dispose();
    expect(s.element.remove).toHaveBeenCalled();
    expect(s.world.steps.overlays).toHaveLength(0);
  });

  it('stays hidden for a mouse, or when no point is being placed', () => {
    const mouse = stage(true);
    mouse.router.down(mouse.sample(1, 200, 500, 'mouse'));
    expect(mouse.magnifier.visible).toBe(false);
    const idle = stage(false);
    idle.router.down(idle.sample(1, 200, 500));
    expect(idle.magnifier.visible).toBe(false);
  });
});
