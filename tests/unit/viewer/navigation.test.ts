import CameraControls from 'camera-controls';
import { BoxGeometry, Euler, Mesh, MeshBasicMaterial, Object3D, OrthographicCamera, PerspectiveCamera, Quaternion, Vector3 } from 'three';
import { beforeAll, describe, expect, it } from 'vitest';
import { CAMERA_MAX_DISTANCE, CAMERA_MAX_DISTANCE_ORBIT, CAMERA_MIN_DISTANCE, KEYBOARD_SPEED } from '../../../src/protocol/constants';
import { ERR_MODE } from '../../../src/protocol/errors';
import { HELPER_LAYER } from '../../../src/engine/layers';
import { createViewerWorld } from '../../../src/engine/world';
import {
  createNavigation,
  distanceForHalfHeight,
  distanceLimits,
  effectiveMode,
  FIRST_PERSON_DISTANCE,
  mouseButtonsFor,
  parseMode,
  RUN_FACTOR,
  touchesFor,
  visibleHalfHeight,
  walkSpeed,
  type Navigation,
} from '../../../src/viewer/navigation';
import { createAxisProjection, projectAxes } from '../../../src/viewer/orientation-gizmo';
import { navigationSystem } from '../../../systems/navigationSystem';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';

// camera-controls builds a DOMRect for its element; Node has none. Navigation runs here without
// an element (no input listeners), exactly as createNavigation(world, camera, null) documents.
beforeAll(() => {
  const g = globalThis as { DOMRect?: unknown };
  if (!g.DOMRect) {
    g.DOMRect = class {
      constructor(public x = 0, public y = 0, public width = 0, public height = 0) {}
    };
  }
});

const A = CameraControls.ACTION;

function setup(): { nav: Navigation; camera: PerspectiveCamera; world: ReturnType<typeof createViewerWorld>; cameras: (PerspectiveCamera | OrthographicCamera)[] } {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera(45, 16 / 9, 0.1, 2000);
  const cameras: (PerspectiveCamera | OrthographicCamera)[] = [];
  const nav = createNavigation(world, camera, null, { onCameraChange: (c) => cameras.push(c) });
  nav.setSize(1600, 900);
  return { nav, camera, world, cameras };
}

/** A 4 x 2 x 2 box at the origin: bounding radius sqrt(6). */
function model(): Object3D {
  const mesh = new Mesh(new BoxGeometry(4, 2, 2), new MeshBasicMaterial());
  mesh.updateMatrixWorld(true);
  return mesh;
}

function settle(nav: Navigation): void {
  for (let i = 0; i < 400; i++) nav.controls.update(1 / 60);
}

function viewDirection(nav: Navigation): Vector3 {
  const p = nav.controls.getPosition(new Vector3(), true);
  const t = nav.controls.getTarget(new Vector3(), true);
  return t.sub(p).normalize();
}

/** Half the visible height at the orbit target, whatever the projection. */
function visibleHalfAtTarget(nav: Navigation): number {
  const cam = nav.camera;
  if ((cam as OrthographicCamera).isOrthographicCamera) {
    const o = cam as OrthographicCamera;
    return (o.top - o.bottom) / 2 / o.zoom;
  }
  const p = cam as PerspectiveCamera;
  return visibleHalfHeight(nav.controls.distance, p.getEffectiveFOV());
}

