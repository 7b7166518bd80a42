import { OrthographicCamera, PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { viewEye, viewFocus, writeViewPose, type ViewPoseSource } from '../../../src/engine/view-pose';
import { createViewerWorld } from '../../../src/engine/world';

/** camera-controls as far as the pose reads it: the picture's eye and target, and where a move ends. */
function source() {
  const now = { position: new Vector3(0, 0, 10), target: new Vector3() };
  const end = { position: new Vector3(0, 0, 10), target: new Vector3() };
  const controls: ViewPoseSource = {
    getPosition: (out, receiveEndValue) => out.copy(receiveEndValue ? end.position : now.position),
    getTarget: (out, receiveEndValue) => out.copy(receiveEndValue ? end.target : now.target),
  };
  return { controls, now, end };
}

describe('the view pose (world.view)', () => {
  it('is empty (version 0) until the navigation writes it', () => {
    const world = createViewerWorld();
    expect(world.view.version).toBe(0);
    expect(world.view.projection).toBe('Perspective');
  });

  it('is written from camera-controls and the camera: now and where a move ends', () => {
    const world = createViewerWorld();
    const { controls, now, end } = source();
    const camera = new PerspectiveCamera(40);
    camera.position.set(0, 0, 10);
    camera.lookAt(0, 0, 0);
    end.position.set(5, 0, 0);
    end.target.set(0, 1, 0);
    writeViewPose(world, controls, camera, 'Perspective', 40, 3);
    const view = world.view;
    expect(view.position.toArray()).toEqual([0, 0, 10]);
    expect(view.target.toArray()).toEqual([0, 0, 0]);
    expect(view.positionEnd.toArray()).toEqual([5, 0, 0]);
    expect(view.targetEnd.toArray()).toEqual([0, 1, 0]);
    expect(view.quaternion.equals(camera.quaternion)).toBe(true);
    expect(view.up.toArray()).toEqual([0, 1, 0]);
    expect([view.fov, view.zoom, view.orthoHeight]).toEqual([40, 1, 3]);
    expect(view.version).toBe(1);
    now.position.copy(end.position);
    writeViewPose(world, controls, camera, 'Perspective', 40, 3);
    expect(view.position.toArray()).toEqual([5, 0, 0]);
    expect(view.version).toBe(2);
  });

  it('counts only writes that change something', () => {
    const world = createViewerWorld();
    const { controls } = source();
    const camera = new PerspectiveCamera();
    writeViewPose(world, controls, camera, 'Perspective', 50, 1);
    writeViewPose(world, controls, camera, 'Perspective', 50, 1);
    expect(world.view.version).toBe(1);
    const ortho = new OrthographicCamera();
    ortho.zoom = 2;
    writeViewPose(world, controls, ortho, 'Orthographic', 50, 1);
    expect(world.view.version).toBe(2);
    expect(world.view.projection).toBe('Orthographic');
    expect(world.view.zoom).toBe(2);
    camera.up.set(0, 0, 1);
    writeViewPose(world, controls, camera, 'Perspective', 50, 1);
    expect(world.view.version).toBe(3);
    expect(world.view.up.toArray()).toEqual([0, 0, 1]);
  });

  it("gives the focus (the target where a move ends) and the eye, or the camera's position before any pose", () => {
    const world = createViewerWorld();
    const out = new Vector3();
    expect(viewFocus(world, out).toArray()).toEqual([0, 0, 0]);
    expect(viewEye(world)).toBeNull();
    const camera = new PerspectiveCamera();
    camera.position.set(1, 2, 3);
    world.render.camera = camera;
    expect(viewFocus(world, out).toArray()).toEqual([1, 2, 3]);
    expect(viewEye(world)).toBe(camera.position);
    const { controls, end } = source();
    end.target.set(4, 4, 4);
    writeViewPose(world, controls, camera, 'Perspective', 50, 1);
    expect(viewFocus(world, out).toArray()).toEqual([4, 4, 4]);
    expect(viewEye(world)!.toArray()).toEqual([0, 0, 10]);
  });
});
