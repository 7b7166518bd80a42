import { MeshStandardMaterial, Object3D, Texture, Vector3, type Quaternion } from 'three';
import { vi } from 'vitest';
import type { HostApi } from '../../../src/api/host-api';
import { drainMessages } from '../../../src/engine/messages';
import { createViewerWorld, type ModelRecord } from '../../../src/engine/world';
import type { HostFunctionName } from '../../../src/protocol/host-api';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import type { Viewer } from '../../../src/viewer/viewer';
import { createViewerApi } from '../../../src/viewer/viewer-api';

// The host API's tests (tests/unit/viewer/viewer-api*.test.ts) share this stand-in viewer. Each
// test file mocks src/viewer/tools/labels itself (the pins' DOM layer is a browser matter).

type World = ReturnType<typeof createViewerWorld>;

/** The tools' measurements and section planes, as far as the API uses them. */
export function fakeTools(world: World) {
  let next = 100;
  const measurements = new Map<number, { kind: 'length' | 'area' | 'angle'; points: Vector3[] }>();
  const planes = new Map<number, { position: Vector3; rotation: Quaternion }>();
  const value = (m: { kind: string; points: Vector3[] }) => (m.kind === 'length' ? m.points[0].distanceTo(m.points[1]) : 0);
  const write = (id: number, points: Vector3[]) => world.measurementPoints.set(id, new Float32Array(points.flatMap((p) => p.toArray())) as never);
  let active: string | null = null;
  return {
    get active() {
      return active;
    },
    activate: vi.fn((tool: string) => (active = tool)),
    deactivate: vi.fn(() => (active = null)),
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
export function addModel(world: World) {
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

/** Writes the view pose at rest, as the navigation does. */
export function writePose(world: World, position: Vector3, target: Vector3): void {
  const view = world.view;
  view.position.copy(position);
  view.positionEnd.copy(position);
  view.target.copy(target);
  view.targetEnd.copy(target);
  view.version++;
}

/**
 * A viewer API on a stand-in viewer: the view pose at (1, 2, 3) looking at the origin; the
 * navigation's setLookAt records the move and writes the pose's end at once, as the real one does
 * (the move itself ends in a later frame).
 */
export function setup(extra: Partial<Parameters<typeof createViewerApi>[0]> = {}) {
  const world = createViewerWorld();
  const events = new Emitter<ViewerEventMap>();
  let speed = 1;
  const tools = fakeTools(world);
  writePose(world, new Vector3(1, 2, 3), new Vector3(0, 0, 0));
  const lookAts: { position: number[]; target: number[]; transition: boolean }[] = [];
  const viewer = {
    world,
    events,
    tools,
    navigation: {
      perspectiveCamera: { fov: 45, near: 0.1, far: 1000, updateProjectionMatrix() {} },
      state: () => ({ mode: 'Orbit', projection: 'Perspective', cameraConfig: 'simple' }),
      setLookAt: (px: number, py: number, pz: number, tx: number, ty: number, tz: number, transition = false) => {
        lookAts.push({ position: [px, py, pz], target: [tx, ty, tz], transition });
        world.view.positionEnd.set(px, py, pz);
        world.view.targetEnd.set(tx, ty, tz);
        world.view.version++;
        return Promise.resolve();
      },
    },
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
  return { world, events, va, emitted, speed: () => speed, tools, run, viewer, lookAts };
}
