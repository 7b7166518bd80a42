import { Group, Scene, Vector3 } from 'three';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { drainMessages } from '../../../src/engine/messages';
import { createViewerWorld } from '../../../src/engine/world';
import type { SocketLike } from '../../../src/meeting/connection';
import { createMeeting, type Meeting, type MeetingEventData } from '../../../src/meeting/meeting';
import { AVATAR_FORCED_UPDATE_MS, AVATAR_UPDATE_INTERVAL_MS } from '../../../src/protocol/meeting';
import { TOOL_CHANGES_FUNCTION } from '../../../src/protocol/shared-tools';
import { createPointerRouter } from '../../../src/viewer/input/pointer-router';
import type { Viewer } from '../../../src/viewer/viewer';
import { fakeTools } from './fake-meeting';

/**
 * The meeting in the viewer (src/meeting/meeting.ts) on a stand-in viewer and socket, with fake
 * time: the camera pose's throttle (50 ms, > 0.1, forced every 5000 ms), follow mode's stops, the
 * reconciling of follow mode with the shared planes, and bad remote calls reported, never thrown.
 */

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: any[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  rfcs(fn?: string) {
    return this.sent.filter((m) => m.type === 'RFC' && (fn === undefined || m.function === fn));
  }
}

const client = (id: string, firstName: string) => ({ _id: id, profile: { firstName, lastName: 'Test' } });
const ME = client('me', 'Ada');
const BOB = client('bob', 'Bob');
const CY = client('cy', 'Cy');

/** A 2D canvas context that measures and draws nothing (the avatars' name labels). */
function installFakeDocument() {
  const context = new Proxy({ measureText: () => ({ width: 80 }) } as Record<string, unknown>, {
    get: (target, key) => (key in target ? target[key as string] : () => undefined),
    set: () => true,
  });
  (globalThis as any).document = { createElement: () => ({ width: 0, height: 0, getContext: () => context }) };
}

function fakeViewer() {
  const world = createViewerWorld();
  const scene = new Scene();
  world.render.scene = scene;
  const tools = fakeTools(world);
  const position = new Vector3(10, 5, 10);
  const target = new Vector3(0, 0, 0);
  const canvasListeners = new Map<string, (event: any) => void>();
  const lookAts: number[][] = [];
  let active: string | null = null;
  const viewer = {
    world,
    events: tools.events,
    context: { scene, renderer: { domElement: { addEventListener: (type: string, fn: any) => canvasListeners.set(type, fn), removeEventListener: () => undefined } } },
    // The viewer's pointer router, with no picker: nothing under the pointer.
    pointer: createPointerRouter(world, { camera: () => ({ enabled: true }) }),
    navigation: {
      projection: 'Perspective',
      orthographicCamera: { zoom: 1 },
      perspectiveCamera: { fov: 45 },
      setProjection(p: string) {
        this.projection = p;
      },
      setLookAt: (...args: number[]) => {
        lookAts.push(args.slice(0, 6));
        return Promise.resolve();
      },
      zoomTo: () => Promise.resolve(),
    },
    tools: {
      sections: tools.sections,
      measurements: tools.measurements,
      labels: { add: () => ({ element: { style: {}, dataset: {} }, point: new Vector3(), setText: () => undefined }), remove: () => undefined, update: () => undefined },
      get active() {
        return active;
      },
      activate(name: string) {
        const previous = active;
        active = name;
        tools.events.emit('tool', { tool: name as never, previous: previous as never });
      },
      deactivate() {
        const previous = active;
        active = null;
        tools.events.emit('tool', { tool: null, previous: previous as never });
      },
    },
  };
  scene.add(new Group());
  /** The navigation's part of a frame: the view pose (world.view) from the camera's pose. */
  const writePose = () => {
    const view = world.view;
    const nav = viewer.navigation;
    view.position.copy(position);
    view.positionEnd.copy(position);
    view.target.copy(target);
    view.targetEnd.copy(target);
    view.projection = nav.projection as 'Perspective' | 'Orthographic';
    view.zoom = nav.projection === 'Orthographic' ? nav.orthographicCamera.zoom : 1;
    view.fov = nav.perspectiveCamera.fov;
    view.version++;
  };
  return { viewer: viewer as unknown as Viewer, world, tools, position, target, lookAts, writePose };
}

