import { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { instanceSiblings } from '../../../src/server/upload/instancing.ts';
import { optimizeModel } from '../../../src/server/upload/optimize.ts';
import { glbJson } from '../helpers.ts';
import { readGlb } from '../upload-helpers.ts';
import { extras, model, type JsonNode } from './corpus.ts';

describe('instanceSiblings', () => {
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

});

describe('instanceSiblings on a document', () => {
  it('merges at least `min` sibling leaves drawing one mesh, keeping their ids and names; leaves fewer, animated or parent nodes alone', () => {
    const doc = new Document();
    const mesh = doc.createMesh('bolt');
    const scene = doc.createScene();
    const bolts = Array.from({ length: 6 }, (_, i) => doc.createNode(`bolt ${i}`).setMesh(mesh).setTranslation([i, 0, 0]).setExtras({ nodeId: String(i) }));
    bolts.forEach((bolt) => scene.addChild(bolt));
    const parent = doc.createNode('parent').setMesh(mesh).setExtras({ nodeId: 'p' }).addChild(doc.createNode('child').setExtras({ nodeId: 'c' }));
    scene.addChild(parent);
    const few = doc.createNode('group').setExtras({ nodeId: 'g' });
    for (let i = 0; i < 4; i++) few.addChild(doc.createNode(`nut ${i}`).setMesh(mesh).setExtras({ nodeId: `n${i}` }));
    scene.addChild(few);

    expect(instanceSiblings(doc, 5)).toEqual({ batches: 1, instances: 6 });
    const batch = scene.listChildren().find((n) => n.getExtension('EXT_mesh_gpu_instancing'))!;
    expect(batch.getExtras()).toEqual({ nodeId: 'instances:0', instanceNodeIds: ['0', '1', '2', '3', '4', '5'], instanceNames: bolts.map((_, i) => `bolt ${i}`) });
    expect(scene.listChildren()).toContain(parent);
    expect(few.listChildren()).toHaveLength(4);
  });
});
