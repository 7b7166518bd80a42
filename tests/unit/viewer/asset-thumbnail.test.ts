import { describe, expect, it } from 'vitest';
import { THUMBNAIL_FOV, thumbnailCamera } from '../../../src/viewer/asset-thumbnail';

describe('the thumbnail camera', () => {
  it('looks at the centre of the box from the front right, above, far enough to show it whole', () => {
    const view = thumbnailCamera([-1, 0, -2], [3, 4, 2]);
    expect(view.target).toEqual([1, 2, 0]);
    const d = view.position.map((v, i) => v - view.target[i]!);
    expect(d[0]).toBeGreaterThan(0);
    expect(d[1]).toBeGreaterThan(0);
    expect(d[2]).toBeGreaterThan(0);
    const distance = Math.hypot(...d);
    const radius = Math.hypot(4, 4, 4) / 2;
    // The bounding sphere is inside the view cone: radius / distance <= sin(fov / 2).
    expect(radius / distance).toBeLessThanOrEqual(Math.sin((THUMBNAIL_FOV * Math.PI) / 360));
    expect(radius / distance).toBeGreaterThan(0.9 * Math.sin((THUMBNAIL_FOV * Math.PI) / 360));
    expect(view.near).toBeGreaterThan(0);
    expect(view.near).toBeLessThan(distance - radius);
    expect(view.far).toBeGreaterThan(distance + radius);
  });

  it('scales with the asset: a bench and a house fill the picture alike', () => {
    const bench = thumbnailCamera([-0.9, 0, -0.3], [0.9, 0.85, 0.2]);
    const house = thumbnailCamera([-9, 0, -3], [9, 8.5, 2]);
    const dist = (v: ReturnType<typeof thumbnailCamera>) => Math.hypot(...v.position.map((p, i) => p - v.target[i]!));
    expect(dist(house) / dist(bench)).toBeCloseTo(10, 5);
    // A degenerate (empty-sized) box still gives a usable camera.
    const point = thumbnailCamera([0, 0, 0], [0, 0, 0]);
    expect(point.position.every(Number.isFinite)).toBe(true);
    expect(point.far).toBeGreaterThan(point.near);
  });
});
