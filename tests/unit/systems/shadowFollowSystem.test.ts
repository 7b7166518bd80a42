import { DirectionalLight, PerspectiveCamera, Scene, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { ShadowFollow } from '../../../components';
import { placeSunShadow, setShadowHalfExtent, setSunDirection } from '../../../src/engine/lights';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { SHADOW_CAMERA_HALF_EXTENT } from '../../../src/protocol/scene-settings';
import { PIPELINE } from '../../../systems';
import { shadowFollowSystem } from '../../../systems/shadowFollowSystem';

/** The navigation's part: the view pose (world.view) at rest, eye and target. */
function pose(world: ViewerWorld, eye: Vector3, target: Vector3): void {
  const view = world.view;
  view.position.copy(eye);
  view.positionEnd.copy(eye);
  view.target.copy(target);
  view.targetEnd.copy(target);
  view.version++;
}

function setup() {
  const world = createViewerWorld();
  const camera = new PerspectiveCamera();
  camera.position.set(0, 0, 20);
  const target = new Vector3(0, 0, 0);
  world.render.camera = camera;
  pose(world, camera.position, target);
  const sun = new DirectionalLight();
  new Scene().add(sun, sun.target);
  return { world, camera, target, sun };
}

describe('shadowFollowSystem', () => {
  it('runs in the pipeline', () => {
    expect(PIPELINE).toContain(shadowFollowSystem);
  });

  it('placeSunShadow puts the shadow box (half-extent 150) on the camera target, the sun 2h away along its direction', () => {
    const { world, sun } = setup();
    const eid = placeSunShadow(world, sun);
    setSunDirection(world, eid, 90, 0); // from +X
    shadowFollowSystem(world);
    expect(sun.position.x).toBeCloseTo(2 * SHADOW_CAMERA_HALF_EXTENT, 4);
    expect(sun.position.y).toBeCloseTo(0, 4);
    expect(sun.target.position.toArray()).toEqual([0, 0, 0]);
    const cam = sun.shadow.camera;
    expect([cam.left, cam.right, cam.top, cam.bottom]).toEqual([-150, 150, 150, -150]);
    expect(cam.far).toBe(600);
    expect(ShadowFollow.dirty[eid]).toBe(0);
    // The same entity on every call.
    expect(placeSunShadow(world, sun)).toBe(eid);
  });

  it('moves the shadow box only when the camera has moved more than 10 units', () => {
    const { world, camera, target, sun } = setup();
    placeSunShadow(world, sun);
    const first = sun.target.position.clone();
    camera.position.set(6, 0, 20);
    target.set(6, 0, 0);
    pose(world, camera.position, target);
    world.render.needsRender = false;
    shadowFollowSystem(world);
    expect(sun.target.position.equals(first)).toBe(true);
    expect(world.render.needsRender).toBe(false);
    camera.position.set(10.5, 0, 20);
    target.set(10.5, 0, 0);
    pose(world, camera.position, target);
    shadowFollowSystem(world);
    expect(sun.target.position.toArray()).toEqual([10.5, 0, 0]);
    expect(world.render.needsRender).toBe(true);
  });

  it('places again when the extent changes, and uses the camera position without a view pose', () => {
    const { world, camera, sun } = setup();
    const eid = placeSunShadow(world, sun);
    // No navigation ever wrote the pose (version 0).
    world.view.version = 0;
    setShadowHalfExtent(world, eid, 50);
    shadowFollowSystem(world);
    expect(sun.shadow.camera.right).toBe(50);
    expect(sun.target.position.toArray()).toEqual(camera.position.toArray());
  });

  it('does nothing without a camera', () => {
    const { world, sun } = setup();
    const eid = placeSunShadow(world, sun);
    setShadowHalfExtent(world, eid, 10);
    world.render.camera = null;
    shadowFollowSystem(world);
    expect(ShadowFollow.dirty[eid]).toBe(1);
  });
});
