import type { InstancedMesh } from '@gltf-transform/extensions';
import { describe, expect, it } from 'vitest';
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
