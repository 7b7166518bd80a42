import { Matrix4, Quaternion, Vector3 } from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { FLOATS_PER_INSTANCE, unpackMatrix } from '../../src/protocol/instances.ts';
import { decodeInstanceSet } from '../../src/protocol/instance-set.ts';
import {
  LEGACY_WAREHOUSE_FILE_NAME,
  WAREHOUSE_ASSETS,
  WAREHOUSE_FILE_NAME,
  WAREHOUSE_SCENE_ID,
  buildWarehouseModel,
  buildWarehouseReferenceModel,
  createWarehouseAssets,
  createWarehouseDocument,
  ensureWarehouseScene,
  placementsToSet,
  warehouseGroupId,
  warehouseLayout,
} from '../../src/server/demo-warehouse.ts';
import { importModel } from '../../src/server/import.ts';
import { createInstanceService } from '../../src/server/instances.ts';
import { validateModel } from '../../src/server/upload/validate.ts';
import { glbJson } from './helpers.ts';
import { decompressedGlb, readGlb, startUploadServer, type UploadServer } from './upload-helpers.ts';

const seed = (server: UploadServer) => ensureWarehouseScene({ config: server.config, store: server.store, instances: createInstanceService(server.store) });

describe('the warehouse demo', () => {
  it('has at least 10,000 instances of 5 assets; its model holds the lights and the animated forklift, and no repeated asset', () => {
    const { doc, stats } = createWarehouseDocument();
    expect(stats.instances).toBeGreaterThanOrEqual(10_000);
    expect(stats.assets).toEqual({ 'Pallet rack bay': 112, Pallet: 896, 'Cardboard box': 10_752, 'Oil drum': 64, 'Ceiling lamp': 48 });
    expect(stats.lights).toBeGreaterThanOrEqual(3);
    const root = doc.getRoot();
    expect(root.listNodes().filter((n) => n.getExtension('EXT_mesh_gpu_instancing'))).toEqual([]);
    expect(root.listMeshes().map((m) => m.getName())).not.toEqual(expect.arrayContaining(['Pallet']));
    expect(root.listAnimations().map((a) => a.getName())).toEqual(expect.arrayContaining(['Forklift patrol', 'Fork lift']));
    const targets = root.listAnimations().flatMap((a) => a.listChannels().map((c) => c.getTargetNode()?.getName()));
    expect(targets).toEqual(expect.arrayContaining(['Forklift', 'Fork carriage']));
  });

  it('writes its model and each asset as a valid glTF, the same bytes every time', async () => {
    const glb = await buildWarehouseModel();
    expect(Buffer.compare(Buffer.from(glb), Buffer.from(await buildWarehouseModel()))).toBe(0);
    const report = await validateModel(glb, { fileName: WAREHOUSE_FILE_NAME });
    expect({ errors: report.errors, warnings: report.warnings }).toEqual({ errors: 0, warnings: 0 });
    const [assets, again] = [await createWarehouseAssets(), await createWarehouseAssets()];
    expect(assets.map((a) => a.key)).toEqual(['rack', 'pallet', 'box', 'drum', 'lamp']);
    for (const [i, asset] of assets.entries()) {
      expect(Buffer.compare(Buffer.from(asset.glb), Buffer.from(again[i]!.glb))).toBe(0);
      const r = await validateModel(asset.glb, { fileName: `${asset.key}.glb` });
      expect({ asset: asset.key, errors: r.errors, warnings: r.warnings }).toEqual({ asset: asset.key, errors: 0, warnings: 0 });
      // Only its own materials: the rack its two, every other asset one; the lamp glows.
      const json = glbJson(asset.glb) as { materials: { name: string; emissiveFactor?: number[] }[] };
      expect(json.materials).toHaveLength(asset.key === 'rack' ? 2 : 1);
      if (asset.key === 'lamp') expect(json.materials[0]!.emissiveFactor).toEqual([1, 0.97, 0.88].map((x) => expect.closeTo(x, 5)));
    }
  });

  it("packs each placement as three.js's compose(t, r, s)", () => {
    const boxes = warehouseLayout().box;
    const set = placementsToSet(boxes);
    expect(set.ids.length).toBe(boxes.length);
    expect(set.nextId).toBe(boxes.length);
    for (const i of [0, 17, boxes.length - 1]) {
      const { t, r, s } = boxes[i]!;
      const want = new Matrix4().compose(new Vector3(...t), new Quaternion(...r!), new Vector3(...s!));
      const got = new Matrix4();
      unpackMatrix(set.matrices, i, got.elements);
      got.elements.forEach((x, k) => expect(x).toBeCloseTo(want.elements[k]!, 5));
    }
  });

  it('still writes the whole warehouse as one GLB with EXT_mesh_gpu_instancing (the load benchmark baseline)', async () => {
    const json = glbJson(await buildWarehouseReferenceModel()) as { extensionsUsed: string[]; nodes: { extensions?: { EXT_mesh_gpu_instancing?: unknown } }[] };
    expect(json.extensionsUsed).toEqual(expect.arrayContaining(['EXT_mesh_gpu_instancing', 'KHR_lights_punctual']));
    expect(json.nodes.filter((n) => n.extensions?.EXT_mesh_gpu_instancing)).toHaveLength(WAREHOUSE_ASSETS.length);
  });

  describe('seeded into a fresh DATA_DIR', () => {
    let server: UploadServer;
    beforeAll(async () => {
      server = await startUploadServer();
    });
    afterAll(() => server.close());

    it('is one optimised model and one instanced asset group per asset, on the asset CDN and in the instance store; created once', async () => {
      const { stats } = createWarehouseDocument();
      expect((await seed(server)).status).toBe('created');
      expect((await seed(server)).status).toBe('kept');
      const scene = await (await fetch(`${server.url}/v1/scenes/${WAREHOUSE_SCENE_ID}`)).json();
      expect(scene.name).toBe('Demo warehouse');
      expect(scene.models).toHaveLength(1);
      expect(scene.models[0].sourceFileName).toBe(WAREHOUSE_FILE_NAME);

      // The model: building, lights, forklift; optimised like an upload; no instancing left.
      const res = await fetch(`${server.url}/cdn/derivatives/${scene.models[0].latestVersionKey}/model_file.binz`);
      expect(res.status).toBe(200);
      const { asset } = await decodeContainer(new Uint8Array(await res.arrayBuffer()));
      const json = glbJson(asset);
      expect(json.extensionsUsed).toEqual(expect.arrayContaining(['KHR_lights_punctual', 'EXT_meshopt_compression']));
      expect(json.extensionsUsed).not.toContain('EXT_mesh_gpu_instancing');
      const doc = await readGlb(asset);
      for (const node of doc.getRoot().listNodes()) expect(typeof (node.getExtras() as { nodeId?: unknown }).nodeId).toBe('string');
      expect(doc.getRoot().listAnimations().map((a) => a.getName())).toEqual(expect.arrayContaining(['Forklift patrol', 'Fork lift']));
      expect((await validateModel(await decompressedGlb(asset), { fileName: WAREHOUSE_FILE_NAME, repairs: false })).errors).toBe(0);

      // The groups: one per asset, the instances served from the instance store.
      const groups = scene.viewerConfig.objects.filter((o: { type: string }) => o.type === 'InstancedAssetGroup');
      expect(groups.map((g: { uuid: string }) => g.uuid)).toEqual(WAREHOUSE_ASSETS.map((a) => warehouseGroupId(a.key)));
      let total = 0;
      for (const [i, group] of groups.entries()) {
        const { key, name } = WAREHOUSE_ASSETS[i]!;
        expect(group.assetId).toBe(`warehouse-${key}`);
        expect(group.matrices).toBeUndefined();
        expect(group.instanceCount).toBe(stats.assets[name]);
        const set = await fetch(`${server.url}/v1/scenes/${WAREHOUSE_SCENE_ID}/groups/${group.uuid}/instances`);
        expect(set.status).toBe(200);
        const decoded = decodeInstanceSet(new Uint8Array(await set.arrayBuffer()));
        expect(decoded.ids.length).toBe(stats.assets[name]);
        expect(decoded.matrices.length).toBe(decoded.ids.length * FLOATS_PER_INSTANCE);
        total += decoded.ids.length;
        // The asset: a container on the asset CDN, optimised, its one mesh (its impostor beside it).
        const cdn = await fetch(`${server.url}/cdn/assets/${group.assetId}/model.3dxa`);
        expect(cdn.status).toBe(200);
        const container = await decodeContainer(new Uint8Array(await cdn.arrayBuffer()));
        expect(container.format).toBe('glb');
        const assetDoc = await readGlb(container.asset);
        const drawn = new Set<unknown>();
        assetDoc.getRoot().getDefaultScene()!.traverse((node) => node.getMesh() && drawn.add(node.getMesh()));
        expect(drawn.size).toBe(1);
      }
      expect(total).toBe(stats.instances);
    });

    it('keeps a seeded scene whose instances were edited', async () => {
      const instances = createInstanceService(server.store);
      const pallets = warehouseGroupId('pallet');
      await instances.apply(WAREHOUSE_SCENE_ID, [{ uuid: 'remove-pallet-3', createdAt: 1, groupId: pallets, type: 'removeInstances', ids: [3] }], null);
      expect((await seed(server)).status).toBe('kept');
      const set = await createInstanceService(server.store).current(WAREHOUSE_SCENE_ID, pallets);
      expect(set!.has(3)).toBe(false);
      expect(set!.count).toBe(895);
    });
  });

  describe('a DATA_DIR with the single-model warehouse of before', () => {
    let server: UploadServer;
    beforeAll(async () => {
      server = await startUploadServer();
    });
    afterAll(() => server.close());

    it('is upgraded: the model is replaced by the building, the groups added, other scene objects kept', async () => {
      await importModel(server.store, { bytes: await buildWarehouseReferenceModel(), fileName: LEGACY_WAREHOUSE_FILE_NAME }, { sceneId: WAREHOUSE_SCENE_ID, name: 'Demo warehouse', optimize: false });
      const light = { uuid: 'my-light', type: 'PointLight' as const, name: 'My light', parent: null, position: [1, 2, 3] as [number, number, number], quaternion: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number], visible: true };
      await server.store.updateScene(WAREHOUSE_SCENE_ID, (s) => ({ ...s, viewerConfig: { ...s.viewerConfig, objects: [light] } }));

      const upgraded = await seed(server);
      expect(upgraded.status).toBe('upgraded');
      const scene = (await server.store.getScene(WAREHOUSE_SCENE_ID))!;
      expect(scene.models.map((m) => m.sourceFileName)).toEqual([WAREHOUSE_FILE_NAME]);
      expect(scene.viewerConfig.objects!.map((o) => o.uuid)).toEqual(['my-light', ...WAREHOUSE_ASSETS.map((a) => warehouseGroupId(a.key))]);
      expect((await seed(server)).status).toBe('kept');
    });
  });
});
