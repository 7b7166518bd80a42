import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { WAREHOUSE_SCENE_ID, buildWarehouseModel, createWarehouseDocument, ensureWarehouseScene } from '../../src/server/demo-warehouse.ts';
import { validateModel } from '../../src/server/upload/validate.ts';
import { glbJson } from './helpers.ts';
import { decompressedGlb, readGlb, startUploadServer, type UploadServer } from './upload-helpers.ts';

describe('the warehouse demo', () => {
  it('has at least 10,000 instances of at least 5 assets, several lights and an animated forklift', () => {
    const { doc, stats } = createWarehouseDocument();
    expect(stats.instances).toBeGreaterThanOrEqual(10_000);
    expect(Object.keys(stats.assets).length).toBeGreaterThanOrEqual(5);
    expect(stats.lights).toBeGreaterThanOrEqual(3);
    const root = doc.getRoot();
    const batches = root.listNodes().filter((n) => n.getExtension('EXT_mesh_gpu_instancing'));
    expect(batches).toHaveLength(Object.keys(stats.assets).length);
    const animations = root.listAnimations().map((a) => a.getName());
    expect(animations).toEqual(expect.arrayContaining(['Forklift patrol', 'Fork lift']));
    const targets = root.listAnimations().flatMap((a) => a.listChannels().map((c) => c.getTargetNode()?.getName()));
    expect(targets).toEqual(expect.arrayContaining(['Forklift', 'Fork carriage']));
  });

  it('is a valid glTF, the same bytes every time', async () => {
    const glb = await buildWarehouseModel();
    expect(Buffer.compare(Buffer.from(glb), Buffer.from(await buildWarehouseModel()))).toBe(0);
    const report = await validateModel(glb, { fileName: 'demo-warehouse.glb' });
    expect({ errors: report.errors, warnings: report.warnings }).toEqual({ errors: 0, warnings: 0 });
  });

  describe('seeded into a fresh DATA_DIR', () => {
    let server: UploadServer;
    beforeAll(async () => {
      server = await startUploadServer();
    });
    afterAll(() => server.close());

    it('is created once, optimised, served, and keeps its instancing and lights', async () => {
      const first = await ensureWarehouseScene(server.store);
      expect(first.created).toBe(true);
      expect((await ensureWarehouseScene(server.store)).created).toBe(false);
      const scene = await (await fetch(`${server.url}/v1/scenes/${WAREHOUSE_SCENE_ID}`)).json();
      expect(scene.name).toBe('Demo warehouse');
      const res = await fetch(`${server.url}/cdn/derivatives/${scene.models[0].latestVersionKey}/model_file.binz`);
      expect(res.status).toBe(200);
      const { asset } = await decodeContainer(new Uint8Array(await res.arrayBuffer()));
      const json = glbJson(asset);
      expect(json.extensionsUsed).toEqual(expect.arrayContaining(['EXT_mesh_gpu_instancing', 'KHR_lights_punctual', 'EXT_meshopt_compression']));
      const doc = await readGlb(asset);
      let instances = 0;
      for (const node of doc.getRoot().listNodes()) {
        const batch = node.getExtension<import('@gltf-transform/extensions').InstancedMesh>('EXT_mesh_gpu_instancing');
        if (batch) instances += batch.getAttribute('TRANSLATION')!.getCount();
        expect(typeof (node.getExtras() as { nodeId?: unknown }).nodeId).toBe('string');
      }
      expect(instances).toBeGreaterThanOrEqual(10_000);
      const report = await validateModel(await decompressedGlb(asset), { fileName: 'demo-warehouse.glb', repairs: false });
      expect(report.errors).toBe(0);
    });
  });
});
