import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelDoc, SceneDoc } from '../../src/protocol/scene.ts';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { ImportError, importModel } from '../../src/server/import.ts';
import { prepareAsset } from '../../src/server/upload/prepare.ts';
import { openFileStore, type Store } from '../../src/server/store.ts';
import { MODELS_DIR, glbJson, solidPng, tempDir, triangleGltf } from './helpers.ts';

async function storedAsset(store: Store, model: ModelDoc) {
  const file = await readFile(store.derivativePath(model.latestVersionKey));
  return decodeContainer(new Uint8Array(file));
}

async function draco() {
  const specifier = 'draco3dgltf';
  const mod = await import(specifier);
  const d = mod.default ?? mod;
  return { 'draco3d.decoder': await d.createDecoderModule(), 'draco3d.encoder': await d.createEncoderModule() };
}

async function fullIO() {
  await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
  return new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder, ...(await draco()) });
}

describe('importModel', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = await tempDir('import-');
    store = await openFileStore(join(dir, 'data'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it.each(['BoxAnimated.glb', '2CylinderEngine.glb', 'Box-draco.glb'])('stores %s byte for byte', async (name) => {
    const path = join(MODELS_DIR, name);
    const original = new Uint8Array(await readFile(path));
    const { scene, model } = await importModel(store, { path }, {});

    expect(ModelDoc.parse(model)).toEqual(model);
    expect(model).toMatchObject({ outputFormat: 'glb', sourceFileName: name });
    expect(model.latestVersionKey).toMatch(new RegExp(`^${model._id}/[A-Za-z0-9_-]+$`));
    expect(await store.getModel(model._id)).toEqual(model);

    expect(SceneDoc.parse(scene)).toEqual(scene);
    expect(scene.name).toBe(name.replace(/\.glb$/, ''));
    expect(scene.models).toEqual([model]);
    expect(await store.getScene(scene._id)).toEqual(scene);

    const decoded = await storedAsset(store, model);
    expect(decoded.format).toBe('glb');
    expect(Buffer.compare(Buffer.from(decoded.asset), Buffer.from(original))).toBe(0);
    expect(glbJson(decoded.asset).nodes?.length).toBe(glbJson(original).nodes?.length);
  });

  it('creates the named scene, then appends to it and renames it when asked', async () => {
    const first = await importModel(store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { sceneId: 'plant', name: 'Plant' });
    expect(first.scene).toMatchObject({ _id: 'plant', name: 'Plant' });
    const second = await importModel(store, { path: join(MODELS_DIR, 'Duck.glb') }, { sceneId: 'plant' });
    expect(second.scene.name).toBe('Plant');
    expect(second.scene.models.map((m) => m.sourceFileName)).toEqual(['BoxAnimated.glb', 'Duck.glb']);
    const third = await importModel(store, { bytes: await readFile(join(MODELS_DIR, 'Fox.glb')), fileName: 'uploads/Fox.glb' }, { sceneId: 'plant', name: 'Plant 2' });
    expect(third.scene.name).toBe('Plant 2');
    expect(third.model.sourceFileName).toBe('Fox.glb');
    expect((await store.getScene('plant'))?.models).toHaveLength(3);
    expect(new Set(third.scene.models.map((m) => m._id)).size).toBe(3);
  });

  it('loses no model when several imports extend the same scene at once', async () => {
    await importModel(store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { sceneId: 'yard' });
    const files = ['Duck.glb', 'Fox.glb', 'Box-draco.glb', '2CylinderEngine.glb'];
    const results = await Promise.all(files.map((f) => importModel(store, { path: join(MODELS_DIR, f) }, { sceneId: 'yard' })));
    const stored = await store.getScene('yard');
    expect(stored?.models.map((m) => m.sourceFileName).sort()).toEqual(['BoxAnimated.glb', ...files].sort());
    for (const r of results) expect(stored?.models.map((m) => m._id)).toContain(r.model._id);
  });

  it('packs a .gltf with an external .bin and image (with a space in its name) into a GLB', async () => {
    const gltfDir = join(dir, 'src');
    await mkdir(gltfDir);
    const png = solidPng(4, 4, [200, 30, 30]);
    const { json, bin } = triangleGltf({ bufferUri: 'triangle.bin', imageUri: 'red%20paint.png' });
    await writeFile(join(gltfDir, 'triangle.gltf'), JSON.stringify(json, null, 2));
    await writeFile(join(gltfDir, 'triangle.bin'), bin);
    await writeFile(join(gltfDir, 'red paint.png'), png);

    const { model, scene } = await importModel(store, { path: join(gltfDir, 'triangle.gltf') }, {});
    expect(model.sourceFileName).toBe('triangle.gltf');
    expect(model.outputFormat).toBe('glb');
    expect(scene.name).toBe('triangle');

    const decoded = await storedAsset(store, model);
    expect(decoded.format).toBe('glb');
    expect(decoded.header).toBeDefined();
    const doc = await new NodeIO().readBinary(decoded.asset);
    const root = doc.getRoot();
    expect(root.listNodes().map((n) => n.getName())).toEqual(['Triangle', 'Child']);
    expect(root.listBuffers()).toHaveLength(1);
    const position = root.listMeshes()[0].listPrimitives()[0].getAttribute('POSITION');
    expect(Array.from(position?.getArray() ?? [])).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    expect(root.listTextures()).toHaveLength(1);
    expect(Buffer.compare(Buffer.from(root.listTextures()[0].getImage() ?? []), Buffer.from(png))).toBe(0);
    expect(root.listTextures()[0].getMimeType()).toBe('image/png');
  });

  it('merges the buffers of a .gltf into the one buffer a GLB allows', async () => {
    const { json, bin } = triangleGltf({ bufferUri: 'a.bin' });
    json.buffers = [
      { uri: 'a.bin', byteLength: 72 },
      { uri: 'b.bin', byteLength: 32 },
    ];
    json.bufferViews = [
      { buffer: 0, byteOffset: 0, byteLength: 72, byteStride: 12, target: 34962 },
      { buffer: 1, byteOffset: 0, byteLength: 24, target: 34962 },
      { buffer: 1, byteOffset: 24, byteLength: 6, target: 34963 },
    ];
    const gltfDir = join(dir, 'split');
    await mkdir(gltfDir);
    await writeFile(join(gltfDir, 'split.gltf'), JSON.stringify(json));
    await writeFile(join(gltfDir, 'a.bin'), bin.subarray(0, 72));
    await writeFile(join(gltfDir, 'b.bin'), bin.subarray(72));
    const { model } = await importModel(store, { path: join(gltfDir, 'split.gltf') }, {});
    const doc = await new NodeIO().readBinary((await storedAsset(store, model)).asset);
    expect(doc.getRoot().listBuffers()).toHaveLength(1);
    const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
    expect(Array.from(prim.getAttribute('TEXCOORD_0')?.getArray() ?? [])).toEqual([0, 1, 1, 1, 0, 0]);
    expect(Array.from(prim.getIndices()?.getArray() ?? [])).toEqual([0, 1, 2]);
  });

  it('packs a .gltf with embedded data URIs given as bytes', async () => {
    const { json, bin } = triangleGltf({ bufferUri: 'placeholder' });
    (json.buffers as { uri: string }[])[0].uri = `data:application/octet-stream;base64,${Buffer.from(bin).toString('base64')}`;
    const { model } = await importModel(store, { bytes: new TextEncoder().encode(JSON.stringify(json)), fileName: 'embedded.gltf' }, {});
    const doc = await new NodeIO().readBinary((await storedAsset(store, model)).asset);
    expect(doc.getRoot().listMeshes()).toHaveLength(1);
  });

  it('refuses external files for a .gltf given as bytes, and reports missing files', async () => {
    const { json } = triangleGltf({ bufferUri: 'triangle.bin' });
    const bytes = new TextEncoder().encode(JSON.stringify(json));
    await expect(importModel(store, { bytes, fileName: 'x.gltf' }, {})).rejects.toThrow(/external file "triangle.bin", which was not provided/);
    await writeFile(join(dir, 'lonely.gltf'), bytes);
    await expect(importModel(store, { path: join(dir, 'lonely.gltf') }, {})).rejects.toMatchObject({ code: 'MISSING_RESOURCE' });
    (json.buffers as { uri: string }[])[0].uri = 'https://example.com/triangle.bin';
    await expect(prepareAsset('remote.gltf', new TextEncoder().encode(JSON.stringify(json)), { dir })).rejects.toThrow(/only files next to the .gltf/);
  });

  it('keeps Draco and meshopt compression of a .gltf', async () => {
    const io = await fullIO();
    // A Draco .gltf: the shared Draco GLB rewritten as .gltf + .bin.
    const dracoDoc = await io.readBinary(new Uint8Array(await readFile(join(MODELS_DIR, 'Box-draco.glb'))));
    await io.write(join(dir, 'box-draco.gltf'), dracoDoc);
    const dracoResult = await importModel(store, { path: join(dir, 'box-draco.gltf') }, {});
    const dracoAsset = (await storedAsset(store, dracoResult.model)).asset;
    expect(glbJson(dracoAsset).extensionsUsed).toContain('KHR_draco_mesh_compression');
    expect((await io.readBinary(dracoAsset)).getRoot().listMeshes()).toHaveLength(1);

    // A meshopt .gltf made from the shared Duck.
    const duck = await io.readBinary(new Uint8Array(await readFile(join(MODELS_DIR, 'Duck.glb'))));
    duck.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
    await io.write(join(dir, 'duck-meshopt.gltf'), duck);
    const meshoptResult = await importModel(store, { path: join(dir, 'duck-meshopt.gltf') }, {});
    const meshoptAsset = (await storedAsset(store, meshoptResult.model)).asset;
    expect(glbJson(meshoptAsset).extensionsUsed).toContain('EXT_meshopt_compression');
    expect((await io.readBinary(meshoptAsset)).getRoot().listMeshes()).toHaveLength(1);
  });

  it('rejects a file that is not glTF with a clear error and writes nothing', async () => {
    const cases: [string, Uint8Array][] = [
      ['notes.txt', new TextEncoder().encode('hello, this is not a model')],
      ['image.png', solidPng(1, 1, [0, 0, 0])],
      ['empty.glb', new Uint8Array(0)],
    ];
    for (const [fileName, bytes] of cases) {
      const error = await importModel(store, { bytes, fileName }, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as ImportError).message).toContain(`${fileName}: Unknown file format`);
    }
    const json = await importModel(store, { bytes: new TextEncoder().encode('{"hello": 1}'), fileName: 'data.json' }, {}).catch((e: unknown) => e);
    expect((json as Error).message).toBe('data.json: The glTF asset has no asset.version.');
    const v1 = await importModel(store, { bytes: new TextEncoder().encode('{"asset": {"version": "1.0"}}'), fileName: 'old.gltf' }, {}).catch((e: unknown) => e);
    expect((v1 as Error).message).toMatch(/only glTF 2.x is supported/);
    expect(await store.listScenes()).toEqual([]);
    expect(await readdir(join(dir, 'data', 'derivatives'))).toEqual([]);
  });

  it('enforces the size limit and checks the scene id', async () => {
    await expect(importModel(store, { path: join(MODELS_DIR, 'Duck.glb') }, { maxBytes: 1000 })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(importModel(store, { path: join(MODELS_DIR, 'Duck.glb') }, { sceneId: '../x' })).rejects.toThrow(/Invalid scene id/);
    await expect(importModel(store, { path: join(dir, 'nope.glb') }, {})).rejects.toThrow(/Cannot read/);
  });
});

describe('GLB checks against the glTF-Validator corpus', () => {
  interface Case {
    file: string;
    errors: number;
  }
  const cases: Case[] = [];
  beforeAll(async () => {
    for (const sub of ['glb', 'buffer']) {
      const folder = join(MODELS_DIR, 'malformed', sub);
      for (const name of (await readdir(folder)).filter((n) => n.endsWith('.glb'))) {
        const report = JSON.parse(await readFile(join(folder, `${name}.report.json`), 'utf8'));
        cases.push({ file: join(folder, name), errors: report.issues.numErrors });
      }
    }
  });

  it('accepts the files without errors and rejects every file with a GLB or buffer error', async () => {
    expect(cases.length).toBeGreaterThan(30);
    for (const { file, errors } of cases) {
      const bytes = new Uint8Array(await readFile(file));
      const result = await prepareAsset('case.glb', bytes).then(
        () => 'accepted',
        (error: unknown) => {
          expect(error).toBeInstanceOf(ImportError);
          expect((error as Error).message).toMatch(/^case\.glb: (Unknown file format|The |GLB |glTF )/);
          return 'rejected';
        },
      );
      expect({ file, result }).toEqual({ file, result: errors === 0 ? 'accepted' : 'rejected' });
    }
  });
});
