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

import { ImageLoader, MeshStandardMaterial, Object3D, Texture, TextureLoader, Vector3, type Quaternion } from 'three';
import { CAMERA_STOP_FRAMES, createViewerApi, IMMEDIATE, MAX_HOTSPOTS } from '../../../src/viewer/viewer-api';
import type { HostApi } from '../../../src/api/host-api';
import { drainMessages } from '../../../src/engine/messages';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../src/engine/world';
import { HOST_FUNCTIONS, MAX_ADDED_TEXTURES, MAX_MEASUREMENTS, MAX_SECTION_PLANES, type HostFunctionName } from '../../../src/protocol/host-api';
import type { ModelRecord } from '../../../src/engine/world';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import type { Viewer } from '../../../src/viewer/viewer';

/** The tools' measurements and section planes, as far as the API uses them. */
function fakeTools(world: ReturnType<typeof createViewerWorld>) {
  let next = 100;
  const measurements = new Map<number, { kind: 'length' | 'area' | 'angle'; points: Vector3[] }>();
  const planes = new Map<number, { position: Vector3; rotation: Quaternion }>();
  const value = (m: { kind: string; points: Vector3[] }) => (m.kind === 'length' ? m.points[0].distanceTo(m.points[1]) : 0);
  const write = (id: number, points: Vector3[]) => world.measurementPoints.set(id, new Float32Array(points.flatMap((p) => p.toArray())) as never);
  return {
    measurements: {
      list: () => [...measurements].map(([id, m]) => ({ id, kind: m.kind, value: value(m), label: `${value(m).toFixed(2)} m`, components: null })),
      restore: vi.fn((kind: 'length' | 'area' | 'angle', points: Vector3[]) => {
        const id = ++next;
        measurements.set(id, { kind, points });
        write(id, points);
        return id;
      }),
      setPoints: vi.fn((id: number, points: Vector3[]) => {
        measurements.get(id)!.points = points;
        write(id, points);
      }),
      remove: (id: number) => {
        if (!measurements.delete(id)) throw new Error(`There is no measurement ${id}.`);
      },
    },
    sections: {
      list: () => [...planes.keys()].map((id) => ({ id })),
      place: vi.fn((position: Vector3, rotation: Quaternion) => {
        const id = ++next;
        planes.set(id, { position: position.clone(), rotation: rotation.clone() });
        return id;
      }),
      pose: (id: number, position: Vector3, rotation: Quaternion) => {
        const p = planes.get(id);
        if (!p) return false;
        position.copy(p.position);
        rotation.copy(p.rotation);
        return true;
      },
      setPose: vi.fn((id: number, position: Vector3, rotation: Quaternion) => planes.set(id, { position: position.clone(), rotation: rotation.clone() })),
      remove: (id: number) => {
        if (!planes.delete(id)) throw new Error(`There is no section plane ${id}.`);
      },
    },
    measurementCount: () => measurements.size,
    planeCount: () => planes.size,
  };
}

/** A loaded model with one material whose map is the model's texture '0'. */
function addModel(world: ReturnType<typeof createViewerWorld>) {
  const texture = new Texture({ width: 8, height: 4 } as never);
  texture.name = 'bricks';
  const material = new MeshStandardMaterial({ map: texture });
  const root = new Object3D();
  const rec = {
    modelId: 'm1',
    eid: 1,
    root,
    nodes: new Map(),
    nodeIds: new Map(),
    primitives: new Map(),
    materials: new Map([['mat', material]]),
    materialIds: new Map([[material, 'mat']]),
    textures: new Map([['0', texture]]),
    animations: [],
    mixer: null,
  } as unknown as ModelRecord;
  world.models.set(1, rec);
  return { rec, texture, material };
}