describe('modes', () => {
  it('starts in Orbit, perspective, simple', () => {
    const { nav } = setup();
    expect(nav.state()).toEqual({ mode: 'Orbit', projection: 'Perspective', cameraConfig: 'simple' });
  });

  it('an unknown mode throws the specification text and changes nothing', () => {
    const { nav } = setup();
    expect(() => nav.setMode('Fly')).toThrow(ERR_MODE);
    expect(() => nav.setMode('orbit')).toThrow('The specified mode does not exist!');
    expect(() => parseMode(undefined)).toThrow(ERR_MODE);
    expect(nav.mode).toBe('Orbit');
  });

  it('FirstPerson needs perspective: in orthographic it falls back to Orbit', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    expect(effectiveMode('FirstPerson', 'Orthographic')).toBe('Orbit');
    expect(effectiveMode('FirstPerson', 'Perspective')).toBe('FirstPerson');
    nav.setProjection('Orthographic');
    expect(nav.setMode('FirstPerson')).toBe('Orbit');
    expect(nav.mode).toBe('Orbit');
    // And switching to orthographic while in FirstPerson leaves FirstPerson.
    nav.setProjection('Perspective');
    expect(nav.setMode('FirstPerson')).toBe('FirstPerson');
    nav.setProjection('Orthographic');
    expect(nav.mode).toBe('Orbit');
    expect(nav.controls.distance).toBeGreaterThan(1);
  });

  it('FirstPerson keeps the eye and the view direction, and Orbit gets its distance back', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    settle(nav);
    const eye = nav.controls.getPosition(new Vector3(), true);
    const dir = viewDirection(nav);
    const orbitDistance = nav.controls.distance;
    nav.setMode('FirstPerson');
    settle(nav);
    expect(nav.controls.distance).toBeCloseTo(FIRST_PERSON_DISTANCE, 6);
    expect(nav.controls.getPosition(new Vector3(), true).distanceTo(eye)).toBeLessThan(1e-6);
    expect(viewDirection(nav).dot(dir)).toBeGreaterThan(0.9999);
    expect(nav.controls.azimuthRotateSpeed).toBeLessThan(0);
    nav.setMode('Orbit');
    settle(nav);
    expect(nav.controls.distance).toBeCloseTo(orbitDistance, 5);
    expect(nav.controls.getPosition(new Vector3(), true).distanceTo(eye)).toBeLessThan(1e-5);
    expect(nav.controls.azimuthRotateSpeed).toBeGreaterThan(0);
  });

  it('Plan looks straight down, locks the polar angle, and Orbit restores it', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    settle(nav);
    const polar = nav.controls.polarAngle;
    nav.setMode('Plan');
    settle(nav);
    expect(nav.controls.polarAngle).toBeLessThan(1e-3);
    expect(viewDirection(nav).y).toBeLessThan(-0.999);
    expect(nav.controls.maxPolarAngle).toBe(0);
    nav.setMode('Orbit');
    settle(nav);
    expect(nav.controls.polarAngle).toBeCloseTo(polar, 4);
  });

  it('Plan and the top view are square to the axes, framed on the scene, whatever the spin before', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    settle(nav);
    await nav.controls.rotate(0.6 + Math.PI * 4, 0.2, false);
    settle(nav);
    nav.setMode('Plan');
    settle(nav);
    const screenRight = new Vector3().setFromMatrixColumn(nav.camera.matrixWorld, 0);
    expect(screenRight.x).toBeGreaterThan(0.9999);
    expect(viewDirection(nav).y).toBeLessThan(-0.999);
    // Framed: the whole 4 x 2 box from above, target at its centre.
    expect(nav.controls.getTarget(new Vector3(), true).length()).toBeLessThan(1e-3);
    nav.setMode('Orbit');
    await nav.lookAlong('+x', false);
    await nav.lookAlong('+y', false);
    settle(nav);
    expect(new Vector3().setFromMatrixColumn(nav.camera.matrixWorld, 0).x).toBeGreaterThan(0.9999);
    // Fit keeps the direction; Home returns to the saved view.
    nav.saveHome();
    const home = nav.controls.getPosition(new Vector3(), true);
    await nav.controls.rotate(1, -0.5, false);
    settle(nav);
    const direction = viewDirection(nav);
    await nav.fit([model()], false, { keepDirection: true });
    settle(nav);
    expect(viewDirection(nav).dot(direction)).toBeGreaterThan(0.9999);
    await nav.home(false);
    settle(nav);
    expect(nav.controls.getPosition(new Vector3(), true).distanceTo(home)).toBeLessThan(1e-6);
  });

  it('fit in Plan keeps looking straight down', async () => {
    const { nav } = setup();
    nav.setMode('Plan');
    await nav.fit([model()]);
    settle(nav);
    expect(viewDirection(nav).y).toBeLessThan(-0.999);
    expect(nav.controls.getTarget(new Vector3(), true).length()).toBeLessThan(1e-6);
  });

  it('fit in FirstPerson frames the models and stays in FirstPerson', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    nav.setMode('FirstPerson');
    await nav.fit([model()]);
    settle(nav);
    expect(nav.mode).toBe('FirstPerson');
    expect(nav.controls.distance).toBeCloseTo(FIRST_PERSON_DISTANCE, 6);
    // Looking at the centre of the box from outside it.
    const eye = nav.controls.getPosition(new Vector3(), true);
    expect(eye.length()).toBeGreaterThan(Math.sqrt(6));
    expect(viewDirection(nav).dot(eye.clone().negate().normalize())).toBeGreaterThan(0.999);
  });

  it("tells every change as a 'navigation' event", () => {
    const world = createViewerWorld();
    const events = new Emitter<ViewerEventMap>();
    const nav = createNavigation(world, new PerspectiveCamera(45, 1, 0.1, 2000), null, { events });
    const seen: string[] = [];
    events.on('navigation', (s) => seen.push(`${s.mode}/${s.projection}/${s.cameraConfig}`));
    nav.setMode('Plan');
    nav.setCameraConfig('editor');
    nav.setProjection('Orthographic');
    expect(seen).toEqual(['Plan/Perspective/simple', 'Plan/Perspective/editor', 'Plan/Orthographic/editor']);
  });
});