describe('meeting (src/meeting/meeting.ts)', () => {
  let socket: FakeSocket;
  let setup: ReturnType<typeof fakeViewer>;
  let meeting: Meeting;
  let events: MeetingEventData[];

  /** One frame: the message system, the navigation's view pose, then the overlay steps (the pose goes out there). */
  const frame = () => {
    drainMessages(setup.world);
    setup.writePose();
    runFrameSteps(setup.world, 'helpers');
    runFrameSteps(setup.world, 'overlays');
  };
  const later = (ms: number) => {
    vi.advanceTimersByTime(ms);
    frame();
  };

  const join = async (others = [BOB, CY]) => {
    meeting = createMeeting(setup.viewer, { url: 'ws://test/meetings/s', token: async () => 'token', createSocket: () => socket });
    setup.viewer.events.on('meeting', (e) => events.push(e));
    await vi.advanceTimersByTimeAsync(0);
    socket.open();
    socket.receive({ type: 'AUTH_RESPONSE', client: ME });
    socket.receive({ type: 'STATE', clients: [ME, ...others] });
    frame();
  };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] });
    installFakeDocument();
    socket = new FakeSocket();
    setup = fakeViewer();
    events = [];
  });
  afterEach(() => {
    meeting?.dispose();
    vi.useRealTimers();
    delete (globalThis as any).document;
  });

  describe('the camera pose (handleTransformUpdate)', () => {
    const poses = () => socket.rfcs('handleTransformUpdate');

    it('goes out at once, then only when the camera moved more than 0.1, at most every 50 ms', async () => {
      await join();
      expect(poses()).toHaveLength(1);
      expect(poses()[0].args).toEqual(['me', [10, 5, 10], [0, 0, 0], null]);
      // Still: nothing for a while.
      for (let i = 0; i < 20; i++) later(20);
      expect(poses()).toHaveLength(1);
      // Less than 0.1: nothing.
      setup.position.x += 0.09;
      later(60);
      setup.target.y += 0.05;
      later(60);
      expect(poses()).toHaveLength(1);
      // More than 0.1 (counted from the last pose sent, not from the last frame).
      setup.position.x += 0.02;
      later(60);
      expect(poses()).toHaveLength(2);
      expect(poses()[1].args[1][0]).toBeCloseTo(10.11, 3);
      // Moving all the time, a frame every 10 ms: at most one pose per 50 ms.
      const before = poses().length;
      for (let i = 0; i < 100; i++) {
        setup.position.z += 0.2;
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
      socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
      frame();
      expect(poses()).toHaveLength(2);
    });
  });

  describe('follow mode', () => {
    it('stops following one person when a new follow starts', async () => {
      await join();
      meeting.follow('bob');
      expect(meeting.snapshot().following).toBe('bob');
      expect(socket.rfcs('handleStartFollowRfc').map((m) => m.args)).toEqual([['me', 'bob']]);
      meeting.follow('cy');
      expect(meeting.snapshot().following).toBe('cy');
      expect(socket.rfcs('handleStopFollowRfc').map((m) => m.args)).toEqual([['me']]);
      expect(socket.rfcs('handleStartFollowRfc').map((m) => m.args)).toEqual([
        ['me', 'bob'],
        ['me', 'cy'],
      ]);
      // Cy's poses move our camera; Bob's no longer do.
      socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 1, 1], [0, 0, 0]] });
      socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['cy', [2, 2, 2], [0, 1, 0]] });
      frame();
      expect(setup.lookAts).toEqual([[2, 2, 2, 0, 1, 0]]);
      expect(() => meeting.follow('me')).toThrow(/Cannot follow 'me'/);
    });

    it('stops when the followed person leaves (and tells nobody: there is nobody to tell)', async () => {
      await join();
      meeting.follow('bob');
      socket.receive({ type: 'USER_LEFT', client: BOB });
      expect(meeting.snapshot().following).toBe('bob'); // applied in the frame, not mid-frame
      frame();
      expect(meeting.snapshot().following).toBeNull();
      expect(socket.rfcs('handleStopFollowRfc')).toEqual([]);
      expect(events.some((e) => e.kind === 'left' && e.name === 'Bob Test')).toBe(true);
      // Leaving someone else does not stop following.
      meeting.follow('cy');
      socket.receive({ type: 'USER_LEFT', client: client('dee', 'Dee') });
      frame();
      expect(meeting.snapshot().following).toBe('cy');
    });

    it('stops when another tool is enabled', async () => {
      await join();
      meeting.follow('bob');
      setup.viewer.tools.activate('length-measure-tool');
      expect(meeting.snapshot().following).toBeNull();
      expect(socket.rfcs('handleStopFollowRfc').map((m) => m.args)).toEqual([['me']]);
    });
  });

  describe('follow mode and shared planes', () => {
    it("a followed person's view carries only their own planes: the shared ones reach followers anyway", async () => {
      const own = setup.tools.sections.create(new Vector3(0.2, 0, 0), new Vector3(1, 0, 0)); // before the meeting
      await join();
      setup.tools.sections.create(new Vector3(0, 0.6, 0), new Vector3(0, -1, 0)); // in the meeting: shared
      later(60);
      expect(socket.rfcs(TOOL_CHANGES_FUNCTION)).toHaveLength(1);
      socket.receive({ type: 'RFC', object: 'follow', function: 'handleStartFollowRfc', args: ['bob', 'me'] });
      later(60);
      const views = socket.rfcs('handleViewState');
      expect(views).toHaveLength(1);
      expect(views[0].args[1].sections).toHaveLength(1);
      const [plane] = views[0].args[1].sections;
      expect(plane.normal.map((x: number) => Math.round(x * 1e6) / 1e6 + 0)).toEqual([1, 0, 0]);
      expect(plane.constant).toBeCloseTo(-0.2, 6);
      expect(setup.tools.sections.list().map((s) => s.id)).toContain(own);
    });

    it("a follower keeps the shared planes, puts their own aside, copies the followed person's own without sharing them, and gets theirs back", async () => {
      const own = setup.tools.sections.create(new Vector3(0.2, 0, 0), new Vector3(1, 0, 0));
      await join();
      // A shared plane made by Bob.
      socket.receive({
        type: 'RFC',
        object: 'tools',
        function: TOOL_CHANGES_FUNCTION,
        args: ['bob', [{ op: 'section', id: 'bob:1', rev: 1, section: { position: [0, 0.6, 0], rotation: [1, 0, 0, 0] } }]],
      });
      frame();
      const shared = setup.tools.sections.list().map((s) => s.id).filter((id) => id !== own);
      expect(shared).toHaveLength(1);
      meeting.follow('bob');
      expect(setup.tools.sections.list().map((s) => s.id)).toEqual(shared);
      // Bob's view: one plane of his own.
      socket.receive({ type: 'RFC', object: 'view', function: 'handleViewState', args: ['bob', { projection: 'Perspective', zoom: 1, fov: 45, sections: [{ normal: [0, 0, 1], constant: 2 }] }] });
      later(60);
      const now = setup.tools.sections.list();
      expect(now).toHaveLength(2);
      const copy = now.find((s) => !shared.includes(s.id))!;
      expect(copy.normal.z).toBeCloseTo(1, 6);
      expect(copy.constant).toBeCloseTo(2, 6);
      later(60);
      expect(socket.rfcs(TOOL_CHANGES_FUNCTION)).toEqual([]); // the copy is not shared
      // Stopping: the copy goes, one's own plane comes back (not shared either), the shared one stays.
      meeting.follow(null);
      later(60);
      const after = setup.tools.sections.list();
      expect(after).toHaveLength(2);
      expect(after.map((s) => s.id)).toContain(shared[0]);
      const back = after.find((s) => s.id !== shared[0])!;
      expect(back.normal.x).toBeCloseTo(1, 6);
      expect(back.constant).toBeCloseTo(-0.2, 6);
      expect(socket.rfcs(TOOL_CHANGES_FUNCTION)).toEqual([]);
    });
  });

  describe('leaving', () => {
    it('leaves nothing queued for the frame that nobody would apply', async () => {
      await join();
      const errors: unknown[] = [];
      const spy = vi.spyOn(console, 'error').mockImplementation((...args) => void errors.push(args));
      try {
        socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
        meeting.leave(); // stops the connection: a reset is queued
        meeting.dispose();
        expect(setup.world.messages.queue).toEqual([]);
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
      const errors = () => events.filter((e) => e.kind === 'error').map((e) => (e as { message: string }).message);
      socket.receive({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['bob', [1, 'x', 1], [0, 0, 0]] });
      socket.receive({ type: 'RFC', object: 'nothing', function: 'handleIt', args: ['bob'] });
      socket.receive({ type: 'RFC', object: 'tools', function: 'toString', args: ['bob'] });
      socket.receive({ type: 'RFC', object: 'tools', function: TOOL_CHANGES_FUNCTION, args: ['bob', [{ op: 'section', id: 'bob:1' }]] });
      socket.receive({ type: 'RFC', object: 'selection', function: 'handleSelection', args: ['bob', { kind: 'node' }] });
      expect(() => frame()).not.toThrow();
      expect(errors()).toEqual([
        expect.stringMatching(/^handleTransformUpdate from bob: bad arguments/),
        "Another participant called 'handleIt' on the meeting's object 'nothing', which this viewer does not have.",
        "Another participant called 'toString' on the meeting's object 'tools', which this viewer does not have.",
        expect.stringMatching(/^handleToolChanges from bob: bad arguments \(args\[1\]\[0\]\.rev: /),
        expect.stringMatching(/^handleSelection from bob: bad arguments \(args\[1\]\.modelId/),
      ]);
      expect(setup.tools.sections.list()).toEqual([]);
    });

    it("shows another person's selection and sends one's own, again to a newcomer", async () => {
      await join();
      meeting.shareSelection({ kind: 'object', uuid: 'light-1' });
      later(60);
      expect(socket.rfcs('handleSelection').map((m) => m.args)).toEqual([['me', { kind: 'object', uuid: 'light-1' }]]);
      socket.receive({ type: 'USER_JOINED', client: client('dee', 'Dee') });
      later(60);
      expect(socket.rfcs('handleSelection')).toHaveLength(2);
      socket.receive({ type: 'RFC', object: 'selection', function: 'handleSelection', args: ['bob', { kind: 'node', modelId: 'm', nodeId: 'n' }] });
      frame();
      expect(meeting.shared().selections).toEqual([{ clientId: 'bob', label: 'Bob Test: n', visible: false }]);
      socket.receive({ type: 'USER_LEFT', client: BOB });
      frame();
      expect(meeting.shared().selections).toEqual([]);
    });
  });
});