function setup(extra: Partial<Parameters<typeof createViewerApi>[0]> = {}) {
  const world = createViewerWorld();
  const events = new Emitter<ViewerEventMap>();
  let speed = 1;
  const tools = fakeTools(world);
  const viewer = {
    world,
    events,
    tools,
    controls: {
      getPosition: (out: any) => out.set(1, 2, 3),
      getTarget: (out: any) => out.set(0, 0, 0),
    },
    navigation: { perspectiveCamera: { fov: 45, near: 0.1, far: 1000, updateProjectionMatrix() {} }, state: () => ({ mode: 'Orbit', projection: 'Perspective', cameraConfig: 'simple' }) },
    animations: { setSpeed: (s: number) => (speed = Math.max(0.1, s)), list: () => [] },
    context: { scene: new Object3D(), renderer: { getPixelRatio: () => 1 } },
  } as unknown as Viewer;
  const emitted: { event: string; data: any }[] = [];
  const api = { listening: true, emit: (event: string, data: unknown) => emitted.push({ event, data }) } as unknown as HostApi;
  const canvas = { clientWidth: 800, clientHeight: 500, getBoundingClientRect: () => ({ left: 0, top: 0 }) } as unknown as HTMLCanvasElement;
  const va = createViewerApi({ viewer, api, container: {} as HTMLElement, canvas, ...extra });
  /** Runs a function as a host request does: queued, then the frame's message slot. */
  const run = <F extends HostFunctionName>(func: F, args: unknown) => {
    const answer = va.execute(func, args);
    drainMessages(world);
    return answer as Promise<any>;
  };
  return { world, events, va, emitted, speed: () => speed, tools, run, viewer };
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

  it('lists textures with the maps that use them, and removes only unused ones of addTexture', async () => {
    const { world, run } = setup();
    const { rec, texture, material } = addModel(world);
    // Loading images is the browser's: the loaders answer at once here.
    vi.spyOn(TextureLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const t = new Texture({ width: 16, height: 16 } as HTMLImageElement);
      queueMicrotask(() => onLoad?.(t));
      return t;
    });
    vi.spyOn(ImageLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const image = { width: 32, height: 64, src: url } as never;
      queueMicrotask(() => onLoad?.(image));
      return image;
    });
    expect(await run('listTextures', {})).toEqual([
      { textureId: '0', modelId: 'm1', name: 'bricks', source: 'model', url: null, width: 8, height: 4, usedBy: [{ modelId: 'm1', materialId: 'mat', map: 'map' }] },
    ]);
    const { textureId } = await run('addTexture', { url: 'https://img.example/a.png' });
    expect(rec.textures.get(textureId)).toBeDefined();
    expect((await run('listTextures', {}))[0]).toMatchObject({ textureId, modelId: null, source: 'added', url: 'https://img.example/a.png', width: 16, usedBy: [] });
    // In use: refused, kept.
    material.map = rec.textures.get(textureId)!;
    await expect(run('removeTexture', { textureId })).rejects.toThrow(`Texture '${textureId}' is used by map of material 'mat' of model 'm1': set those maps to another texture or null first.`);
    expect(rec.textures.has(textureId)).toBe(true);
    // Its image replaced: the map's texture has it and is uploaded again; the URL is the new one.
    const before = material.map.version;
    const updated = await run('updateTexture', { textureId, url: 'https://img.example/b.png' });
    expect(updated).toMatchObject({ url: 'https://img.example/b.png', width: 32, height: 64, usedBy: [{ materialId: 'mat', map: 'map' }] });
    expect((material.map.image as { src: string }).src).toBe('https://img.example/b.png');
    expect(material.map.version).toBeGreaterThan(before);
    material.map = texture;
    expect(await run('removeTexture', { textureId })).toEqual({ ok: true });
    expect(rec.textures.has(textureId)).toBe(false);
    await expect(run('removeTexture', { textureId: '0' })).rejects.toThrow("Texture '0' is a model's own: only textures made by addTexture can be removed.");
    await expect(run('updateTexture', { textureId: 'nope', url: 'https://img.example/c.png' })).rejects.toThrow("There is no texture 'nope' made by addTexture");
    // A model's own texture, named with its model.
    await run('updateTexture', { textureId: '0', modelId: 'm1', url: 'https://img.example/c.png' });
    expect((texture.image as { src: string }).src).toBe('https://img.example/c.png');
    vi.restoreAllMocks();
  });

  it(`refuses addTexture past ${MAX_ADDED_TEXTURES} textures, counting those still loading`, async () => {
    const { run } = setup();
    const pending: (() => void)[] = [];
    vi.spyOn(TextureLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const t = new Texture({ width: 1, height: 1 } as HTMLImageElement);
      pending.push(() => onLoad?.(t));
      return t;
    });
    const loads = Array.from({ length: MAX_ADDED_TEXTURES }, (_, i) => run('addTexture', { url: `https://img.example/${i}.png` }));
    await expect(run('addTexture', { url: 'https://img.example/extra.png' })).rejects.toThrow(`At most ${MAX_ADDED_TEXTURES} textures may be added`);
    for (const done of pending) done();
    await Promise.all(loads);
    vi.restoreAllMocks();
  });

  it('makes, moves and removes measurements through the tools, checking the points first', async () => {
    const { run, tools } = setup();
    const made = await run('createMeasurement', { kind: 'length', points: [[0, 0, 0], [3, 4, 0]] });
    expect(made).toMatchObject({ kind: 'length', value: 5, points: [[0, 0, 0], [3, 4, 0]] });
    expect(tools.measurements.restore).toHaveBeenCalledWith('length', [new Vector3(0, 0, 0), new Vector3(3, 4, 0)]);
    expect(await run('listMeasurements', {})).toEqual([made]);
    const moved = await run('updateMeasurement', { id: made.id, points: [[0, 0, 0], [0, 0, 2]] });
    expect(moved).toMatchObject({ id: made.id, value: 2, points: [[0, 0, 0], [0, 0, 2]] });
    await expect(run('updateMeasurement', { id: made.id, points: [[0, 0, 0]] })).rejects.toThrow('points: a length measurement needs 2 points, got 1');
    const area = await run('createMeasurement', { kind: 'area', points: [[0, 0, 0], [1, 0, 0], [1, 1, 0]] });
    await expect(run('updateMeasurement', { id: area.id, points: [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]] })).rejects.toThrow(/^points\[3\]: point 3 is/);
    expect(tools.measurements.setPoints).toHaveBeenCalledTimes(1);
    await expect(run('updateMeasurement', { id: 9999, points: [[0, 0, 0], [1, 0, 0]] })).rejects.toThrow('There is no measurement 9999.');
    expect(await run('removeMeasurement', { id: made.id })).toEqual({ ok: true });
    await expect(run('removeMeasurement', { id: made.id })).rejects.toThrow(`There is no measurement ${made.id}.`);
    expect(tools.measurementCount()).toBe(1);
  });

  it(`refuses a measurement past ${MAX_MEASUREMENTS} and a section plane past ${MAX_SECTION_PLANES}`, async () => {
    const { run, tools } = setup();
    for (let i = 0; i < MAX_MEASUREMENTS; i++) tools.measurements.restore('length', [new Vector3(), new Vector3(1, 0, 0)]);
    await expect(run('createMeasurement', { kind: 'length', points: [[0, 0, 0], [1, 0, 0]] })).rejects.toThrow(`There are ${MAX_MEASUREMENTS} measurements`);
    for (let i = 0; i < MAX_SECTION_PLANES; i++) await run('createSectionPlane', { point: [0, i, 0], normal: [0, 1, 0] });
    await expect(run('createSectionPlane', { point: [0, 0, 0], normal: [0, 1, 0] })).rejects.toThrow(`There are ${MAX_SECTION_PLANES} section planes`);
    expect(tools.planeCount()).toBe(MAX_SECTION_PLANES);
  });

  it('places, moves and removes section planes: the kept side is where the normal points', async () => {
    const { run, tools } = setup();
    const plane = await run('createSectionPlane', { point: [0, 2, 0], normal: [0, 10, 0] });
    expect(plane.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([0, 1, 0]);
    expect(plane.constant).toBeCloseTo(-2, 6);
    const [position, rotation] = tools.sections.place.mock.calls[0];
    expect(position.toArray()).toEqual([0, 2, 0]);
    expect(new Vector3(0, 0, 1).applyQuaternion(rotation).toArray().map((v) => Math.round(v * 1e6) / 1e6)).toEqual([0, 1, 0]);
    // Turned only: the point stays.
    const turned = await run('moveSectionPlane', { id: plane.id, normal: [1, 0, 0] });
    expect(turned.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([1, 0, 0]);
    expect(turned.constant).toBeCloseTo(0, 6);
    // Moved only: the normal stays.
    const moved = await run('moveSectionPlane', { id: plane.id, point: [3, 0, 0] });
    expect(moved.normal.map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([1, 0, 0]);
    expect(moved.constant).toBeCloseTo(-3, 6);
    expect(tools.sections.setPose).toHaveBeenCalledTimes(2);
    await expect(run('moveSectionPlane', { id: 4242, point: [0, 0, 0] })).rejects.toThrow('There is no section plane 4242.');
    expect(await run('removeSectionPlane', { id: plane.id })).toEqual({ ok: true });
    await expect(run('removeSectionPlane', { id: plane.id })).rejects.toThrow(`There is no section plane ${plane.id}.`);
  });

  it('setCamera refuses a pose without a direction before changing anything (the field of view too)', async () => {
    const { run, viewer } = setup();
    await expect(run('setCamera', { position: [1, 1, 1], target: [1, 1, 1], fov: 20 })).rejects.toThrow('position and target must differ');
    expect(viewer.navigation.perspectiveCamera.fov).toBe(45);
    expect((await run('setCamera', { fov: 30 })).fov).toBe(30);
  });

  it('gets one annotation by id', async () => {
    const { run } = setup();
    const made = await run('createAnnotation', { position: [1, 2, 3], title: 'Valve', eye: [5, 5, 5], target: [0, 0, 0] });
    expect(await run('getAnnotation', { id: made.id })).toEqual(made);
    await expect(run('getAnnotation', { id: 'nope' })).rejects.toThrow("There is no annotation 'nope'.");
  });

  it('keeps the present highlight when a highlight is refused', async () => {
    const { world, run, viewer } = setup();
    const { rec } = addModel(world);
    const node = new Object3D();
    rec.root.add(node);
    rec.nodes.set('n1', 7);
    rec.nodeIds.set(7, 'n1');
    world.objects[7] = node;
    const highlights = () => viewer.context.scene.children.filter((o) => o.name === 'host-api-highlight');
    await run('highlightObject', { modelId: 'm1', nodeId: 'n1' });
    expect(highlights()).toHaveLength(1);
    await expect(run('highlightObject', { modelId: 'm1', nodeId: 'nope' })).rejects.toThrow("Model 'm1' has no node 'nope'.");
    expect(highlights()).toHaveLength(1);
    await run('highlightObject', { nodeId: null });
    expect(highlights()).toHaveLength(0);
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
