import { NoColorSpace, SRGBColorSpace, Texture, type MeshStandardMaterial } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { beforeEach, describe, expect, it } from 'vitest';
import '../support/progress-event';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import { applyMutations } from '../../../src/scene/apply-mutations';
import { spawnModel } from '../../../src/scene/model-entities';
import { loadUploadedTextures, mapTexture, uploadedTextureIds } from '../../../src/scene/uploaded-textures';

/** One triangle with material 0 'plain' (no maps). */
function gltf(): string {
  const floats = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name: 'A', mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, material: 0 }] }],
    materials: [{ name: 'plain' }],
    buffers: [{ byteLength: 36, uri: `data:application/octet-stream;base64,${Buffer.from(floats.buffer).toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
  });
}
const parse = (data: string) => new Promise<GLTF>((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));

const RED = `u-${'a'.repeat(24)}`;
const GONE = `u-${'b'.repeat(24)}`;
const mutation = (materialId: string, properties: Record<string, unknown>, n = 0) => ({ key: `${materialId}/${n}`, uuid: `x-${n}`, createdAt: n, type: 'updateMaterial', materialId, properties });

describe('uploaded textures', () => {
  let world: ViewerWorld;
  let record: ModelRecord;
  let requested: string[];
  /** The model service: RED is an image, anything else 404 with the service's error body. */
  const fakeFetch = (async (url: string) => {
    requested.push(url);
    if (url.endsWith(RED)) return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { status: 200, headers: { 'content-type': 'image/png' } });
    return new Response(JSON.stringify({ error: `Model 'm1' has no uploaded texture '${GONE}'` }), { status: 404, statusText: 'Not Found' });
  }) as unknown as typeof fetch;
  const decode = async (blob: Blob) => ({ width: 1, height: 1, bytes: blob.size }) as unknown as ImageBitmap;

  beforeEach(async () => {
    world = createViewerWorld();
    record = spawnModel(world, await parse(gltf()), { modelId: 'm1', name: 'tri.gltf' });
    requested = [];
  });

  it('finds the uploaded ids a log names (maps of updateMaterial and createMaterial), each once', () => {
    const log = [
      mutation('0', { map: { textureId: RED }, normalMap: { textureId: '3' } }),
      { type: 'createMaterial', materialId: 'n', name: 'N', properties: { emissiveMap: { textureId: GONE }, roughnessMap: { textureId: RED } } },
      { type: 'updateNode', nodeId: '0', properties: { map: { textureId: `u-${'c'.repeat(24)}` } } },
      mutation('0', { map: null, aoMap: { textureId: 'u-short' } }),
      'garbage',
      null,
    ];
    expect(uploadedTextureIds(log)).toEqual([RED, GONE]);
  });

  it('the pre-pass loads what the log names from the model service, registers it, and the log then applies it', async () => {
    const log = [mutation('0', { map: { textureId: RED, wrapS: 1000 } }, 1)];
    const problems = await loadUploadedTextures('http://models.test/', record, log, { fetch: fakeFetch, decode });
    expect(problems).toEqual([]);
    expect(requested).toEqual([`http://models.test/v1/models/m1/textures/${RED}`]);
    const texture = record.textures.get(RED)!;
    expect(texture).toBeInstanceOf(Texture);
    expect(texture.flipY).toBe(false);
    expect((texture.image as { bytes: number }).bytes).toBe(4);

    expect(applyMutations(world, record, log).problems).toEqual([]);
    const material = record.materials.get('0') as MeshStandardMaterial;
    // A colour map samples the image in sRGB (its twin), as glTF's base colour textures.
    expect(material.map).not.toBeNull();
    expect(material.map!.colorSpace).toBe(SRGBColorSpace);
    expect(material.map!.image).toBe(texture.image);
    expect(material.map!.flipY).toBe(false);

    // Already registered: a second pass fetches nothing.
    await loadUploadedTextures('http://models.test', record, log, { fetch: fakeFetch, decode });
    expect(requested).toHaveLength(1);
  });

  it('a texture that fails to load is a problem naming it and the reason; the map keeps its previous texture', async () => {
    const own = new Texture();
    record.textures.set('0', own);
    applyMutations(world, record, [mutation('0', { map: { textureId: '0' } })]);
    const material = record.materials.get('0') as MeshStandardMaterial;
    expect(material.map).toBe(own);

    const log = [mutation('0', { map: { textureId: GONE }, roughness: 0.25 }, 2)];
    const problems = await loadUploadedTextures('http://models.test', record, log, { fetch: fakeFetch, decode });
    expect(problems).toEqual([
      `The uploaded texture '${GONE}' could not be loaded (http://models.test/v1/models/m1/textures/${GONE} answered 404: Model 'm1' has no uploaded texture '${GONE}'), so the maps that use it stay as they were.`,
    ]);
    expect(record.textures.has(GONE)).toBe(false);
    const applied = applyMutations(world, record, log);
    expect(applied.problems).toEqual([`Saved edit 1 (updateMaterial of material '0'): the uploaded texture '${GONE}' is not loaded, so map stays as it was.`]);
    expect(material.map).toBe(own);
    // The rest of the mutation still applies.
    expect(material.roughness).toBe(0.25);

    // An image the browser cannot decode is reported too.
    const undecodable = await loadUploadedTextures('http://models.test', record, [mutation('0', { map: { textureId: RED } })], {
      fetch: fakeFetch,
      decode: async () => {
        throw new Error('bad PNG');
      },
    });
    expect(undecodable[0]).toMatch(new RegExp(`'${RED}' could not be loaded \\(.*is not an image this browser can decode \\(bad PNG\\)\\)`));
  });

  it('colour maps sample an uploaded texture in sRGB, data maps linearly: one twin, the same image', () => {
    const base = new Texture({ width: 1, height: 1 } as never);
    base.userData.uploadedTextureId = RED;
    base.colorSpace = NoColorSpace;
    const srgb = mapTexture(base, 'map');
    expect(srgb).not.toBe(base);
    expect(srgb.colorSpace).toBe(SRGBColorSpace);
    expect(srgb.source).toBe(base.source);
    expect(mapTexture(base, 'emissiveMap')).toBe(srgb);
    expect(mapTexture(base, 'roughnessMap')).toBe(base);
    expect(mapTexture(srgb, 'normalMap')).toBe(base);
    expect(mapTexture(srgb, 'sheenColorMap')).toBe(srgb);
    // The model's own textures are never changed or twinned.
    const own = new Texture();
    expect(mapTexture(own, 'map')).toBe(own);
  });
});