describe('camera config', () => {
  it("'simple': left rotates, middle and right truck, the wheel dollies", () => {
    const { nav } = setup();
    const b = nav.controls.mouseButtons;
    expect([b.left, b.middle, b.right, b.wheel]).toEqual([A.ROTATE, A.TRUCK, A.TRUCK, A.DOLLY]);
    nav.setShift(true);
    expect([b.left, b.middle, b.right]).toEqual([A.ROTATE, A.TRUCK, A.TRUCK]);
  });

  it("'editor': left does nothing, middle or right rotate, with Shift held they truck", () => {
    const { nav } = setup();
    nav.setCameraConfig('editor');
    const b = nav.controls.mouseButtons;
    expect([b.left, b.middle, b.right]).toEqual([A.NONE, A.ROTATE, A.ROTATE]);
    nav.setShift(true);
    expect([b.left, b.middle, b.right]).toEqual([A.NONE, A.TRUCK, A.TRUCK]);
    nav.setShift(false);
    expect([b.left, b.middle, b.right]).toEqual([A.NONE, A.ROTATE, A.ROTATE]);
    nav.setCameraConfig('simple');
    expect([b.left, b.middle, b.right]).toEqual([A.ROTATE, A.TRUCK, A.TRUCK]);
  });

  it('an unknown config is refused by name', () => {
    const { nav } = setup();
    expect(() => nav.setCameraConfig('blender')).toThrow(`Unknown camera config "blender": expected 'simple' or 'editor'.`);
    expect(nav.cameraConfig).toBe('simple');
  });

  it('the wheel zooms in orthographic and FirstPerson; touch gestures follow the mode', () => {
    const out = { left: 0, middle: 0, right: 0, wheel: 0 } as CameraControls['mouseButtons'];
    expect(mouseButtonsFor('simple', 'Orbit', 'Orthographic', false, out).wheel).toBe(A.ZOOM);
    expect(mouseButtonsFor('editor', 'FirstPerson', 'Perspective', false, out).wheel).toBe(A.ZOOM);
    expect(mouseButtonsFor('editor', 'Plan', 'Perspective', true, out)).toEqual({ left: A.NONE, middle: A.TRUCK, right: A.TRUCK, wheel: A.DOLLY });
    const t = { one: 0, two: 0, three: 0 } as CameraControls['touches'];
    expect(touchesFor('Orbit', 'Perspective', t)).toEqual({ one: A.TOUCH_ROTATE, two: A.TOUCH_DOLLY_TRUCK, three: A.TOUCH_TRUCK });
    expect(touchesFor('Orbit', 'Orthographic', t).two).toBe(A.TOUCH_ZOOM_TRUCK);
    expect(touchesFor('FirstPerson', 'Perspective', t)).toEqual({ one: A.TOUCH_ROTATE, two: A.TOUCH_ZOOM_TRUCK, three: A.TOUCH_TRUCK });
    expect(touchesFor('Plan', 'Perspective', t)).toEqual({ one: A.TOUCH_TRUCK, two: A.TOUCH_DOLLY_TRUCK, three: A.TOUCH_ROTATE });
  });
});

