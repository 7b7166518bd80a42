import { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { enableMeshopt, quantizeForMeshopt } from '../../../src/server/upload/compress.ts';
import { createModelIO } from '../../../src/server/upload/io.ts';
import { glbJson } from '../helpers.ts';
import { model } from './corpus.ts';

describe('quantizeForMeshopt and enableMeshopt', () => {
  it('quantizes texture coordinates but keeps positions float, then writes EXT_meshopt_compression', async () => {
    const io = await createModelIO(false);
    const doc = await io.readBinary(await model('Duck.glb'));
    expect(await quantizeForMeshopt(doc)).toBe(true);
    const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
    expect(prim.getAttribute('POSITION')!.getArray()).toBeInstanceOf(Float32Array);
    expect(prim.getAttribute('TEXCOORD_0')!.getArray()).not.toBeInstanceOf(Float32Array);
    enableMeshopt(doc);
    const json = glbJson(await io.writeBinary(doc));
    expect(json.extensionsUsed).toEqual(expect.arrayContaining(['EXT_meshopt_compression', 'KHR_mesh_quantization']));
  });

  it('leaves a model without accessors uncompressed', async () => {
    expect(await quantizeForMeshopt(new Document())).toBe(false);
  });
});
