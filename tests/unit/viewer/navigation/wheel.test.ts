import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import { createPointerRouter } from '../../../../src/viewer/input/pointer-router';
import type { PickHit } from '../../../../src/viewer/pick-types';
import { wheelTowardsSurface } from '../../../../src/viewer/navigation/wheel';
import { controlsAt } from './controls-stand-in';

function stage(surface: Vector3 | null, applies = true) {
  const { controls, camera } = controlsAt();
  let picks = 0;
  const router = createPointerRouter(createViewerWorld(), {
    camera: () => controls,
    pick: () => (picks++, surface ? ({ point: surface.clone() } as PickHit) : null),
  });
  router.add(
    'navigation',
    wheelTowardsSurface(controls, router, () => applies),
  );
  return { controls, camera, router, picks: () => picks };
}

describe('the wheel towards the surface (src/viewer/navigation/wheel.ts)', () => {
  it('moves the orbit point onto the surface under the pointer before zooming in, keeping the view', () => {
    const s = stage(new Vector3(2, 1, 0));
    const eye = s.camera.position.clone();
    s.router.wheel(500, 300, -100);
    expect(s.controls.getTarget(new Vector3(), false).distanceTo(new Vector3(2, 1, 0))).toBeLessThan(1e-6);
    // The camera stays where it is (camera-controls takes the difference as a focal offset).
    s.controls.update(0);
    expect(s.camera.position.distanceTo(eye)).toBeLessThan(1e-6);
    // More wheel in the same frame: the same pick.
    s.router.wheel(500, 300, -100);
    expect(s.picks()).toBe(1);
  });

  it('leaves the target alone zooming out, where it does not apply, off the model, or already orbiting the point', () => {
    const out = stage(new Vector3(2, 1, 0));
    out.router.wheel(1, 1, 100);
    expect(out.controls.getTarget(new Vector3(), false).toArray()).toEqual([0, 0, 0]);
    expect(out.picks()).toBe(0);
    const fp = stage(new Vector3(2, 1, 0), false);
    fp.router.wheel(1, 1, -100);
    expect(fp.controls.getTarget(new Vector3(), false).toArray()).toEqual([0, 0, 0]);
    const miss = stage(null);
    miss.router.wheel(1, 1, -100);
    expect(miss.controls.getTarget(new Vector3(), false).toArray()).toEqual([0, 0, 0]);
    const near = stage(new Vector3(0.01, 0, 0));
    near.router.wheel(1, 1, -100);
    expect(near.controls.getTarget(new Vector3(), false).toArray()).toEqual([0, 0, 0]);
  });
});
