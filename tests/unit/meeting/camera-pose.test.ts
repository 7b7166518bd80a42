import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../src/engine/world';
import { createCameraPose } from '../../../src/meeting/camera-pose';
import { createRfcObjects } from '../../../src/meeting/rfc-objects';
import { AVATAR_FORCED_UPDATE_MS, AVATAR_UPDATE_INTERVAL_MS, type Vec3 } from '../../../src/protocol/meeting';
import type { PointerHandler } from '../../../src/viewer/input/pointer-router';
import type { Viewer } from '../../../src/viewer/viewer';
import { client, useMeeting } from './meeting-fakes';

/**
 * The camera pose both ways (src/meeting/camera-pose.ts): on its own with a fake pointer and call,
 * then in a meeting: the throttle (50 ms, > 0.1, forced every 5000 ms) and a newcomer's pose.
 */

function poseOnItsOwn() {
  const world = createViewerWorld();
  const sent: unknown[][] = [];
  const moved: unknown[][] = [];
  const lookAts: number[][] = [];
  const errors: string[] = [];
  let handler: PointerHandler | null = null;
  let under: Vec3 | null = null;
  let following: string | null = null;
  const objects = createRfcObjects((message) => errors.push(message));
  const viewer = {
    world,
    pointer: {
      add: (_slot: string, h: PointerHandler) => {
        handler = h;
        return () => (handler = null);
      },
      hit: () => (under ? { point: new Vector3(...under) } : null),
    },
    navigation: { setLookAt: (...args: number[]) => void lookAts.push(args.slice(0, 6)) },
  } as unknown as Viewer;
  const pose = createCameraPose({
    viewer,
    call: (_object, fn, args) => sent.push([fn, ...args]) > 0,
    register: objects.register,
    selfId: () => 'me',
    participants: { moveAvatar: (...args) => void moved.push(args) },
    following: () => following,
  });
  return {
    world,
    pose,
    objects,
    sent,
    moved,
    lookAts,
    errors,
    pointer: () => handler,
    setUnder: (point: Vec3 | null) => (under = point),
    follow: (id: string | null) => (following = id),
  };
}

describe('the camera pose (src/meeting/camera-pose.ts)', () => {
  it("another person's pose moves their avatar, and this camera only while following them", () => {
    const p = poseOnItsOwn();
    p.objects.dispatch({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 2, 3], [0, 0, 0], [4, 5, 6]] });
    expect(p.moved).toEqual([['bob', [1, 2, 3], [0, 0, 0], [4, 5, 6]]]);
    expect(p.lookAts).toEqual([]);
    p.follow('bob');
    p.objects.dispatch({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 1, 1], [0, 1, 0], 'not a cursor'] });
    expect(p.moved[1]).toEqual(['bob', [1, 1, 1], [0, 1, 0], null]);
    expect(p.lookAts).toEqual([[1, 1, 1, 0, 1, 0]]);
    p.objects.dispatch({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 'x', 1], [0, 0, 0]] });
    expect(p.errors).toEqual([expect.stringMatching(/^handleTransformUpdate from bob: bad arguments/)]);
    expect(p.moved).toHaveLength(2);
  });

  it('sends the cursor under the pointer when it moved more than 0.1, and null when the pointer left', () => {
    const p = poseOnItsOwn();
    p.world.view.position.set(10, 5, 10);
    p.pose.send(0);
    expect(p.sent).toEqual([['handleTransformUpdate', 'me', [10, 5, 10], [0, 0, 0], null]]);
    p.setUnder([1.23456, 0, 2]);
    p.pointer()!.move!(5, 5);
    p.pose.send(100);
    expect(p.sent[1]).toEqual(['handleTransformUpdate', 'me', [10, 5, 10], [0, 0, 0], [1.235, 0, 2]]);
    // Within 0.1 of the last one sent: nothing.
    p.setUnder([1.3, 0, 2]);
    p.pointer()!.move!(6, 5);
    p.pose.send(200);
    expect(p.sent).toHaveLength(2);
    p.setUnder(null);
    p.pointer()!.leave!();
    p.pose.send(300);
    expect(p.sent[2]).toEqual(['handleTransformUpdate', 'me', [10, 5, 10], [0, 0, 0], null]);
    // resend: the next frame sends even with nothing changed; dispose lets the pointer go.
    p.pose.resend();
    p.pose.send(310);
    expect(p.sent).toHaveLength(4);
    p.pose.dispose();
    expect(p.pointer()).toBeNull();
  });

  describe('in a meeting', () => {
    const { state, frame, later, join } = useMeeting();

    const poses = () => state.socket.rfcs('handleTransformUpdate');

    it('goes out at once, then only when the camera moved more than 0.1, at most every 50 ms', async () => {
      await join();
      expect(poses()).toHaveLength(1);
      expect(poses()[0].args).toEqual(['me', [10, 5, 10], [0, 0, 0], null]);
      // Still: nothing for a while.
      for (let i = 0; i < 20; i++) later(20);
      expect(poses()).toHaveLength(1);
      // Less than 0.1: nothing.
      state.setup.position.x += 0.09;
      later(60);
      state.setup.target.y += 0.05;
      later(60);
      expect(poses()).toHaveLength(1);
      // More than 0.1 (counted from the last pose sent, not from the last frame).
      state.setup.position.x += 0.02;
      later(60);
      expect(poses()).toHaveLength(2);
      expect(poses()[1].args[1][0]).toBeCloseTo(10.11, 3);
      // Moving all the time, a frame every 10 ms: at most one pose per 50 ms.
      const before = poses().length;
      for (let i = 0; i < 100; i++) {
        state.setup.position.z += 0.2;
        later(10);
      }
      const sent = poses().length - before;
      expect(sent).toBeGreaterThanOrEqual(18);
      expect(sent).toBeLessThanOrEqual(20);
      const times = poses().slice(before);
      expect(times.every((p) => p.args[0] === 'me')).toBe(true);
    });

    it('is forced every 5000 ms while the camera stays', async () => {
      await join();
      expect(poses()).toHaveLength(1);
      for (let t = 0; t < AVATAR_FORCED_UPDATE_MS - AVATAR_UPDATE_INTERVAL_MS; t += 50) later(50);
      expect(poses()).toHaveLength(1);
      later(100);
      expect(poses()).toHaveLength(2);
      expect(poses()[1].args[1]).toEqual([10, 5, 10]);
      for (let t = 0; t < AVATAR_FORCED_UPDATE_MS; t += 50) later(50);
      expect(poses()).toHaveLength(3);
    });

    it("a newcomer gets one's pose at once, not in up to 5 s", async () => {
      await join();
      later(1000);
      expect(poses()).toHaveLength(1);
      state.socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
      frame();
      expect(poses()).toHaveLength(2);
    });
  });
});
