import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeIO, getBounds } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { DEMO_SCENE_ID, DEMO_SCENE_NAME, box, buildDemoModel, cylinder, ensureDemoScene, sphere, type Geometry } from '../../src/server/demo.ts';
import { startServer, type TestServer } from './helpers.ts';

/** Counts triangles whose winding disagrees with their vertex normals, and degenerate ones. */
function windingProblems(g: Geometry): number {
  let problems = 0;
  const p = (i: number) => [g.positions[i * 3], g.positions[i * 3 + 1], g.positions[i * 3 + 2]];
  for (let t = 0; t < g.indices.length; t += 3) {
    const [a, b, c] = [g.indices[t], g.indices[t + 1], g.indices[t + 2]];
    const [A, B, C] = [p(a), p(b), p(c)];
    const u = [B[0] - A[0], B[1] - A[1], B[2] - A[2]];
    const v = [C[0] - A[0], C[1] - A[1], C[2] - A[2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const vn = [0, 1, 2].map((k) => g.normals[a * 3 + k] + g.normals[b * 3 + k] + g.normals[c * 3 + k]);
    if (Math.hypot(...n) < 1e-12 || n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] <= 0) problems++;
  }
  return problems;
}

describe('demo geometry builders', () => {
  it('wind every triangle counter-clockwise seen from outside, with unit normals and UVs', () => {
    const shapes: Geometry[] = [
      box([1, 2, 3], [1, 0, -1]),
      cylinder({ radius: 0.5, height: 2, axis: 'x' }),
      cylinder({ radius: 0.5, height: 2, axis: 'y', segments: 6 }),
      cylinder({ radius: 0.5, height: 2, axis: 'z', capped: false }),
      sphere(1, [0, 1, 0]),
    ];
    for (const g of shapes) {
      expect(windingProblems(g)).toBe(0);
      const vertices = g.positions.length / 3;
      expect(g.normals.length).toBe(vertices * 3);
      expect(g.uvs.length).toBe(vertices * 2);
      for (let i = 0; i < vertices; i++) expect(Math.hypot(g.normals[i * 3], g.normals[i * 3 + 1], g.normals[i * 3 + 2])).toBeCloseTo(1, 5);
      expect(Math.max(...g.indices)).toBeLessThan(vertices);
    }
  });
});

describe('demo scene', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('is generated once, served, and is a machine with materials, meshes and animations', async () => {
    const first = await ensureDemoScene(server.store);
    expect(first.created).toBe(true);
    expect(first.scene).toMatchObject({ _id: DEMO_SCENE_ID, name: DEMO_SCENE_NAME });
    expect(first.scene.models).toHaveLength(1);
    const second = await ensureDemoScene(server.store);
    expect(second.created).toBe(false);
    expect(second.scene).toEqual(first.scene);
    // One model, one container: the second call wrote nothing.
    expect(await readdir(join(server.dataDir, 'derivatives'))).toHaveLength(1);

    const scene = await (await fetch(`${server.url}/v1/scenes/demo`)).json();
    expect(scene.name).toBe('Demo machine');
    const model = scene.models[0];
    expect(model.sourceFileName).toBe('demo-machine.glb');
    const res = await fetch(`${server.url}/cdn/derivatives/${model.latestVersionKey}/model_file.binz`);
    expect(res.status).toBe(200);
    const { asset, format } = await decodeContainer(new Uint8Array(await res.arrayBuffer()));
    expect(format).toBe('glb');

    const doc = await new NodeIO().readBinary(asset);
    const root = doc.getRoot();
    expect(root.listMaterials().length).toBeGreaterThanOrEqual(4);
    const materials = root.listMaterials();
    expect(materials.some((m) => m.getMetallicFactor() === 1)).toBe(true);
    expect(materials.some((m) => m.getAlphaMode() === 'BLEND' && m.getAlpha() < 0.5)).toBe(true);
    expect(materials.some((m) => m.getRoughnessFactor() > 0.85)).toBe(true);
    expect(root.listMeshes().length).toBeGreaterThan(10);
    for (const mesh of root.listMeshes()) {
      for (const prim of mesh.listPrimitives()) {
        expect(prim.getAttribute('POSITION')).toBeTruthy();
        expect(prim.getAttribute('NORMAL')).toBeTruthy();
        expect(prim.getAttribute('TEXCOORD_0')).toBeTruthy();
        expect(prim.getIndices()).toBeTruthy();
        expect(prim.getMaterial()).toBeTruthy();
      }
    }
    const names = root.listNodes().map((n) => n.getName());
    for (const name of ['Base plate', 'Motor', 'Rotor', 'Fan', 'Pump casing', 'Pressure gauge', 'Gauge needle']) expect(names).toContain(name);
    expect(names.every((n) => n.length > 0)).toBe(true);

    const animations = root.listAnimations();
    expect(animations.map((a) => a.getName())).toEqual(['Spin', 'Gauge']);
    const spin = animations[0];
    const channel = spin.listChannels()[0];
    expect(channel.getTargetPath()).toBe('rotation');
    expect(channel.getTargetNode()?.getName()).toBe('Rotor');
    expect(channel.getSampler()?.getInterpolation()).toBe('LINEAR');
    const times = Array.from(channel.getSampler()?.getInput()?.getArray() ?? []);
    expect(times[0]).toBe(0);
    // Loops seamlessly: the last key is a full turn (the same orientation as the first).
    const output = channel.getSampler()?.getOutput()?.getArray() ?? [];
    const last = Array.from(output.slice(-4));
    const firstKey = Array.from(output.slice(0, 4));
    expect(Math.abs(last.reduce((s, v, i) => s + v * firstKey[i], 0))).toBeCloseTo(1, 5);

    // Metres: about 3 m across, standing on y = 0.
    const { min, max } = getBounds(root.listScenes()[0]);
    const size = max.map((v, i) => v - min[i]);
    expect(Math.max(...size)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...size)).toBeLessThanOrEqual(4);
    expect(min[1]).toBeCloseTo(0, 5);
  });

  it('builds the same bytes every time', async () => {
    const a = await buildDemoModel();
    const b = await buildDemoModel();
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
  });
});
