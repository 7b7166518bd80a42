import { Document, NodeIO } from '@gltf-transform/core';
import { expect, test } from '@playwright/test';
import { BoxGeometry, TorusKnotGeometry, type BufferGeometry } from 'three';
import { settled, storeRawModel } from './helpers';

/**
 * Picking in the real viewer (Chromium, the built app): the large mesh's tree comes from the
 * bundled worker, picks name the node, material and model, snapping finds a vertex, the background
 * is a miss. One scene load for the file.
 */

const SCENE = 'picking-knot-and-cube';
/** Above WORKER_MIN_TRIANGLES (20,000): its tree is built in the worker. */
const KNOT = { tubular: 300, radial: 40 };

function addMesh(doc: Document, name: string, nodeId: string, geometry: BufferGeometry, materialName: string, x: number) {
  const buffer = doc.getRoot().listBuffers()[0];
  const position = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array(geometry.getAttribute('position').array))
    .setBuffer(buffer);
  const normal = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array(geometry.getAttribute('normal').array))
    .setBuffer(buffer);
  const indices = doc
    .createAccessor()
    .setType('SCALAR')
    .setArray(new Uint32Array(geometry.index!.array))
    .setBuffer(buffer);
  const material = doc.createMaterial(materialName).setBaseColorFactor([0.8, 0.3, 0.2, 1]);
  const primitive = doc.createPrimitive().setAttribute('POSITION', position).setAttribute('NORMAL', normal).setIndices(indices).setMaterial(material);
  const mesh = doc.createMesh(name).addPrimitive(primitive);
  return doc.createNode(name).setMesh(mesh).setTranslation([x, 0, 0]).setExtras({ nodeId });
}

async function knotAndCube(): Promise<Uint8Array> {
  const doc = new Document();
  doc.createBuffer();
  const knot = addMesh(doc, 'Knot', 'knot-node', new TorusKnotGeometry(2, 0.6, KNOT.tubular, KNOT.radial), 'Copper', -4);
  const cube = addMesh(doc, 'Cube', 'cube-node', new BoxGeometry(2, 2, 2), 'Red paint', 4);
  doc.createScene('Scene').addChild(knot).addChild(cube);
  return new NodeIO().writeBinary(doc);
}

test('picks name the node, material and model; the large mesh\'s tree comes from the worker; snapping finds a vertex', async ({ page }) => {
  await storeRawModel(SCENE, 'picking-model', await knotAndCube());
  const workers: string[] = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  await page.goto(`/embed/${SCENE}?quality=low`);
  expect(await settled(page)).toBe('ready');

  // Both trees are built in the background after the first frame.
  await page.waitForFunction(
    () => {
      const viewer = (window as any).__viewer.viewer;
      const knot = viewer.world.objects.find((o: any) => o?.name === 'Knot');
      const cube = viewer.world.objects.find((o: any) => o?.name === 'Cube');
      return !!(knot && cube && viewer.picker.treeOf(knot) && viewer.picker.treeOf(cube));
    },
    undefined,
    { timeout: 30_000, polling: 100 },
  );
  expect(workers.some((url) => /bvh-worker/.test(url))).toBe(true);

  const result = await page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const camera = viewer.world.render.camera;
    const canvas = viewer.context.renderer.domElement as HTMLCanvasElement;
    const rect = canvas.getBoundingClientRect();
    const knot = viewer.world.objects.find((o: any) => o?.name === 'Knot');
    const toClient = (x: number, y: number, z: number) => {
      const p = camera.position.clone().set(x, y, z).project(camera);
      return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
    };
    const plain = (h: any) =>
      h && {
        point: h.point.toArray(),
        normalTowardsCamera: h.normal.dot(camera.position.clone().sub(h.point).normalize()),
        normalLength: h.normal.length(),
        modelId: h.modelId,
        nodeId: h.nodeId,
        nodeName: h.nodeName,
        materialName: h.material?.name ?? null,
        materialId: h.materialId,
        instanceId: h.instanceId,
      };
    const cubeAt = toClient(4, 0, 0);
    const cube = viewer.picker.pickAtClient(cubeAt.x, cubeAt.y);
    // A vertex of the knot that faces the camera: the pick lands on the knot, at most at that vertex.
    const positions = knot.geometry.getAttribute('position');
    const vertex = camera.position.clone();
    let chosen = null as null | number[];
    for (let i = 0; i < positions.count && !chosen; i += 97) {
      vertex.fromBufferAttribute(positions, i).applyMatrix4(knot.matrixWorld);
      const hit = viewer.picker.pick(vertex.clone().project(camera).x, vertex.clone().project(camera).y);
      if (hit && hit.nodeId === 'knot-node' && hit.point.distanceTo(vertex) < 1e-3) chosen = vertex.toArray();
    }
    const knotAt = chosen ? toClient(chosen[0], chosen[1], chosen[2]) : null;
    const knotHit = knotAt ? viewer.picker.pickAtClient(knotAt.x, knotAt.y) : null;
    const snapped = knotHit ? viewer.picker.snapToVertex(knotHit, camera.position.clone()) : null;
    return {
      cube: plain(cube),
      knot: plain(knotHit),
      chosen,
      snapped: snapped ? snapped.toArray() : null,
      background: viewer.picker.pickAtClient(rect.left + 3, rect.top + 3),
      // glTF-Transform writes interleaved vertices: the worker read them through the attribute.
      interleaved: positions.isInterleavedBufferAttribute === true,
      positionsIntact: positions.array.length >= positions.count * 3,
    };
  });

  expect(result.cube).toMatchObject({ modelId: 'picking-model', nodeId: 'cube-node', nodeName: 'Cube', materialName: 'Red paint', instanceId: null });
  expect(result.cube.materialId).not.toBeNull();
  // On the cube's surface (|coordinate - centre| = 1 on one axis), the normal unit and facing the camera.
  const [x, y, z] = result.cube.point;
  expect(Math.max(Math.abs(x - 4), Math.abs(y), Math.abs(z))).toBeCloseTo(1, 4);
  expect(result.cube.normalLength).toBeCloseTo(1, 5);
  expect(result.cube.normalTowardsCamera).toBeGreaterThan(0);

  expect(result.chosen).not.toBeNull();
  expect(result.knot).toMatchObject({ nodeId: 'knot-node', nodeName: 'Knot', materialName: 'Copper' });
  // Snapping from a point on a vertex finds that vertex (or one as near, within float error).
  expect(result.snapped).not.toBeNull();
  const snapped = result.snapped as number[];
  const chosen = result.chosen as number[];
  const d = Math.hypot(...snapped.map((v: number, i: number) => v - chosen[i]));
  expect(d).toBeLessThan(0.01);
  expect(result.background).toBeNull();
  // The worker worked on copies: the geometry drawn and picked kept its arrays.
  expect(result.positionsIntact).toBe(true);
  expect(result.interleaved).toBe(true);
});
