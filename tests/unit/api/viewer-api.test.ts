import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../src/viewer/tools/labels', () => ({
  createLabelLayer: () => ({
    element: {},
    add: () => ({ element: { dataset: {} }, point: { set() {} }, offsetY: 0, setText() {}, setClass() {} }),
    remove() {},
    update() {},
    dispose() {},
  }),
}));

import { CAMERA_STOP_FRAMES, createViewerApi, IMMEDIATE, MAX_HOTSPOTS } from '../../../src/api/viewer-api';
import type { HostApi } from '../../../src/api/host-api';
import { drainMessages } from '../../../src/engine/messages';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { HOST_FUNCTIONS } from '../../../src/protocol/host-api';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import type { Viewer } from '../../../src/viewer/viewer';

function setup(extra: Partial<Parameters<typeof createViewerApi>[0]> = {}) {
  const world = createViewerWorld();
  const events = new Emitter<ViewerEventMap>();
  let speed = 1;
  const viewer = {
    world,
    events,
    controls: {
      getPosition: (out: any) => out.set(1, 2, 3),
      getTarget: (out: any) => out.set(0, 0, 0),
    },
    navigation: { perspectiveCamera: { fov: 45, near: 0.1, far: 1000 }, state: () => ({ mode: 'Orbit', projection: 'Perspective', cameraConfig: 'simple' }) },
    animations: { setSpeed: (s: number) => (speed = Math.max(0.1, s)), list: () => [] },
    context: { scene: { add() {} }, renderer: { getPixelRatio: () => 1 } },
  } as unknown as Viewer;
  const emitted: { event: string; data: any }[] = [];
  const api = { listening: true, emit: (event: string, data: unknown) => emitted.push({ event, data }) } as unknown as HostApi;
  const canvas = { clientWidth: 800, clientHeight: 500, getBoundingClientRect: () => ({ left: 0, top: 0 }) } as unknown as HTMLCanvasElement;
  const va = createViewerApi({ viewer, api, container: {} as HTMLElement, canvas, ...extra });
  return { world, events, va, emitted, speed: () => speed };
}

describe('viewer API', () => {
  it('answers reads at once and queues changes for the frame, keeping their order', async () => {
    const { world, va, speed } = setup();
    const camera = await va.execute('getCamera', {});
    expect(camera).toMatchObject({ position: [1, 2, 3], target: [0, 0, 0], fov: 45, mode: 'Orbit' });
    const change = va.execute('setAnimationSpeed', { speed: 3 });
    // A read behind a queued change waits for it too.
    let read: unknown = null;
    void va.execute('getCamera', {}).then((r) => (read = r));
    await Promise.resolve();
    expect(speed()).toBe(1);
    expect(read).toBeNull();
    expect(world.messages.queue).toHaveLength(2);
    drainMessages(world);
    await expect(change).resolves.toEqual({ speed: 3 });
    await Promise.resolve();
    expect(read).not.toBeNull();
  });

  it('answers a failing function with its error', async () => {
    const { world, va } = setup();
    const failing = va.execute('setModelVisibility', { modelId: 'nope', visible: false });
    drainMessages(world);
    await expect(failing).rejects.toThrow("There is no loaded model 'nope'.");
    await expect(va.execute('getNode', { modelId: 'nope', nodeId: '1' })).rejects.toThrow("There is no loaded model 'nope'.");
  });

  it('never answers pictures or changes without the frame', () => {
    for (const name of IMMEDIATE) expect(HOST_FUNCTIONS[name].access).toBe('read');
    expect(IMMEDIATE.has('screenshot')).toBe(false);
    expect(IMMEDIATE.has('renderOffscreenFrame')).toBe(false);
    expect(IMMEDIATE.has('getCamera')).toBe(true);
  });

  it('sends camerastart when the camera moves and camerastop after it rests, from the overlays step', () => {
    const { world, emitted } = setup();
    world.camera.moved = true;
    runFrameSteps(world, 'overlays');
    runFrameSteps(world, 'overlays');
    expect(emitted.map((e) => e.event)).toEqual(['camerastart']);
    world.camera.moved = false;
    for (let i = 0; i < CAMERA_STOP_FRAMES; i++) runFrameSteps(world, 'overlays');
    expect(emitted.map((e) => e.event)).toEqual(['camerastart', 'camerastop']);
  });

  it('forwards the viewer events as the API events', () => {
    const { events, emitted } = setup();
    events.emit('hit', { point: { x: 1, y: 2, z: 3 }, normal: { x: 0, y: 1, z: 0 }, modelId: 'm', nodeId: '4', nodeName: 'Valve', materialId: '0', materialName: 'Steel', instanceId: null, groupId: null });
    events.emit('background-hit', { clientX: 10, clientY: 20 });
    expect(emitted.map((e) => e.event)).toEqual(['raycast', 'selection', 'background.click', 'selection']);
    expect(emitted[0].data).toMatchObject({ position: [1, 2, 3], normal: [0, 1, 0], nodeName: 'Valve', material: 'Steel' });
    expect(emitted[3].data).toEqual({ modelId: null, nodeId: null });
  });

  it('refuses hotspots past the limit without registering any of them', async () => {
    const { world, va } = setup();
    const call = (points: { id: string; position: [number, number, number] }[]) => {
      const running = va.execute('registerHotspots', { points });
      drainMessages(world);
      return running;
    };
    const points = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${from + i}`, position: [i, 0, 0] as [number, number, number] }));
    await expect(call(points(0, MAX_HOTSPOTS))).resolves.toEqual({ count: MAX_HOTSPOTS });
    await expect(call(points(MAX_HOTSPOTS - 1, 3))).rejects.toThrow(/At most 1000 hotspots/);
    // Moving registered ones is still fine, and the refused call added nothing.
    await expect(call(points(0, 2))).resolves.toEqual({ count: MAX_HOTSPOTS });
  });

  it("setAuthToken hands the token to the viewer's keeper and answers with what it says; without one it refuses", async () => {
    const set = vi.fn(async (token: string | null) => ({ signedIn: token !== null, firstName: token ? 'Hana' : null, lastName: token ? 'Host' : null, expiresAt: null }));
    const { world, va } = setup({ auth: { set } });
    const answer = va.execute('setAuthToken', { token: 'a.b.c' });
    drainMessages(world);
    await expect(answer).resolves.toEqual({ signedIn: true, firstName: 'Hana', lastName: 'Host', expiresAt: null });
    expect(set).toHaveBeenCalledWith('a.b.c');
    const none = setup();
    const refused = none.va.execute('setAuthToken', { token: 'a.b.c' });
    drainMessages(none.world);
    await expect(refused).rejects.toThrow('This viewer saves nothing as a person');
  });

  it('removes its frame steps and message handler on dispose', () => {
    const { world, va } = setup();
    expect(world.steps.overlays.length).toBe(1);
    va.dispose();
    expect(world.steps.overlays.length).toBe(0);
    expect(world.steps.helpers.length).toBe(0);
    expect(world.messages.handlers.size).toBe(0);
  });
});
