import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { TOOL_CHANGES_FUNCTION } from '../../../src/protocol/shared-tools';
import { BOB, client, useMeeting } from './meeting-fakes';

/**
 * Follow mode (src/meeting/follow-mode.ts) in a meeting on a stand-in viewer and socket: its stops,
 * who is shown as following whom, the view followers get, and the reconciling with the shared planes.
 */

describe('follow mode (src/meeting/follow-mode.ts)', () => {
  const { state, frame, later, join } = useMeeting();

  describe('starting and stopping', () => {
    it('stops following one person when a new follow starts', async () => {
      await join();
      state.meeting.follow('bob');
      expect(state.meeting.snapshot().following).toBe('bob');
      expect(state.socket.rfcs('handleStartFollowRfc').map((m) => m.args)).toEqual([['me', 'bob']]);
      state.meeting.follow('cy');
      expect(state.meeting.snapshot().following).toBe('cy');
      expect(state.socket.rfcs('handleStopFollowRfc').map((m) => m.args)).toEqual([['me']]);
      expect(state.socket.rfcs('handleStartFollowRfc').map((m) => m.args)).toEqual([
        ['me', 'bob'],
        ['me', 'cy'],
      ]);
      // Cy's poses move our camera; Bob's no longer do.
      state.socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 1, 1], [0, 0, 0]] });
      state.socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['cy', [2, 2, 2], [0, 1, 0]] });
      frame();
      expect(state.setup.lookAts).toEqual([[2, 2, 2, 0, 1, 0]]);
      expect(() => state.meeting.follow('me')).toThrow(/Cannot follow 'me'/);
    });

    it('stops when the followed person leaves (and tells nobody: there is nobody to tell)', async () => {
      await join();
      state.meeting.follow('bob');
      state.socket.receive({ type: 'USER_LEFT', client: BOB });
      expect(state.meeting.snapshot().following).toBe('bob'); // applied in the frame, not mid-frame
      frame();
      expect(state.meeting.snapshot().following).toBeNull();
      expect(state.socket.rfcs('handleStopFollowRfc')).toEqual([]);
      expect(state.events.some((e) => e.kind === 'left' && e.name === 'Bob Test')).toBe(true);
      // Leaving someone else does not stop following.
      state.meeting.follow('cy');
      state.socket.receive({ type: 'USER_LEFT', client: client('dee', 'Dee') });
      frame();
      expect(state.meeting.snapshot().following).toBe('cy');
    });

    it('stops when another tool is enabled', async () => {
      await join();
      state.meeting.follow('bob');
      state.setup.viewer.tools.activate('length-measure-tool');
      expect(state.meeting.snapshot().following).toBeNull();
      expect(state.socket.rfcs('handleStopFollowRfc').map((m) => m.args)).toEqual([['me']]);
    });
  });
  describe('follow mode and shared planes', () => {
    it("a followed person's view carries only their own planes: the shared ones reach followers anyway", async () => {
      const own = state.setup.tools.sections.create(new Vector3(0.2, 0, 0), new Vector3(1, 0, 0)); // before the meeting
      await join();
      state.setup.tools.sections.create(new Vector3(0, 0.6, 0), new Vector3(0, -1, 0)); // in the meeting: shared
      later(60);
      expect(state.socket.rfcs(TOOL_CHANGES_FUNCTION)).toHaveLength(1);
      state.socket.receive({ type: 'RFC', object: 'follow', function: 'handleStartFollowRfc', args: ['bob', 'me'] });
      later(60);
      const views = state.socket.rfcs('handleViewState');
      expect(views).toHaveLength(1);
      expect(views[0].args[1].sections).toHaveLength(1);
      const [plane] = views[0].args[1].sections;
      expect(plane.normal.map((x: number) => Math.round(x * 1e6) / 1e6 + 0)).toEqual([1, 0, 0]);
      expect(plane.constant).toBeCloseTo(-0.2, 6);
      expect(state.setup.tools.sections.list().map((s) => s.id)).toContain(own);
    });

    it("a follower keeps the shared planes, puts their own aside, copies the followed person's own without sharing them, and gets theirs back", async () => {
      const own = state.setup.tools.sections.create(new Vector3(0.2, 0, 0), new Vector3(1, 0, 0));
      await join();
      // A shared plane made by Bob.
      state.socket.receive({
        type: 'RFC',
        object: 'tools',
        function: TOOL_CHANGES_FUNCTION,
        args: ['bob', [{ op: 'section', id: 'bob:1', rev: 1, section: { position: [0, 0.6, 0], rotation: [1, 0, 0, 0] } }]],
      });
      frame();
      const shared = state.setup.tools.sections
        .list()
        .map((s) => s.id)
        .filter((id) => id !== own);
      expect(shared).toHaveLength(1);
      state.meeting.follow('bob');
      expect(state.setup.tools.sections.list().map((s) => s.id)).toEqual(shared);
      // Bob's view: one plane of his own.
      state.socket.receive({
        type: 'RFC',
        object: 'view',
        function: 'handleViewState',
        args: ['bob', { projection: 'Perspective', zoom: 1, fov: 45, sections: [{ normal: [0, 0, 1], constant: 2 }] }],
      });
      later(60);
      const now = state.setup.tools.sections.list();
      expect(now).toHaveLength(2);
      const copy = now.find((s) => !shared.includes(s.id))!;
      expect(copy.normal.z).toBeCloseTo(1, 6);
      expect(copy.constant).toBeCloseTo(2, 6);
      later(60);
      expect(state.socket.rfcs(TOOL_CHANGES_FUNCTION)).toEqual([]); // the copy is not shared
      // Stopping: the copy goes, one's own plane comes back (not shared either), the shared one stays.
      state.meeting.follow(null);
      later(60);
      const after = state.setup.tools.sections.list();
      expect(after).toHaveLength(2);
      expect(after.map((s) => s.id)).toContain(shared[0]);
      const back = after.find((s) => s.id !== shared[0])!;
      expect(back.normal.x).toBeCloseTo(1, 6);
      expect(back.constant).toBeCloseTo(-0.2, 6);
      expect(state.socket.rfcs(TOOL_CHANGES_FUNCTION)).toEqual([]);
    });
  });

  describe('being followed', () => {
    it('shows who follows whom, sends a new follower the view and the pose at once, and tells a newcomer whom we follow', async () => {
      await join();
      const snapshot = () => state.meeting.snapshot().participants.map((p) => [p.id, p.following]);
      state.socket.receive({ type: 'RFC', object: 'follow', function: 'handleStartFollowRfc', args: ['bob', 'cy'] });
      frame();
      expect(snapshot()).toEqual([
        ['me', false],
        ['bob', true],
        ['cy', false],
      ]);
      expect(state.socket.rfcs('handleViewState')).toEqual([]); // Bob follows Cy, not us
      state.socket.receive({ type: 'RFC', object: 'follow', function: 'handleStartFollowRfc', args: ['cy', 'me'] });
      const posesBefore = state.socket.rfcs('handleTransformUpdate').length;
      frame();
      expect(state.socket.rfcs('handleViewState').map((m) => m.args)).toEqual([['me', { projection: 'Perspective', zoom: 1, fov: 45, sections: [] }]]);
      expect(state.socket.rfcs('handleTransformUpdate')).toHaveLength(posesBefore + 1);
      // Unchanged: not again.
      later(60);
      expect(state.socket.rfcs('handleViewState')).toHaveLength(1);
      state.socket.receive({ type: 'RFC', object: 'follow', function: 'handleStopFollowRfc', args: ['bob'] });
      frame();
      expect(snapshot()).toEqual([
        ['me', false],
        ['bob', false],
        ['cy', true],
      ]);
      // A newcomer is told whom we follow.
      state.meeting.follow('bob');
      state.socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
      frame();
      expect(state.socket.rfcs('handleStartFollowRfc').map((m) => m.args)).toEqual([
        ['me', 'bob'],
        ['me', 'bob'],
      ]);
    });
  });
});
