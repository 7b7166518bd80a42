import { MeshBasicMaterial, OrthographicCamera, PerspectiveCamera, Plane, Ray, Vector3, type Camera, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import {
  cameraInterval,
  clipInterval,
  keptByMaterial,
  keptByPlanes,
  localClippingOf,
  sectionPlanes,
  simpleMaterial,
  type Interval,
} from '../../../../src/viewer/picking/clipping';

/** A ray from (0, 0, 10) straight down -z: a point at z lies at distance 10 - z. */
const down = (): Ray => new Ray(new Vector3(0, 0, 10), new Vector3(0, 0, -1));
const all = (): Interval => ({ near: 0, far: Infinity });

describe('clipInterval', () => {
  it('raises near for a plane whose kept side lies ahead, lowers far for one whose kept side lies behind', () => {
    const interval = all();
    clipInterval(interval, down(), new Plane(new Vector3(0, 0, -1), 4)); // keeps z <= 4: from distance 6
    expect(interval).toEqual({ near: 6, far: Infinity });
    clipInterval(interval, down(), new Plane(new Vector3(0, 0, 1), 1)); // keeps z >= -1: up to distance 11
    expect(interval).toEqual({ near: 6, far: 11 });
    // A looser plane changes nothing.
    clipInterval(interval, down(), new Plane(new Vector3(0, 0, -1), 9));
    expect(interval).toEqual({ near: 6, far: 11 });
  });

  it('keeps all of a ray parallel to a plane on its kept side, and none of one on its cut side', () => {
    const kept = all();
    clipInterval(kept, down(), new Plane(new Vector3(1, 0, 0), 1)); // keeps x >= -1
    expect(kept).toEqual({ near: 0, far: Infinity });
    const cut = all();
    clipInterval(cut, down(), new Plane(new Vector3(1, 0, 0), -1)); // keeps x >= 1
    expect(cut.near > cut.far).toBe(true);
  });

  it('measures along an oblique ray', () => {
    const ray = new Ray(new Vector3(0, 0, 10), new Vector3(1, 0, -1).normalize());
    const interval = all();
    clipInterval(interval, ray, new Plane(new Vector3(0, 0, -1), 4)); // z <= 4 from z drop 6: distance 6 * sqrt 2
    expect(interval.near).toBeCloseTo(6 * Math.SQRT2, 9);
  });
});

describe('cameraInterval', () => {
  it('is the part between a perspective camera\'s near and far planes, along the ray', () => {
    const camera = new PerspectiveCamera(60, 1, 2, 50);
    camera.position.set(0, 0, 10);
    camera.updateMatrixWorld();
    const interval: Interval = { near: 123, far: -5 }; // overwritten
    cameraInterval(interval, down(), camera);
    expect(interval.near).toBeCloseTo(2, 9);
    expect(interval.far).toBeCloseTo(50, 9);
    // A ray off the view axis crosses the planes further along.
    const oblique = new Ray(new Vector3(0, 0, 10), new Vector3(0, 1, -1).normalize());
    cameraInterval(interval, oblique, camera);
    expect(interval.near).toBeCloseTo(2 * Math.SQRT2, 9);
    expect(interval.far).toBeCloseTo(50 * Math.SQRT2, 9);
  });

  it('follows an orthographic camera looking another way', () => {
    const camera = new OrthographicCamera(-1, 1, 1, -1, 1, 5);
    camera.position.set(10, 0, 0);
    camera.lookAt(0, 0, 0);
    camera.updateMatrixWorld();
    const interval = all();
    cameraInterval(interval, new Ray(new Vector3(10, 0.5, 0), new Vector3(-1, 0, 0)), camera);
    expect(interval.near).toBeCloseTo(1, 9);
    expect(interval.far).toBeCloseTo(5, 9);
  });

  it('is the whole ray for a camera without near and far', () => {
    const camera = { getWorldDirection: () => new Vector3() } as unknown as Camera;
    const interval: Interval = { near: 3, far: 4 };
    cameraInterval(interval, down(), camera);
    expect(interval).toEqual({ near: 0, far: Infinity });
  });
});

describe('simpleMaterial', () => {
  const planes = () => [new Plane(new Vector3(0, 0, -1), 0.5)];

  it('takes one material unless its planes cut by intersection (with local clipping on)', () => {
    const plain = new MeshBasicMaterial();
    expect(simpleMaterial(plain, true)).toBe(plain);
    const union = new MeshBasicMaterial({ clippingPlanes: planes() });
    expect(simpleMaterial(union, true)).toBe(union);
    const intersection = new MeshBasicMaterial({ clippingPlanes: planes(), clipIntersection: true });
    expect(simpleMaterial(intersection, true)).toBeNull();
    expect(simpleMaterial(intersection, false)).toBe(intersection);
  });

  it('takes several materials only when all are visible and unclipped', () => {
    const a = new MeshBasicMaterial();
    const b = new MeshBasicMaterial();
    expect(simpleMaterial([a, b], true)).toBe(a);
    b.visible = false;
    expect(simpleMaterial([a, b], true)).toBeNull();
    b.visible = true;
    b.clippingPlanes = planes();
    expect(simpleMaterial([a, b], true)).toBeNull();
    expect(simpleMaterial([a, b], false)).toBe(a);
    expect(simpleMaterial([], true)).toBeNull();
  });
});

describe('keptByMaterial', () => {
  const point = new Vector3(0.8, 0, 1);
  // Keeps z <= 0.5 and x >= 0.5 respectively: the point is cut by the first, kept by the second.
  const planes = () => [new Plane(new Vector3(0, 0, -1), 0.5), new Plane(new Vector3(1, 0, 0), -0.5)];

  it('keeps nothing of a missing or invisible material, everything of an unclipped one', () => {
    expect(keptByMaterial(undefined, point, true)).toBe(false);
    expect(keptByMaterial(new MeshBasicMaterial({ visible: false }), point, true)).toBe(false);
    expect(keptByMaterial(new MeshBasicMaterial(), point, true)).toBe(true);
  });

  it('cuts by union (any plane) or by intersection (every plane), and not at all with local clipping off', () => {
    const union = new MeshBasicMaterial({ clippingPlanes: planes() });
    expect(keptByMaterial(union, point, true)).toBe(false);
    expect(keptByMaterial(union, point, false)).toBe(true);
    const intersection = new MeshBasicMaterial({ clippingPlanes: planes(), clipIntersection: true });
    expect(keptByMaterial(intersection, point, true)).toBe(true);
    expect(keptByMaterial(intersection, new Vector3(0, 0, 1), true)).toBe(false);
  });
});

describe('keptByPlanes', () => {
  it('keeps a point on the kept side of every plane, with a tolerance on the cut side', () => {
    const planes = [new Plane(new Vector3(0, -1, 0), 1)]; // keeps y <= 1
    expect(keptByPlanes(null, new Vector3(0, 9, 0))).toBe(true);
    expect(keptByPlanes(planes, new Vector3(0, 1, 0))).toBe(true);
    expect(keptByPlanes(planes, new Vector3(0, 1.0001, 0))).toBe(false);
    expect(keptByPlanes(planes, new Vector3(0, 1 + 1e-7, 0), 1e-6)).toBe(true);
    expect(keptByPlanes(planes, new Vector3(0, 1 + 1e-5, 0), 1e-6)).toBe(false);
  });
});

describe('the renderer\'s settings', () => {
  it('gives the section planes (null when none or no renderer) and whether local clipping is on (default on)', () => {
    const world = createViewerWorld();
    expect(sectionPlanes(world)).toBeNull();
    expect(localClippingOf(world)).toBe(true);
    const plane = new Plane();
    world.render.renderer = { clippingPlanes: [], localClippingEnabled: false } as unknown as WebGLRenderer;
    expect(sectionPlanes(world)).toBeNull();
    expect(localClippingOf(world)).toBe(false);
    world.render.renderer = { clippingPlanes: [plane], localClippingEnabled: true } as unknown as WebGLRenderer;
    expect(sectionPlanes(world)).toEqual([plane]);
    expect(localClippingOf(world)).toBe(true);
  });
});
