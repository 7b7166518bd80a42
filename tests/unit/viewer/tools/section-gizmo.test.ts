import { Group, MathUtils, Object3D, PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../../src/engine/world';
import type { ToolContext } from '../../../../src/viewer/tools/context';
import { createSectionGizmo, formatTilt, TILT_SNAP_DEGREES } from '../../../../src/viewer/tools/section-gizmo';

describe('section plane tilt', () => {
  it('snaps in 15 degree steps and shows whole degrees; free rotation shows a decimal', () => {
    expect(TILT_SNAP_DEGREES).toBe(15);
    expect(formatTilt(MathUtils.degToRad(15), false)).toBe('15°');
    expect(formatTilt(MathUtils.degToRad(-45), false)).toBe('-45°');
    expect(formatTilt(MathUtils.degToRad(17.26), true)).toBe('17.3°');
    expect(formatTilt(-1e-9, true)).toBe('0.0°');
    expect(formatTilt(-1e-9, false)).toBe('0°');
  });
});

/** The gizmo on a stand-in context: an 800 x 600 canvas, a camera 10 m before the origin. */
function stage() {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera(45, 800 / 600, 0.1, 100);
  camera.position.set(0, 0, 10);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  const label = { element: { style: {} as Record<string, string>, dataset: {} }, point: new Vector3(), offsetY: 0, inScreenshot: true, setText: vi.fn() };
  const canvas = { getBoundingClientRect: () => ({ left: 0, top: 0, width: 800, height: 600 }) };
  const ctx = {
    world,
    renderer: { domElement: canvas },
    helpers: new Group(),
    labels: { add: () => label, remove: vi.fn() },
    camera: () => camera,
    redraw: vi.fn(),
    changed: vi.fn(),
  } as unknown as ToolContext;
  const hooks = { moved: vi.fn(), dragEnded: vi.fn(), loaded: vi.fn(), failed: vi.fn() };
  const gizmo = createSectionGizmo(ctx, hooks);
  // A plane whose normal (+Z of its pivot) points to the right of the screen: the move arrow lies along screen x.
  const pivot = new Object3D();
  pivot.rotation.y = Math.PI / 2;
  (ctx.helpers as Group).add(pivot);
  pivot.updateMatrixWorld();
  return { world, ctx, hooks, gizmo, pivot, label };
}

describe('the section gizmo (src/viewer/tools/section-gizmo.ts)', () => {
  it('fetches its code when asked, is made on first show, and hides again', async () => {
    const s = stage();
    expect(s.gizmo.show(s.pivot)).toBe(false);
    expect(s.gizmo.pointer.grab?.(400, 300)).toBe(false);
    await vi.waitFor(() => expect(s.hooks.loaded).toHaveBeenCalled());
    expect(s.gizmo.show(s.pivot)).toBe(true);
    const helper = s.ctx.helpers.children.find((o) => o.name === 'Section plane gizmo') as unknown as {
      controls: { object?: Object3D; enabled: boolean; mode: string; rotationSnap: number | null };
    };
    expect(helper.controls.object).toBe(s.pivot);
    expect(helper.controls.enabled).toBe(true);
    s.gizmo.mode = 'rotate';
    expect(helper.controls.mode).toBe('rotate');
    expect(helper.controls.rotationSnap).toBeCloseTo(MathUtils.degToRad(TILT_SNAP_DEGREES), 9);
    s.gizmo.freeRotation = true;
    expect(helper.controls.rotationSnap).toBeNull();
    s.gizmo.release(s.pivot);
    expect(helper.controls.object).toBeUndefined();
    s.gizmo.show(null);
    expect(helper.controls.enabled).toBe(false);
    s.gizmo.dispose();
    expect(s.ctx.helpers.children).toEqual([s.pivot]);
    expect(s.world.steps.helpers).toHaveLength(0);
  });

  it('drags the plane along its normal from a press on the arrow, driven by the router; a press beside it is not taken', async () => {
    const s = stage();
    s.gizmo.load();
    await vi.waitFor(() => expect(s.hooks.loaded).toHaveBeenCalled());
    s.gizmo.show(s.pivot);
    runFrameSteps(s.world, 'helpers');
    // The picture's matrix update places the handles (the renderer does it every frame).
    s.ctx.helpers.updateMatrixWorld(true);
    // Far from the handles: left for the tools and the camera.
    expect(s.gizmo.pointer.grab?.(100, 100)).toBe(false);
    // On the arrow, right of the centre.
    expect(s.gizmo.pointer.grab?.(460, 300)).toBe(true);
    expect(s.gizmo.dragging).toBe(true);
    s.gizmo.pointer.drag?.(560, 300);
    expect(s.hooks.moved).toHaveBeenCalled();
    expect(s.pivot.position.x).toBeGreaterThan(0.5);
    expect(Math.abs(s.pivot.position.y) + Math.abs(s.pivot.position.z)).toBeLessThan(1e-9);
    s.gizmo.pointer.release?.(560, 300);
    expect(s.gizmo.dragging).toBe(false);
    expect(s.hooks.dragEnded).toHaveBeenCalledTimes(1);
  });
});
