import {
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  DoubleSide,
  InterleavedBuffer,
  InterleavedBufferAttribute,
  Mesh,
  MeshBasicMaterial,
  Raycaster,
  TorusKnotGeometry,
  Vector3,
  type Intersection,
} from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { copyRequest, createTreeBuilder } from '../../../src/viewer/bvh-builder';
import { answerBuildRequest, UNREADABLE_BUILD_ID, type BuildReply } from '../../../src/viewer/bvh-worker';

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** Nearest hits of the same random rays through three's raycast and through a tree: equal. */
function expectSameHits(geometry: BufferGeometry, bvh: MeshBVH, rays = 200, spread = 10): void {
  const material = new MeshBasicMaterial({ side: DoubleSide });
  const mesh = new Mesh(geometry, material);
  const raycaster = new Raycaster();
  const rnd = random(7);
  let hitCount = 0;
  for (let i = 0; i < rays; i++) {
    const origin = new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize().multiplyScalar(40);
    const target = new Vector3((rnd() - 0.5) * spread, (rnd() - 0.5) * spread, (rnd() - 0.5) * spread);
    raycaster.set(origin, target.sub(origin).normalize());
    const plain: Intersection[] = [];
    Mesh.prototype.raycast.call(mesh, raycaster, plain);
    const nearest = plain.reduce((d, h) => Math.min(d, h.distance), Infinity);
    const first = bvh.raycastFirst(raycaster.ray, material);
    if (nearest === Infinity) expect(first).toBeNull();
    else {
      hitCount++;
      expect(first!.distance).toBeCloseTo(nearest, 6);
    }
  }
  expect(hitCount).toBeGreaterThan(rays / 10);
}

describe('the tree worker (answerBuildRequest) and its requests', () => {
  it('builds an indirect tree from copies: the geometry keeps its arrays and its index order', () => {
    const geometry = new TorusKnotGeometry(5, 1.5, 200, 24);
    const position = geometry.getAttribute('position').array;
    const index = geometry.index!.array.slice();
    const request = copyRequest(geometry, 7);
    expect(request.position).not.toBe(position);
    expect(request.position.buffer).not.toBe((position as Float32Array).buffer);
    expect(request.index!.buffer).not.toBe(geometry.index!.array.buffer);
    const { reply, transfer } = answerBuildRequest(request);
    expect(reply.id).toBe(7);
    if ('error' in reply) throw new Error(reply.error);
    expect(reply.serialized.index).toBeNull();
    expect(reply.serialized.indirectBuffer).not.toBeNull();
    // The tree's own buffers travel back transferred; nothing of the caller's geometry does.
    expect(transfer.length).toBe(reply.serialized.roots.length + 1);
    const bvh = MeshBVH.deserialize(reply.serialized, geometry, { setIndex: false });
    expect(bvh.indirect).toBe(true);
    expect(geometry.index!.array).toEqual(index);
    expectSameHits(geometry, bvh);
  });

  it('reads quantized, normalized and interleaved positions through the attribute', () => {
    const box = new BoxGeometry(4, 4, 4, 3, 3, 3);
    const source = box.getAttribute('position');
    // Interleaved xyz + one padding float.
    const data = new Float32Array(source.count * 4);
    for (let i = 0; i < source.count; i++) data.set([source.getX(i), source.getY(i), source.getZ(i), 9], i * 4);
    const interleaved = new BufferGeometry();
    interleaved.setAttribute('position', new InterleavedBufferAttribute(new InterleavedBuffer(data, 4), 3, 0));
    interleaved.setIndex(box.index);
    // Normalized Int16 (KHR_mesh_quantization): values / 32767.
    const quantized = new BufferGeometry();
    const q = new Int16Array(source.count * 3);
    for (let i = 0; i < source.count * 3; i++) q[i] = Math.round(((source.array as Float32Array)[i] / 2) * 32767);
    quantized.setAttribute('position', new BufferAttribute(q, 3, true));
    quantized.setIndex(box.index);
    for (const geometry of [interleaved, quantized]) {
      const request = copyRequest(geometry, 1);
      const attribute = geometry.getAttribute('position');
      for (let i = 0; i < attribute.count; i++) {
        expect(request.position[i * 3]).toBeCloseTo(attribute.getX(i), 6);
        expect(request.position[i * 3 + 2]).toBeCloseTo(attribute.getZ(i), 6);
      }
      const { reply } = answerBuildRequest(request);
      if ('error' in reply) throw new Error(reply.error);
      expectSameHits(geometry, MeshBVH.deserialize(reply.serialized, geometry, { setIndex: false }), 60, 4);
    }
  });

  it('builds non-indexed geometries and keeps them non-indexed', () => {
    const geometry = new TorusKnotGeometry(5, 1.5, 60, 12).toNonIndexed();
    const { reply } = answerBuildRequest(copyRequest(geometry, 2));
    if ('error' in reply) throw new Error(reply.error);
    const bvh = MeshBVH.deserialize(reply.serialized, geometry, { setIndex: false });
    expect(geometry.index).toBeNull();
    expectSameHits(geometry, bvh);
  });

  it('answers a bad request with an error reply, never a throw', () => {
    expect(answerBuildRequest(null).reply).toEqual({ id: UNREADABLE_BUILD_ID, error: 'the request has no xyz positions' });
    const reply = answerBuildRequest({ id: 3, position: new Float32Array(9), index: [0, 1, 2], groups: [], drawRange: { start: 0, count: Infinity } }).reply;
    expect(reply).toEqual({ id: 3, error: 'the index is not a Uint16Array or Uint32Array' });
  });
});

