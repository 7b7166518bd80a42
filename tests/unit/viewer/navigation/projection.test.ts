import { OrthographicCamera, PerspectiveCamera } from 'three';
import { describe, expect, it } from 'vitest';
import { CAMERA_MIN_DISTANCE } from '../../../../src/protocol/constants';
import { ORTHO_DISTANCE_RADII, visibleHalfHeight } from '../../../../src/viewer/navigation/framing';
import { fitOrthoDepth, fitOrthoFrustum, fitPerspectiveDepth, orthoDistance, switchCamera } from '../../../../src/viewer/navigation/projection';
import { controlsAt } from './controls-stand-in';

describe('the projection switch (src/viewer/navigation/projection.ts)', () => {
  it('fits the orthographic frustum to the perspective framing at the target, and its distance keeps the scene in front', () => {
    const perspective = new PerspectiveCamera(45, 2, 0.1, 100);
    const ortho = new OrthographicCamera();
    fitOrthoFrustum(ortho, perspective, 10, 2, 4);
    const half = visibleHalfHeight(10, 45);
    expect(ortho.top).toBeCloseTo(half, 9);
    expect(ortho.right).toBeCloseTo(2 * half, 9);
    expect(ortho.far).toBeCloseTo(100 + 4 * ORTHO_DISTANCE_RADII, 9);
    expect(orthoDistance(3, 4)).toBe(4 * ORTHO_DISTANCE_RADII);
    expect(orthoDistance(0, 0)).toBe(CAMERA_MIN_DISTANCE);
  });

  it('hands the controls over both ways with the same visible height at the target', () => {
    const { controls, camera } = controlsAt();
    const ortho = new OrthographicCamera();
    let limits = 0;
    const before = visibleHalfHeight(controls.distanceEnd, camera.getEffectiveFOV());
    switchCamera(controls, camera, ortho, 'Orthographic', 16 / 9, 1, () => limits++);
    expect(controls.camera).toBe(ortho);
    expect(ortho.top / controls.zoomEnd).toBeCloseTo(before, 9);
    switchCamera(controls, camera, ortho, 'Perspective', 16 / 9, 1, () => limits++);
    expect(controls.camera).toBe(camera);
    expect(visibleHalfHeight(controls.distanceEnd, camera.fov)).toBeCloseTo(before, 9);
    expect(limits).toBe(2);
  });

  it("gives the cameras a scene's depth range", () => {
    const perspective = new PerspectiveCamera(45, 2, 0.1, 100);
    fitPerspectiveDepth(perspective, 1000);
    expect(perspective.far).toBe(20000);
    const ortho = new OrthographicCamera();
    fitOrthoDepth(ortho, perspective, 1000);
    expect([ortho.near, ortho.far]).toEqual([perspective.near, 20000 + 1000 * ORTHO_DISTANCE_RADII]);
  });
});
