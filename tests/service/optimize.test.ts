import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node } from '@gltf-transform/core';
import type { InstancedMesh } from '@gltf-transform/extensions';
import { describe, expect, it } from 'vitest';
import { optimizeModel, refuses, validateModel } from '../../src/server/optimize.ts';
import { glbJson, MODELS_DIR } from './helpers.ts';
import { decompressedGlb, readGlb } from './upload-helpers.ts';

async function model(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(MODELS_DIR, name)));
}

type JsonNode = { name?: string; mesh?: number; translation?: number[]; rotation?: number[]; scale?: number[]; children?: number[]; extras?: Record<string, unknown> };

function extras(node: Node): Record<string, unknown> {
  return (node.getExtras() ?? {}) as Record<string, unknown>;
}

describe('validateModel (Khronos glTF-Validator)', () => {
  it('accepts a valid model and reports what the validator found', async () => {
    const report = await validateModel(await model('Duck.glb'), { fileName: 'Duck.glb' });
    expect(report.validatorVersion).toMatch(/^2\./);
    expect(report.errors).toBe(0);
    expect(refuses(report)).toBe(false);
  });

  it('refuses a file that is not glTF with the validator messages (severity, code, message, pointer)', async () => {
    const report = await validateModel(new TextEncoder().encode('just some notes'), { fileName: 'notes.txt' });
    expect(refuses(report)).toBe(true);
    expect(report.messages[0]).toMatchObject({ severity: 'error', code: 'GLB_INVALID_MAGIC' });
    expect(typeof report.messages[0].message).toBe('string');
    const json = await validateModel(new TextEncoder().encode('{"asset": 12'), { fileName: 'broken.gltf' });
    expect(json.messages[0]).toMatchObject({ severity: 'error', code: 'INVALID_JSON' });
  });

  it('marks the errors the optimisation repairs, and does not refuse for them', async () => {
    const report = await validateModel(await model('pbr_next_sphere.glb'), { fileName: 'pbr_next_sphere.glb' });
    expect(report.errors).toBe(14);
    expect(report.repaired).toBe(14);
    expect(refuses(report)).toBe(false);
    expect(report.messages.filter((m) => m.severity === 'error').every((m) => m.repaired)).toBe(true);
  });

  it('refuses every file of the malformed corpus that the validator finds errors in, with its codes', async () => {
    for (const folder of ['glb', 'buffer']) {
      const dir = join(MODELS_DIR, 'malformed', folder);
      for (const name of (await readdir(dir)).filter((n) => n.endsWith('.glb'))) {
        const expected = JSON.parse(await readFile(join(dir, `${name}.report.json`), 'utf8')) as { issues: { numErrors: number; messages: { code: string; severity: number }[] } };
        const report = await validateModel(await model(join('malformed', folder, name)), { fileName: name });
        const errorCodes = (r: { messages: { code: string; severity: unknown }[] }, error: unknown) => [...new Set(r.messages.filter((m) => m.severity === error).map((m) => m.code))].sort();
        expect({ name, refused: refuses(report) }).toEqual({ name, refused: expected.issues.numErrors > 0 });
        expect({ name, codes: errorCodes(report, 'error') }).toEqual({ name, codes: errorCodes(expected.issues, 0) });
      }
    }
  });
});

