import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { PerspectiveCamera } from 'three';
import { setup } from '../../support/viewer-api';

describe('viewer API: camera', () => {
  it('setCamera refuses a pose without a direction before changing anything (the field of view too)', async () => {
    const { run, viewer } = setup();
    await expect(run('setCamera', { position: [1, 1, 1], target: [1, 1, 1], fov: 20 })).rejects.toThrow('position and target must differ');
    expect(viewer.navigation.perspectiveCamera.fov).toBe(45);
    expect((await run('setCamera', { fov: 30 })).fov).toBe(30);
  });

  it('answers the view pose (where a move ends), at once', async () => {
    const { va, world } = setup();
    expect(await va.execute('getCamera', {})).toMatchObject({
      position: [1, 2, 3],
      target: [0, 0, 0],
      fov: 45,
      near: 0.1,
      far: 1000,
      projection: 'Perspective',
      mode: 'Orbit',
    });
    // A move under way: the answer is where it ends, not where the picture is now.
    world.view.position.set(9, 9, 9);
    world.view.positionEnd.set(4, 5, 6);
    expect(await va.execute('getCamera', {})).toMatchObject({ position: [4, 5, 6], target: [0, 0, 0] });
  });

  it('moves the camera through the navigation, and a read right after answers the pose asked for', async () => {
    const { va, run, lookAts } = setup();
    const answer = await run('setCamera', { position: [5, 0, 0], target: [0, 1, 0] });
    expect(lookAts).toEqual([{ position: [5, 0, 0], target: [0, 1, 0], transition: true }]);
    expect(answer).toMatchObject({ position: [5, 0, 0], target: [0, 1, 0] });
    expect(await va.execute('getCamera', {})).toMatchObject({ position: [5, 0, 0], target: [0, 1, 0] });
    // A target alone keeps the position the pose has; no transition when asked for none.
    await run('setCamera', { target: [0, 0, 2], transition: false });
    expect(lookAts[1]).toEqual({ position: [5, 0, 0], target: [0, 0, 2], transition: false });
  });

  it('renderOffscreenFrame needs a camera, and starts from the view the picture shows', async () => {
    const { run, world, viewer } = setup();
    await expect(run('renderOffscreenFrame', { width: 64, height: 64 })).rejects.toThrow('The viewer has no camera yet.');
    world.render.camera = new PerspectiveCamera();
    Object.assign(viewer.context.renderer, { getClearAlpha: () => 1 });
    // The pose's eye given as the target: no direction to look in (refused before anything is drawn).
    await expect(run('renderOffscreenFrame', { width: 64, height: 64, target: [1, 2, 3] })).rejects.toThrow('position and target must differ');
    expect(world.render.camera.position.toArray()).toEqual([0, 0, 0]);
  });
});
