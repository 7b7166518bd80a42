import { Group, Scene, Vector3 } from 'three';
import { afterEach, beforeEach, vi } from 'vitest';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { drainMessages } from '../../../src/engine/messages';
import { createViewerWorld } from '../../../src/engine/world';
import type { SocketLike } from '../../../src/meeting/connection';
import { createMeeting, type Meeting, type MeetingEventData } from '../../../src/meeting/meeting';
import { createPointerRouter } from '../../../src/viewer/input/pointer-router';
import type { Viewer } from '../../../src/viewer/viewer';
import { fakeTools } from './fake-meeting';

/**
 * A stand-in viewer and socket for the meeting's tests (meeting.ts and its parts): the socket
 * records what is sent, the viewer has the fake tools (fake-meeting.ts), a pointer router with no
 * picker, and a navigation that records setLookAt and writes the view pose from `position` and
 * `target`.
 */

export class FakeSocket implements SocketLike {
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

export const client = (id: string, firstName: string) => ({ _id: id, profile: { firstName, lastName: 'Test' } });
export const ME = client('me', 'Ada');
export const BOB = client('bob', 'Bob');
export const CY = client('cy', 'Cy');

/** A 2D canvas context that measures and draws nothing (the avatars' name labels). */
export function installFakeDocument() {
  const context = new Proxy({ measureText: () => ({ width: 80 }) } as Record<string, unknown>, {
    get: (target, key) => (key in target ? target[key as string] : () => undefined),
    set: () => true,
  });
  (globalThis as any).document = { createElement: () => ({ width: 0, height: 0, getContext: () => context }) };
}

export function fakeViewer() {
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
    context: {
      scene,
      renderer: { domElement: { addEventListener: (type: string, fn: any) => canvasListeners.set(type, fn), removeEventListener: () => undefined } },
    },
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
      labels: {
        add: () => ({ element: { style: {}, dataset: {} }, point: new Vector3(), setText: () => undefined }),
        remove: () => undefined,
        update: () => undefined,
      },
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

/**
 * One joined meeting per test on the stand-in viewer and socket, with fake time: `join` connects
 * as Ada with Bob and Cy there, `frame` runs one frame (the message system, the navigation's view
 * pose, then the helper and overlay steps: the pose goes out there), `later` advances time first.
 */
export function useMeeting() {
  const state = {
    socket: undefined as unknown as FakeSocket,
    setup: undefined as unknown as ReturnType<typeof fakeViewer>,
    meeting: undefined as unknown as Meeting,
    events: [] as MeetingEventData[],
  };
  const frame = () => {
    drainMessages(state.setup.world);
    state.setup.writePose();
    runFrameSteps(state.setup.world, 'helpers');
    runFrameSteps(state.setup.world, 'overlays');
  };
  const later = (ms: number) => {
    vi.advanceTimersByTime(ms);
    frame();
  };
  const join = async (others = [BOB, CY]) => {
    state.meeting = createMeeting(state.setup.viewer, { url: 'ws://test/meetings/s', token: async () => 'token', createSocket: () => state.socket });
    state.setup.viewer.events.on('meeting', (e) => state.events.push(e));
    await vi.advanceTimersByTimeAsync(0);
    state.socket.open();
    state.socket.receive({ type: 'AUTH_RESPONSE', client: ME });
    state.socket.receive({ type: 'STATE', clients: [ME, ...others] });
    frame();
  };
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] });
    installFakeDocument();
    state.socket = new FakeSocket();
    state.setup = fakeViewer();
    state.events = [];
  });
  afterEach(() => {
    state.meeting?.dispose();
    vi.useRealTimers();
    delete (globalThis as any).document;
  });
  return { state, frame, later, join };
}
