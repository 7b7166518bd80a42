import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { applyModeLimits, enterFirstPerson, leaveFirstPerson } from '../../../../src/viewer/navigation/mode-switch';
import { distanceLimits, FIRST_PERSON_DISTANCE, FIRST_PERSON_ROTATE_SPEED } from '../../../../src/viewer/navigation/modes';
import { controlsAt } from './controls-stand-in';

describe('what a change of mode does to the camera (src/viewer/navigation/mode-switch.ts)', () => {
  it("applies a mode's limits: distances, the matching zoom range, Plan's polar lock, FirstPerson's look", () => {
    const { controls } = controlsAt();
    applyModeLimits(controls, 'Plan', 10, 4, 45);
    const plan = distanceLimits('Plan', 10);
    expect([controls.minDistance, controls.maxDistance]).toEqual([plan.min, plan.max]);
    expect([controls.minPolarAngle, controls.maxPolarAngle]).toEqual([0, 0]);
    expect(controls.dollyToCursor).toBe(true);
    expect(controls.maxZoom).toBeGreaterThan(controls.minZoom);
    applyModeLimits(controls, 'FirstPerson', 10, 4, 45);
    expect([controls.minZoom, controls.maxZoom]).toEqual([0.5, 8]);
    expect(controls.maxPolarAngle).toBe(Math.PI);
    expect(controls.azimuthRotateSpeed).toBe(FIRST_PERSON_ROTATE_SPEED);
    expect(controls.dollyToCursor).toBe(false);
  });

  it('enters FirstPerson keeping the eye and remembers the orbit distance, which leaving gives back', () => {
    const { controls } = controlsAt();
    const remembered = enterFirstPerson(controls);
    expect(remembered).toBeCloseTo(10, 6);
    expect(controls.getPosition(new Vector3(), true).distanceTo(new Vector3(0, 0, 10))).toBeLessThan(1e-9);
    expect(controls.distanceEnd).toBeCloseTo(FIRST_PERSON_DISTANCE, 6);
    leaveFirstPerson(controls, remembered, 1);
    expect(controls.distanceEnd).toBeCloseTo(10, 6);
    expect(controls.getTarget(new Vector3(), true).z).toBeCloseTo(0, 6);
    // Nothing remembered: twice the scene's radius ahead.
    enterFirstPerson(controls);
    leaveFirstPerson(controls, 0, 3);
    expect(controls.distanceEnd).toBeCloseTo(6, 6);
  });
});
