import { BoxGeometry, Group, Mesh, MeshBasicMaterial, Sphere } from 'three';
import { describe, expect, it } from 'vitest';
import { distanceForHalfHeight, measure, visibleHalfHeight } from '../../../../src/viewer/navigation/framing';

function box(size: number, x = 0): Mesh {
  const mesh = new Mesh(new BoxGeometry(size, size, size), new MeshBasicMaterial());
  mesh.position.x = x;
  mesh.updateMatrixWorld(true);
  return mesh;
}

describe('framing', () => {
  it('visible half height and the distance for it are inverse to each other', () => {
    expect(visibleHalfHeight(10, 90)).toBeCloseTo(10, 9);
    expect(distanceForHalfHeight(10, 90)).toBeCloseTo(10, 9);
    for (const fov of [20, 45, 60, 100]) expect(distanceForHalfHeight(visibleHalfHeight(7, fov), fov)).toBeCloseTo(7, 9);
  });

  it('measures the bounding sphere of everything given, in world space', () => {
    const out = new Sphere();
    const radius = measure([box(2, -5), box(2, 5)], out);
    expect(out.center.x).toBeCloseTo(0, 9);
    // The box from (-6,-1,-1) to (6,1,1): half its diagonal.
    expect(radius).toBeCloseTo(Math.sqrt(36 + 1 + 1), 9);
    expect(out.radius).toBe(radius);
  });

  it('nothing (or only empty groups) measures 0; a point-like object at least 1e-3', () => {
    const out = new Sphere();
    expect(measure([], out)).toBe(0);
    expect(measure([new Group()], out)).toBe(0);
    expect(measure([box(0)], out)).toBe(1e-3);
  });
});
