import { Document, type Node } from '@gltf-transform/core';
import type { InstancedMesh } from '@gltf-transform/extensions';
import { describe, expect, it } from 'vitest';
import { optimizeModel } from '../../../src/server/upload/optimize.ts';
import { stampStableIds } from '../../../src/server/upload/stable-ids.ts';
import { glbJson } from '../helpers.ts';
import { readGlb } from '../upload-helpers.ts';
import { extras, model, type JsonNode } from './corpus.ts';

describe('stampStableIds', () => {
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

});

describe('stampStableIds on a document', () => {
  it('stamps the index of every node and material that has no id, and keeps ids already there', () => {
    const doc = new Document();
    const a = doc.createNode('a');
    const b = doc.createNode('b').setExtras({ nodeId: 'kept', other: 1 });
    const c = doc.createNode('c').setExtras({ nodeId: '' });
    const m = doc.createMaterial('m');
    expect(stampStableIds(doc)).toEqual({ nodes: 2, materials: 1 });
    expect([a, b, c].map((n) => n.getExtras())).toEqual([{ nodeId: '0' }, { nodeId: 'kept', other: 1 }, { nodeId: '2' }]);
    expect(m.getExtras()).toEqual({ materialId: '0' });
    expect(stampStableIds(doc)).toEqual({ nodes: 0, materials: 0 });
  });
});