describe('optimizeModel', () => {
  it('stamps stable node and material ids from the original indices, kept through instancing', async () => {
    const input = await model('2CylinderEngine.glb');
    const original = glbJson(input) as { nodes: JsonNode[]; materials: { name?: string }[] };
    const { glb, summary } = await optimizeModel(input, { fileName: '2CylinderEngine.glb' });
    const doc = await readGlb(glb);
    const sourceNodes = (await readGlb(input)).getRoot().listNodes();

    // Every original node is either a node with its index as nodeId, or an instance of an instanced node.
    const seen = new Map<string, { node: Node; instance?: number }>();
    for (const node of doc.getRoot().listNodes()) {
      const e = extras(node);
      expect(typeof e.nodeId).toBe('string');
      if (Array.isArray(e.instanceNodeIds)) {
        (e.instanceNodeIds as string[]).forEach((id, i) => seen.set(id, { node, instance: i }));
      } else {
        seen.set(e.nodeId as string, { node });
      }
    }
    expect([...seen.keys()].sort()).toEqual(original.nodes.map((_, i) => String(i)).sort());
    for (const [id, { node, instance }] of seen) {
      const source = original.nodes[Number(id)];
      if (instance === undefined) {
        expect(node.getName()).toBe(source.name ?? '');
        node.getTranslation().forEach((v, k) => expect(v).toBeCloseTo(sourceNodes[Number(id)].getTranslation()[k], 6));
      } else {
        // The instance's row holds the source node's local transform.
        const batch = node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')!;
        const translation = batch.getAttribute('TRANSLATION');
        const t = translation ? translation.getElement(instance, [0, 0, 0]) : [0, 0, 0];
        const expected = sourceNodes[Number(id)].getTranslation();
        t.forEach((v, k) => expect(v).toBeCloseTo(expected[k], 5));
        expect(((extras(node).instanceNames as string[] | undefined) ?? [])[instance] ?? '').toBe(source.name ?? '');
      }
    }

    const materialIds = doc.getRoot().listMaterials().map((m) => [(m.getExtras() as Record<string, unknown>).materialId, m.getName()]);
    for (const [id, name] of materialIds) expect(name).toBe(original.materials[Number(id)].name ?? '');
    expect(new Set(materialIds.map(([id]) => id)).size).toBe(materialIds.length);
    expect(summary.nodesBefore).toBe(original.nodes.length);
  });

  it("turns 2CylinderEngine's repeated sibling meshes into EXT_mesh_gpu_instancing under the same parent", async () => {
    const input = await model('2CylinderEngine.glb');
    const original = glbJson(input) as { nodes: JsonNode[] };
    const { glb, summary } = await optimizeModel(input);
    expect(summary.instancedNodes).toBeGreaterThanOrEqual(2);
    expect(summary.instances).toBeGreaterThanOrEqual(20);
    expect(summary.nodesAfter).toBe(summary.nodesBefore - summary.instances + summary.instancedNodes);

    const doc = await readGlb(glb);
    const instanced = doc.getRoot().listNodes().filter((n) => n.getExtension('EXT_mesh_gpu_instancing'));
    expect(instanced).toHaveLength(summary.instancedNodes);
    const parentIndex = new Map<number, number>();
    original.nodes.forEach((n, i) => (n.children ?? []).forEach((c) => parentIndex.set(c, i)));
    for (const node of instanced) {
      const ids = extras(node).instanceNodeIds as string[];
      expect(ids.length).toBeGreaterThanOrEqual(5);
      // All sources had the same parent and mesh, and the instanced node sits under that parent.
      const parents = new Set(ids.map((id) => parentIndex.get(Number(id))));
      expect(parents.size).toBe(1);
      expect(new Set(ids.map((id) => original.nodes[Number(id)].mesh)).size).toBe(1);
      const parentId = String([...parents][0]);
      expect(extras(node.getParentNode()!).nodeId).toBe(parentId);
      expect(extras(node).nodeId).toBe(`instances:${ids[0]}`);
    }
    expect(glbJson(glb).extensionsUsed).toEqual(expect.arrayContaining(['EXT_mesh_gpu_instancing', 'EXT_meshopt_compression', 'KHR_mesh_quantization']));
  });

  it('keeps ids already stamped (an optimised model optimised again is unchanged in its ids)', async () => {
    const once = await optimizeModel(await model('2CylinderEngine.glb'));
    const twice = await optimizeModel(await decompressedGlb(once.glb));
    const ids = async (glb: Uint8Array) => (await readGlb(glb)).getRoot().listNodes().map((n) => extras(n).nodeId).sort();
    expect(await ids(twice.glb)).toEqual(await ids(once.glb));
    expect(twice.summary.instancedNodes).toBe(0);
  });

  it('leaves node transforms and animated nodes alone (no quantization offsets in node transforms)', async () => {
    for (const name of ['BoxAnimated.glb', 'InterpolationTest.glb', 'Duck.glb']) {
      const input = await model(name);
      const original = (await readGlb(input)).getRoot().listNodes();
      const doc = await readGlb((await optimizeModel(input)).glb);
      const nodes = doc.getRoot().listNodes();
      expect({ name, count: nodes.length }).toEqual({ name, count: original.length });
      for (const node of nodes) {
        const source = original[Number(extras(node).nodeId)];
        const close = (a: number[], b: number[]) => a.forEach((v, k) => expect(v).toBeCloseTo(b[k], 6));
        close(node.getScale(), source.getScale());
        close(node.getTranslation(), source.getTranslation());
        close(node.getRotation(), source.getRotation());
      }
    }
  });

  it('re-encodes Draco and meshopt inputs with meshopt and keeps KTX2 textures', async () => {
    const draco = glbJson((await optimizeModel(await model('Box-draco.glb'))).glb);
    expect(draco.extensionsUsed).not.toContain('KHR_draco_mesh_compression');
    expect(draco.extensionsUsed).toContain('EXT_meshopt_compression');
    const facecap = glbJson((await optimizeModel(await model('facecap.glb'))).glb);
    expect(facecap.extensionsUsed).toEqual(expect.arrayContaining(['KHR_texture_basisu', 'EXT_meshopt_compression']));
  });

  it('repairs the validator errors it claims to: the output of every such corpus model has none', async () => {
    for (const name of ['pbr_next_sphere.glb', 'sphere_lights.glb', 'ClearCoatTest.glb', 'BrainStem-draco.glb', 'Soldier.glb']) {
      const input = await model(name);
      const before = await validateModel(input, { fileName: name });
      expect({ name, refused: refuses(before), repaired: before.repaired > 0 }).toEqual({ name, refused: false, repaired: true });
      const { glb, summary } = await optimizeModel(input, { inputReport: before, fileName: name });
      expect(summary.repairs.length).toBeGreaterThan(0);
      const after = await validateModel(await decompressedGlb(glb), { fileName: name, repairs: false });
      expect({ name, errors: after.errors, first: after.messages[0]?.code }).toEqual({ name, errors: 0, first: after.messages[0]?.code });
    }
  });
});