// ---- the client against a stand-in Worker that runs the worker's code ----------------------

type Behaviour = 'answer' | 'crash' | 'unconstructible';

interface FakeState {
  posted: { transfer: Transferable[] }[];
  terminated: () => number;
  /** Most requests the worker held at once. */
  maxHeld: () => number;
}

function installFakeWorker(behaviour: Behaviour): FakeState {
  const posted: { transfer: Transferable[] }[] = [];
  let terminated = 0;
  let held = 0;
  let maxHeld = 0;
  class FakeWorker {
    onmessage: ((event: { data: BuildReply }) => void) | null = null;
    onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null;
    onmessageerror: (() => void) | null = null;
    constructor(url: URL, options: { type: string }) {
      if (behaviour === 'unconstructible') throw new Error('refused by the page policy');
      expect(String(url)).toMatch(/bvh-worker\.ts$/);
      expect(options.type).toBe('module');
    }
    postMessage(message: unknown, transfer: Transferable[]) {
      posted.push({ transfer });
      maxHeld = Math.max(maxHeld, ++held);
      setTimeout(() => {
        held--;
        if (behaviour === 'crash') this.onerror?.({ message: 'out of memory', preventDefault() {} });
        else this.onmessage?.({ data: answerBuildRequest(message).reply });
      }, 5);
    }
    terminate() {
      terminated++;
    }
  }
  vi.stubGlobal('Worker', FakeWorker);
  return { posted, terminated: () => terminated, maxHeld: () => maxHeld };
}

describe('createTreeBuilder', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('sends copies to the worker (transferring only the copies) and resolves with its tree', async () => {
    const fake = installFakeWorker('answer');
    const builder = createTreeBuilder();
    const geometry = new TorusKnotGeometry(5, 1.5, 100, 16);
    const version = (geometry.getAttribute('position') as BufferAttribute).version;
    const [a, b] = await Promise.all([builder.build(geometry), builder.build(new BoxGeometry(1, 1, 1))]);
    expect(fake.posted.length).toBe(2);
    const own = geometry.getAttribute('position').array as Float32Array;
    for (const { transfer } of fake.posted) {
      expect(transfer.length).toBe(2); // the copied positions and index
      expect(transfer).not.toContain(own.buffer);
    }
    expect(own.length).toBeGreaterThan(0); // not detached
    expect(a!.positionVersion).toBe(version);
    expectSameHits(geometry, MeshBVH.deserialize(a!.serialized, geometry, { setIndex: false }));
    expect(b!.serialized.roots.length).toBeGreaterThan(0);
    builder.dispose();
    expect(fake.terminated()).toBe(1);
  });

  it('holds at most two requests with the worker, copies each when it is sent, and skips unwanted ones', async () => {
    const fake = installFakeWorker('answer');
    const builder = createTreeBuilder();
    const geometries = Array.from({ length: 6 }, () => new TorusKnotGeometry(5, 1.5, 40, 8));
    let wanted = true;
    const builds = geometries.map((g, i) => builder.build(g, () => (i === 5 ? wanted : true)));
    wanted = false; // the last one's geometry is, say, disposed before its turn
    const trees = await Promise.all(builds);
    expect(fake.maxHeld()).toBeLessThanOrEqual(2);
    expect(fake.posted.length).toBe(5);
    expect(trees.slice(0, 5).every((t) => t !== null)).toBe(true);
    expect(trees[5]).toBeNull();
    builder.dispose();
    await expect(builder.build(geometries[0])).rejects.toThrow('disposed');
  });

  it('builds on the calling thread when the worker crashes or cannot start', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const behaviour of ['crash', 'unconstructible'] as const) {
      installFakeWorker(behaviour);
      const builder = createTreeBuilder();
      const geometry = new TorusKnotGeometry(5, 1.5, 60, 12);
      const built = await builder.build(geometry);
      expectSameHits(geometry, MeshBVH.deserialize(built!.serialized, geometry, { setIndex: false }));
      builder.dispose();
    }
    expect(warn).toHaveBeenCalledTimes(1); // the crash is reported; a refused worker is simply not used
  });
});

describe('the picker with the worker path', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('gets large meshes\' trees from the worker, and drops a tree whose geometry was disposed meanwhile', async () => {
    const fake = installFakeWorker('answer');
    const { createViewerWorld } = await import('../../../src/engine/world');
    const { createPicker } = await import('../../../src/viewer/picking');
    const { PerspectiveCamera, Scene, Group } = await import('three');
    const world = createViewerWorld();
    const scene = new Scene();
    const camera = new PerspectiveCamera(45, 1, 0.1, 2000);
    camera.position.set(0, 0, 30);
    camera.updateMatrixWorld();
    world.render.scene = scene;
    world.render.camera = camera;
    const picker = createPicker({ world, useWorker: true, workerMinTriangles: 1000 });
    const big = new Mesh(new TorusKnotGeometry(5, 1.5, 100, 16), new MeshBasicMaterial()); // 3200 triangles
    const small = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    const doomed = new Mesh(new TorusKnotGeometry(5, 1.5, 100, 16), new MeshBasicMaterial());
    const root = new Group();
    root.add(big, small, doomed);
    const prepared = picker.prepare([root]);
    doomed.geometry.dispose();
    await prepared;
    // The big knot only: the box was built inline, the disposed knot never copied nor sent.
    expect(fake.posted.length).toBe(1);
    expect(picker.treeOf(big)).not.toBeNull();
    expect(picker.treeOf(small)).not.toBeNull();
    expect(picker.treeOf(doomed)).toBeNull();
    picker.dispose();
  });
});
