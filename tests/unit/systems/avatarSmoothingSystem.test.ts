import { addComponent } from 'bitecs';
import { describe, expect, it } from 'vitest';
import { Avatar, Transform } from '../../../components';
import { spawnTransformEntity } from '../../../src/engine/hierarchy';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { PerspectiveCamera } from 'three';
import { Visibility } from '../../../components';
import { AVATAR_NEAR_HIDE_DISTANCE, avatarSmoothingSystem } from '../../../systems/avatarSmoothingSystem';
import { transformSystem } from '../../../systems/transformSystem';

function avatar(world: ViewerWorld): number {
  const eid = spawnTransformEntity(world);
  const head = spawnTransformEntity(world, eid);
  const cursor = spawnTransformEntity(world);
  addComponent(world, eid, Avatar);
  Avatar.head[eid] = head;
  Avatar.cursor[eid] = cursor;
  Avatar.placed[eid] = 1;
  Avatar.moving[eid] = 1;
  for (let k = 0; k < 3; k++) {
    Avatar.targetPosition[eid * 3 + k] = 0;
    Avatar.targetLook[eid * 3 + k] = 0;
    Avatar.look[eid * 3 + k] = 0;
    Avatar.targetCursor[eid * 3 + k] = 0;
  }
  Avatar.targetLook[eid * 3 + 2] = -1;
  return eid;
}

function run(world: ViewerWorld, seconds: number, fps: number) {
  const frames = Math.round(seconds * fps);
  for (let i = 0; i < frames; i++) {
    world.time.delta = 1 / fps;
    avatarSmoothingSystem(world);
  }
}

describe('avatarSmoothingSystem', () => {
  it('sits before the transform system', () => {
    expect(PIPELINE.indexOf(avatarSmoothingSystem)).toBeGreaterThan(-1);
    expect(PIPELINE.indexOf(avatarSmoothingSystem)).toBeLessThan(PIPELINE.indexOf(transformSystem));
  });

  it('moves position by 0.025 and the cursor by 0.1 of the way per 1/60 s frame', () => {
    const world = createViewerWorld();
    const e = avatar(world);
    Avatar.targetPosition[e * 3] = 10;
    Avatar.targetCursor[e * 3] = 10;
    run(world, 1 / 60, 60);
    expect(Transform.position[e * 3]).toBeCloseTo(0.25, 5);
    expect(Transform.position[Avatar.cursor[e] * 3]).toBeCloseTo(1, 5);
    expect(Transform.dirty[e]).toBe(1);
  });

  it('is frame-rate independent: one second at 30 and at 144 fps ends at the same place', () => {
    // Components are global arrays: one world, one avatar, run twice from the same start.
    const world = createViewerWorld();
    const e = avatar(world);
    const expected = 10 * (1 - Math.pow(1 - 0.025, 60));
    for (const fps of [30, 144]) {
      Transform.position[e * 3] = 0;
      Avatar.targetPosition[e * 3] = 10;
      Avatar.moving[e] = 1;
      run(world, 1, fps);
      expect(Transform.position[e * 3]).toBeCloseTo(expected, 3);
    }
  });

  it('turns the root by yaw and the head by pitch towards the look point, and rests at the target', () => {
    const world = createViewerWorld();
    const e = avatar(world);
    // Looking along +X and down 45°.
    Avatar.targetLook[e * 3] = 1;
    Avatar.targetLook[e * 3 + 1] = -1;
    Avatar.targetLook[e * 3 + 2] = 0;
    run(world, 20, 60);
    const r = e * 4;
    const yaw = 2 * Math.atan2(Transform.rotation[r + 1], Transform.rotation[r + 3]);
    expect(yaw).toBeCloseTo(-Math.PI / 2, 3);
    const h = Avatar.head[e] * 4;
    const pitch = 2 * Math.atan2(Transform.rotation[h], Transform.rotation[h + 3]);
    expect(pitch).toBeCloseTo(-Math.PI / 4, 3);
    expect(Avatar.moving[e]).toBe(0);
    Transform.dirty[e] = 0;
    run(world, 1, 60);
    expect(Transform.dirty[e]).toBe(0);
  });

  it('shows a placed, shown avatar unless it is around this viewer\'s camera', () => {
    const world = createViewerWorld();
    const camera = new PerspectiveCamera();
    world.render.camera = camera;
    const e = avatar(world);
    Avatar.shown[e] = 1;
    Avatar.moving[e] = 0;
    Transform.position.set([0, 0, 0], e * 3);
    camera.position.set(0, 0, AVATAR_NEAR_HIDE_DISTANCE + 1);
    run(world, 1 / 60, 60);
    expect(Visibility.visible[e]).toBe(1);
    camera.position.set(0, 0, AVATAR_NEAR_HIDE_DISTANCE / 2);
    run(world, 1 / 60, 60);
    expect(Visibility.visible[e]).toBe(0);
    camera.position.set(0, 0, 10);
    Avatar.shown[e] = 0;
    run(world, 1 / 60, 60);
    expect(Visibility.visible[e]).toBe(0);
  });
});
