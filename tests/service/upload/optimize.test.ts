import { describe, expect, it } from 'vitest';
import { optimizeModel } from '../../../src/server/upload/optimize.ts';
import { refuses, validateModel } from '../../../src/server/upload/validate.ts';
import { glbJson } from '../helpers.ts';
import { decompressedGlb, readGlb } from '../upload-helpers.ts';
import { extras, model } from './corpus.ts';

describe('optimizeModel', () => {
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