describe('distance limits', () => {
  it('minimum 1, maximum 300 in Orbit and 5000 otherwise', () => {
    // Zoom-out stops a few model sizes away (8 radii), within the specification's maxima.
    expect(distanceLimits('Orbit', 5)).toEqual({ min: CAMERA_MIN_DISTANCE, max: 40 });
    expect(distanceLimits('Plan', 5)).toEqual({ min: CAMERA_MIN_DISTANCE, max: 40 });
    expect(distanceLimits('Orbit', 0.3).max).toBeCloseTo(2.4);
    expect(distanceLimits('Orbit', 30).max).toBe(240);
    expect(distanceLimits('Plan', 300).max).toBe(2400);
    expect(distanceLimits('Orbit', 0)).toEqual({ min: 1, max: CAMERA_MAX_DISTANCE_ORBIT });
    expect(distanceLimits('Plan', 0)).toEqual({ min: 1, max: CAMERA_MAX_DISTANCE });
    expect(distanceLimits('FirstPerson', 5)).toEqual({ min: FIRST_PERSON_DISTANCE, max: FIRST_PERSON_DISTANCE });
  });

  it('widen for scenes too small or too large for them', () => {
    expect(distanceLimits('Orbit', 0.05).min).toBeCloseTo(0.01);
    expect(distanceLimits('Orbit', 1).min).toBe(1);
    expect(distanceLimits('Orbit', 0.1).max).toBeGreaterThanOrEqual(4 * distanceLimits('Orbit', 0.1).min);
    expect(distanceLimits('Orbit', 37.5).max).toBe(300);
    expect(distanceLimits('Orbit', 100).max).toBe(800);
    expect(distanceLimits('Plan', 1000).max).toBe(8000);
  });

  it('are applied to the controls per mode', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    const radius = Math.sqrt(6); // the 4 x 2 x 2 box
    expect(nav.controls.minDistance).toBe(1);
    expect(nav.controls.maxDistance).toBeCloseTo(radius * 8, 6);
    nav.setMode('Plan');
    expect(nav.controls.maxDistance).toBeCloseTo(radius * 8, 6);
    nav.setMode('FirstPerson');
    expect(nav.controls.minDistance).toBe(FIRST_PERSON_DISTANCE);
    nav.setMode('Orbit');
    expect(nav.controls.maxDistance).toBeCloseTo(radius * 8, 6);
    // A dolly past the limit stops at it: a few model sizes, not 300 m.
    await nav.controls.dollyTo(1000, false);
    expect(nav.controls.distance).toBeCloseTo(radius * 8, 6);
  });
});

describe('projection', () => {
  it('keeps the visible height at the target both ways and hands over the camera', async () => {
    const { nav, camera, cameras } = setup();
    await nav.fit([model()]);
    settle(nav);
    await nav.controls.dollyTo(9, false);
    settle(nav);
    const before = visibleHalfAtTarget(nav);
    expect(before).toBeCloseTo(visibleHalfHeight(9, 45), 6);
    const target = nav.controls.getTarget(new Vector3(), true);
    const dir = viewDirection(nav);

    nav.setProjection('Orthographic');
    settle(nav);
    expect(nav.camera).toBeInstanceOf(OrthographicCamera);
    expect(cameras).toEqual([nav.orthographicCamera]);
    expect(nav.controls.camera).toBe(nav.orthographicCamera);
    expect(nav.camera.layers.isEnabled(HELPER_LAYER)).toBe(true);
    expect(visibleHalfAtTarget(nav)).toBeCloseTo(before, 6);
    expect(nav.controls.getTarget(new Vector3(), true).distanceTo(target)).toBeLessThan(1e-9);
    expect(viewDirection(nav).dot(dir)).toBeGreaterThan(0.9999);
    // The aspect follows the drawing area.
    const o = nav.orthographicCamera;
    expect((o.right - o.left) / (o.top - o.bottom)).toBeCloseTo(16 / 9, 6);

    // Zoom in orthographic, then back: the perspective camera shows the same height.
    await nav.controls.zoomTo(2, false);
    settle(nav);
    const zoomed = visibleHalfAtTarget(nav);
    expect(zoomed).toBeCloseTo(before / 2, 6);
    expect(nav.toggleProjection()).toBe('Perspective');
    settle(nav);
    expect(nav.camera).toBe(camera);
    expect(cameras[1]).toBe(camera);
    expect(visibleHalfAtTarget(nav)).toBeCloseTo(zoomed, 5);
    expect(nav.controls.distance).toBeCloseTo(distanceForHalfHeight(zoomed, 45), 5);
  });

  it('an unknown projection is refused', () => {
    const { nav } = setup();
    expect(() => nav.setProjection('Fisheye')).toThrow(`Unknown projection "Fisheye": expected 'Perspective' or 'Orthographic'.`);
  });
});

