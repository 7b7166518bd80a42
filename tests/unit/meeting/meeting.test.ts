import { describe, expect, it, vi } from 'vitest';
import { TOOL_CHANGES_FUNCTION } from '../../../src/protocol/shared-tools';
import { BOB, client, useMeeting } from './meeting-fakes';

/**
 * The meeting in the viewer (src/meeting/meeting.ts) on a stand-in viewer and socket, with fake
 * time: leaving leaves nothing queued, bad remote calls are reported, never thrown, and the
 * editors' selections go both ways. Its parts have their own tests: participants, follow mode,
 * the camera pose, the calls on the meeting's objects.
 */

describe('meeting (src/meeting/meeting.ts)', () => {
  const { state, frame, later, join } = useMeeting();

  describe('leaving', () => {
    it('leaves nothing queued for the frame that nobody would apply', async () => {
      await join();
      const errors: unknown[] = [];
      const spy = vi.spyOn(console, 'error').mockImplementation((...args) => void errors.push(args));
      try {
        state.socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
        state.meeting.leave(); // stops the connection: a reset is queued
        state.meeting.dispose();
        expect(state.setup.world.messages.queue).toEqual([]);
        frame();
        expect(errors).toEqual([]);
      } finally {
        spy.mockRestore();
      }
    });
  });
  describe('remote calls', () => {
    it('a malformed or unknown call is reported (an error event: console and notice), never thrown into the frame', async () => {
      await join();
      const errors = () => state.events.filter((e) => e.kind === 'error').map((e) => (e as { message: string }).message);
      state.socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 'x', 1], [0, 0, 0]] });
      state.socket.receive({ type: 'RFC', object: 'nothing', function: 'handleIt', args: ['bob'] });
      state.socket.receive({ type: 'RFC', object: 'tools', function: 'toString', args: ['bob'] });
      state.socket.receive({ type: 'RFC', object: 'tools', function: TOOL_CHANGES_FUNCTION, args: ['bob', [{ op: 'section', id: 'bob:1' }]] });
      state.socket.receive({ type: 'RFC', object: 'selection', function: 'handleSelection', args: ['bob', { kind: 'node' }] });
      expect(() => frame()).not.toThrow();
      expect(errors()).toEqual([
        expect.stringMatching(/^handleTransformUpdate from bob: bad arguments/),
        "Another participant called 'handleIt' on the meeting's object 'nothing', which this viewer does not have.",
        "Another participant called 'toString' on the meeting's object 'tools', which this viewer does not have.",
        expect.stringMatching(/^handleToolChanges from bob: bad arguments \(args\[1\]\[0\]\.rev: /),
        expect.stringMatching(/^handleSelection from bob: bad arguments \(args\[1\]\.modelId/),
      ]);
      expect(state.setup.tools.sections.list()).toEqual([]);
    });

    it("shows another person's selection and sends one's own, again to a newcomer", async () => {
      await join();
      state.meeting.shareSelection({ kind: 'object', uuid: 'light-1' });
      later(60);
      expect(state.socket.rfcs('handleSelection').map((m) => m.args)).toEqual([['me', { kind: 'object', uuid: 'light-1' }]]);
      state.socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
      later(60);
      expect(state.socket.rfcs('handleSelection')).toHaveLength(2);
      state.socket.receive({ type: 'RFC', object: 'selection', function: 'handleSelection', args: ['bob', { kind: 'node', modelId: 'm', nodeId: 'n' }] });
      frame();
      expect(state.meeting.shared().selections).toEqual([{ clientId: 'bob', label: 'Bob Test: n', visible: false }]);
      state.socket.receive({ type: 'USER_LEFT', client: BOB });
      frame();
      expect(state.meeting.shared().selections).toEqual([]);
    });
  });
});
