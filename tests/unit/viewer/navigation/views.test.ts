import { Box3, Sphere, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { frameFromAbove, lookFromEye, recentre, threeQuarterView, viewAngles } from '../../../../src/viewer/navigation/views';
import { controlsAt, settle } from './controls-stand-in';

describe('views from a side (src/viewer/navigation/views.ts)', () => {
  it('gives each side its angles, the nearest azimuth to the current one, Plan looking down for the bottom', () => {
    expect(viewAngles('+x', 'Orbit', 0)).toEqual({ polar: Math.PI / 2, azimuth: Math.PI / 2 });
    // The back, as the nearest turn from 0 (-π and π look the same way).
    expect(Math.abs(viewAngles('-z', 'Orbit', 0).azimuth)).toBeCloseTo(Math.PI, 9);
    expect(viewAngles('+z', 'Orbit', 4 * Math.PI).azimuth).toBeCloseTo(4 * Math.PI, 9);
    expect(viewAngles('-y', 'Orbit', 0).polar).toBe(Math.PI);
    expect(viewAngles('-y', 'Plan', 0).polar).toBe(0);
    expect(viewAngles('+y', 'Orbit', 1)).toEqual({ polar: 0, azimuth: 0 });
  });

  it('looks from the eye along a side in FirstPerson, and recentres per mode', async () => {
    const { controls } = controlsAt();
    // FirstPerson: the target just in front of the eye.
    await controls.setLookAt(0, 0, 10, 0, 0, 9.999, false);
    await lookFromEye(controls, Math.PI / 2, Math.PI / 2, false);
    const p = controls.getPosition(new Vector3(), true);
    const t = controls.getTarget(new Vector3(), true);
    expect(p.distanceTo(new Vector3(0, 0, 10))).toBeLessThan(2e-3);
    // Seen from the +X side: looking along -X.
    expect(t.sub(p).normalize().x).toBeCloseTo(-1, 6);
    await controls.setLookAt(0, 0, 10, 0, 0, 0, false);
    await recentre(controls, 'Orbit', new Vector3(1, 2, 3), false);
    expect(controls.getTarget(new Vector3(), true).toArray()).toEqual([1, 2, 3]);
    expect(
      controls
        .getPosition(new Vector3(), true)
        .toArray()
        .map((v) => Math.round(v * 1e6) / 1e6),
    ).toEqual([0, 0, 10]);
    await recentre(controls, 'Plan', new Vector3(5, 2, 3), false);
    expect(controls.getTarget(new Vector3(), true).x).toBeCloseTo(5, 6);
  });

  it('frames from above, square to the axes, and frames a scene from the three-quarter view', async () => {
    const { controls } = controlsAt();
    const box = new Box3(new Vector3(-2, -1, -1), new Vector3(2, 1, 1));
    const framing = frameFromAbove(controls, box, Math.sqrt(6), false);
    settle(controls);
    await framing;
    expect(controls.polarAngle).toBeCloseTo(0, 4);
    expect(controls.azimuthAngle).toBeCloseTo(0, 6);
    await threeQuarterView(controls, new Sphere(new Vector3(1, 0, 0), 2), false);
    const p = controls.getPosition(new Vector3(), true);
    expect([p.x, p.y, p.z].map((v) => Math.round(v * 1e6) / 1e6)).toEqual([3.4, 1.6, 3.2]);
  });
});