describe('views, recentre, fit', () => {
  it('lookAlong puts the camera on that side of the target', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    const cases: [string, [number, number, number]][] = [
      ['+x', [-1, 0, 0]],
      ['-x', [1, 0, 0]],
      ['+z', [0, 0, -1]],
      ['-z', [0, 0, 1]],
      ['+y', [0, -1, 0]],
      ['-y', [0, 1, 0]],
    ];
    for (const [axis, expected] of cases) {
      void nav.lookAlong(axis, false);
      settle(nav);
      const d = viewDirection(nav);
      expect(d.dot(new Vector3(...expected)), axis).toBeGreaterThan(0.999);
    }
    await expect(nav.lookAlong('up')).rejects.toThrow('Unknown view axis "up"');
  });

  it('a side view from Plan returns to Orbit; the top view stays in Plan', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    nav.setMode('Plan');
    void nav.lookAlong('+y', false);
    expect(nav.mode).toBe('Plan');
    void nav.lookAlong('+x', false);
    settle(nav);
    expect(nav.mode).toBe('Orbit');
    expect(viewDirection(nav).x).toBeLessThan(-0.999);
  });

  it('recentreOn keeps the camera and moves the target to the point, smoothly', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    settle(nav);
    const eye = nav.controls.getPosition(new Vector3(), true);
    const point = new Vector3(1.5, 0.5, -0.5);
    const done = nav.recentreOn(point);
    nav.controls.update(1 / 60);
    // Smooth: not there after one frame.
    expect(nav.controls.getTarget(new Vector3(), false).distanceTo(point)).toBeGreaterThan(1e-3);
    settle(nav);
    await done;
    expect(nav.controls.getTarget(new Vector3(), true).distanceTo(point)).toBeLessThan(1e-6);
    expect(nav.controls.getPosition(new Vector3(), true).distanceTo(eye)).toBeLessThan(1e-6);
    await expect(nav.recentreOn(new Vector3(NaN, 0, 0))).rejects.toThrow('finite');
  });

  it('fit frames the models and returns their radius; nothing to frame returns 0', async () => {
    const { nav, camera } = setup();
    expect(await nav.fit([new Object3D()])).toBe(0);
    const r = await nav.fit([model()]);
    expect(r).toBeCloseTo(Math.sqrt(6), 6);
    expect(nav.sceneRadius).toBeCloseTo(Math.sqrt(6), 6);
    expect(nav.controls.getTarget(new Vector3(), true).length()).toBeLessThan(1e-6);
    // The whole sphere fits the vertical field of view.
    expect(visibleHalfHeight(nav.controls.distance, camera.fov)).toBeGreaterThanOrEqual(r * 0.99);
  });
});

describe('first-person keys', () => {
  it('speed: KEYBOARD_SPEED metres per millisecond, scaled down for scenes under 1 m, faster with Shift', () => {
    expect(walkSpeed(10, false)).toBeCloseTo(KEYBOARD_SPEED * 1000);
    expect(walkSpeed(0.1, false)).toBeCloseTo(KEYBOARD_SPEED * 1000 * 0.1);
    expect(walkSpeed(10, true)).toBeCloseTo(KEYBOARD_SPEED * 1000 * RUN_FACTOR);
  });

  it('the navigation system walks forward by speed x time while a key is held', async () => {
    const { nav, world } = setup();
    await nav.fit([model()]);
    nav.setMode('FirstPerson');
    settle(nav);
    const eye = nav.controls.getPosition(new Vector3(), true);
    const forward = viewDirection(nav).setY(0).normalize();
    nav.controls.walk.forward = 1;
    nav.controls.walk.speed = 5;
    world.time.delta = 0.1;
    navigationSystem(world);
    const moved = nav.controls.getPosition(new Vector3(), true).sub(eye);
    expect(moved.length()).toBeCloseTo(0.5, 5);
    expect(moved.normalize().dot(forward)).toBeGreaterThan(0.9999);
    // The render system draws for it.
    expect(world.camera.moved).toBe(true);
  });

});

