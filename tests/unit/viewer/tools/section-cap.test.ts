import { BoxGeometry, BufferGeometry, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial, Plane, PlaneGeometry, TorusGeometry, Vector3 } from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { describe, expect, it } from 'vitest';
import { buildCap, chainSegments, cutTriangle } from '../../../../src/viewer/tools/section-cap';

const material = new MeshBasicMaterial();
const mesh = (geometry: BufferGeometry, matrix = new Matrix4()) => {
  const m = new Mesh(geometry, material);
  m.matrixWorld.copy(matrix);
  return m;
};

describe('buildCap', () => {
  it('caps a unit cube cut in the middle with 1 m²', () => {
    const cap = buildCap(mesh(new BoxGeometry(1, 1, 1)), new Plane(new Vector3(0, 1, 0), 0))!;
    expect(cap.outers).toBe(1);
    expect(cap.holes).toBe(0);
    expect(cap.openChains).toBe(0);
    expect(cap.area).toBeCloseTo(1, 6);
    // Every cap vertex lies on the plane.
    for (let i = 1; i < cap.positions.length; i += 3) expect(Math.abs(cap.positions[i])).toBeLessThan(1e-6);
  });

  it('works in world space (a moved, rotated, scaled cube) and on a tilted plane', () => {
    const matrix = new Matrix4().makeRotationY(0.4).setPosition(5, 2, -3).multiply(new Matrix4().makeScale(2, 3, 4));
    const cap = buildCap(mesh(new BoxGeometry(1, 1, 1), matrix), new Plane(new Vector3(0, 1, 0), -2))!;
    expect(cap.area).toBeCloseTo(2 * 4, 5);
    // A diagonal cut of a unit cube through its centre perpendicular to (1,1,0): a 1 x sqrt(2) rectangle.
    const diagonal = buildCap(mesh(new BoxGeometry(1, 1, 1)), new Plane(new Vector3(1, 1, 0).normalize(), 0))!;
    expect(diagonal.area).toBeCloseTo(Math.SQRT2, 6);
  });

  it('gives a torus cut across its axis a ring with a hole', () => {
    const R = 1;
    const r = 0.25;
    const radial = 64;
    const cap = buildCap(mesh(new TorusGeometry(R, r, 24, radial)), new Plane(new Vector3(0, 0, 1), 0))!;
    expect(cap.outers).toBe(1);
    expect(cap.holes).toBe(1);
    expect(cap.openChains).toBe(0);
    // The ring between the polygons of radius R + r and R - r (both regular 64-gons).
    const polygon = (radius: number) => (radial / 2) * radius * radius * Math.sin((2 * Math.PI) / radial);
    expect(cap.area).toBeCloseTo(polygon(R + r) - polygon(R - r), 4);
    // No triangle covers the hole: every cap vertex is on one of the two circles.
    for (let i = 0; i < cap.positions.length; i += 3) {
      const d = Math.hypot(cap.positions[i], cap.positions[i + 1]);
      expect(Math.min(Math.abs(d - (R + r)), Math.abs(d - (R - r)))).toBeLessThan(1e-5);
    }
  });

  it('caps every instance of an instanced mesh', () => {
    const instanced = new InstancedMesh(new BoxGeometry(1, 1, 1), material, 3);
    instanced.setMatrixAt(0, new Matrix4().makeTranslation(0, 0, 0));
    instanced.setMatrixAt(1, new Matrix4().makeTranslation(3, 0, 0));
    instanced.setMatrixAt(2, new Matrix4().makeTranslation(0, 10, 0)); // not crossed
    const cap = buildCap(instanced, new Plane(new Vector3(0, 1, 0), 0))!;
    expect(cap.outers).toBe(2);
    expect(cap.area).toBeCloseTo(2, 6);
  });

  it('does not cap an open mesh, and returns null when the plane misses', () => {
    const open = new BoxGeometry(1, 1, 1);
    open.setIndex(Array.from(open.getIndex()!.array.slice(0, 30))); // 5 of 6 faces
    open.clearGroups();
    const cap = buildCap(mesh(open), new Plane(new Vector3(1, 0, 0), 0))!;
    expect(cap.openChains).toBeGreaterThan(0);
    expect(cap.area).toBe(0);
    expect(buildCap(mesh(new BoxGeometry(1, 1, 1)), new Plane(new Vector3(0, 1, 0), -5))).toBeNull();
    expect(buildCap(mesh(new PlaneGeometry(1, 1)), new Plane(new Vector3(0, 1, 0), 0))?.area ?? 0).toBe(0);
  });
});

describe('trees', () => {
  it('leaves the geometry as it is (no index reordering) and uses a given tree', () => {
    const geometry = new TorusGeometry(1, 0.25, 24, 64);
    const before = Array.from(geometry.index!.array);
    const m = mesh(geometry);
    buildCap(m, new Plane(new Vector3(0, 0, 1), 0));
    expect(Array.from(geometry.index!.array)).toEqual(before);
    expect((geometry as { boundsTree?: unknown }).boundsTree).toBeUndefined();
    const given = new MeshBVH(new BoxGeometry(1, 1, 1));
    const box = mesh(given.geometry);
    let asked = 0;
    const cap = buildCap(box, new Plane(new Vector3(0, 1, 0), 0), (asking) => {
      asked++;
      expect(asking).toBe(box);
      return given;
    })!;
    expect(asked).toBe(1);
    expect(cap.area).toBeCloseTo(1, 6);
  });
});

describe('cutTriangle and chainSegments', () => {
  it('counts a vertex on the plane on the negative side: no dangling points', () => {
    const out: number[] = [];
    const plane = new Plane(new Vector3(0, 1, 0), 0);
    cutTriangle(new Vector3(0, 0, 0), new Vector3(1, 1, 0), new Vector3(1, 2, 0), plane, out);
    expect(out).toEqual([]); // touches the plane at one vertex only
    cutTriangle(new Vector3(0, -1, 0), new Vector3(2, 1, 0), new Vector3(0, 1, 0), plane, out);
    expect(out).toHaveLength(6);
  });

  it('joins segments end to end into closed loops and reports open chains', () => {
    const square = [0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0];
    expect(chainSegments(square, 1e-9)).toMatchObject({ open: 0 });
    expect(chainSegments(square, 1e-9).closed[0]).toHaveLength(4);
    const nearlyClosed = [...square.slice(0, 21), 1e-7, 0, 0];
    expect(chainSegments(nearlyClosed, 1e-6).closed).toHaveLength(1);
    expect(chainSegments(square.slice(0, 18), 1e-9)).toMatchObject({ open: 1, closed: [] });
  });
});