describe('orientation gizmo projection', () => {
  it('a camera looking along -Z: X to the right, Y up, +Z in front at the centre (110 px, padding 15)', () => {
    const p = projectAxes(new Quaternion(), 110, 15, createAxisProjection());
    // +x, -x, +y, -y, +z, -z
    expect([p.x[0], p.y[0]]).toEqual([95, 55]);
    expect([p.x[1], p.y[1]]).toEqual([15, 55]);
    expect([p.x[2], p.y[2]]).toEqual([55, 15]);
    expect([p.x[3], p.y[3]]).toEqual([55, 95]);
    expect([p.x[4], p.y[4]]).toEqual([55, 55]);
    // Drawn last (in front): +Z, which points at the viewer; first: -Z.
    expect(p.order[5]).toBe(4);
    expect(p.order[0]).toBe(5);
  });

  it('follows the camera: seen from +X (after lookAlong), -Z is to the right and +X in front', async () => {
    const { nav } = setup();
    await nav.fit([model()]);
    void nav.lookAlong('+x', false);
    settle(nav);
    const p = projectAxes(nav.camera.quaternion, 110, 15, createAxisProjection());
    expect(p.x[5]).toBeCloseTo(95, 3);
    expect(p.y[2]).toBeCloseTo(15, 3);
    expect(p.order[5]).toBe(0);
  });

  it('stays within the square for any orientation', () => {
    const out = createAxisProjection();
    for (let i = 0; i < 50; i++) {
      const q = new Quaternion().setFromEuler(new Euler(i * 0.37, i * 1.13, i * 0.71));
      projectAxes(q, 110, 15, out);
      for (let k = 0; k < 6; k++) {
        expect(Math.hypot(out.x[k] - 55, out.y[k] - 55)).toBeLessThanOrEqual(40 + 1e-9);
      }
      expect([...out.order].sort()).toEqual([0, 1, 2, 3, 4, 5]);
      for (let k = 1; k < 6; k++) expect(out.depth[out.order[k]]).toBeGreaterThanOrEqual(out.depth[out.order[k - 1]]);
    }
  });
});

describe('the view pose (world.view), written by the navigation', () => {
  it('is written when the navigation is made and after each update of the frame', async () => {
    const { nav, world } = setup();
    expect(world.view.version).toBeGreaterThan(0);
    await nav.fit([model()]);
    settle(nav);
    // Camera-controls moved by itself (as its pointer input does): the frame's update writes the pose.
    void nav.controls.rotate(0.5, 0, false);
    const before = world.view.version;
    navigationSystem(world);
    expect(world.view.version).toBeGreaterThan(before);
    expect(world.view.position.distanceTo(nav.controls.getPosition(new Vector3(), false))).toBeLessThan(1e-9);
    expect(world.view.quaternion.equals(nav.camera.quaternion)).toBe(true);
  });

  it('holds where a move ends as soon as it starts, and the picture\'s pose as it goes', async () => {
    const { nav, world } = setup();
    await nav.fit([model()]);
    settle(nav);
    const start = world.view.position.clone();
    void nav.setLookAt(8, 1, 2, 0, 1, 0, true);
    // Read right after the set, in the same frame: the pose asked for.
    expect(world.view.positionEnd.distanceTo(new Vector3(8, 1, 2))).toBeLessThan(1e-9);
    expect(world.view.targetEnd.distanceTo(new Vector3(0, 1, 0))).toBeLessThan(1e-9);
    expect(world.view.position.distanceTo(start)).toBeLessThan(1e-9);
    settle(nav);
    expect(world.view.position.distanceTo(new Vector3(8, 1, 2))).toBeLessThan(1e-3);
  });

  it('follows the projection, the mode and framing at once', async () => {
    const { nav, world } = setup();
    await nav.fit([model()]);
    const fitted = world.view.targetEnd.clone();
    expect(fitted.length()).toBeLessThan(1e-6);
    nav.setProjection('Orthographic');
    expect(world.view.projection).toBe('Orthographic');
    expect(world.view.orthoHeight).toBeCloseTo((nav.orthographicCamera.top - nav.orthographicCamera.bottom) / nav.orthographicCamera.zoom, 9);
    nav.setProjection('Perspective');
    nav.setMode('FirstPerson');
    // The eye stays, the target moves to just in front of it.
    expect(world.view.positionEnd.distanceTo(world.view.targetEnd)).toBeCloseTo(FIRST_PERSON_DISTANCE, 6);
    void nav.zoomTo(1, false);
    expect(world.view.zoom).toBe(1);
  });
});
