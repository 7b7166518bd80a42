import { describe, expect, it } from 'vitest';
import { createModelIO, extensionsUsed, withoutExtraData } from '../../../src/server/upload/io.ts';
import { model } from './corpus.ts';

describe('withoutExtraData', () => {
  it('cuts a GLB at the length its header declares, and leaves a GLB without extra bytes as it is', async () => {
    const duck = await model('Duck.glb');
    expect(withoutExtraData(duck)).toBe(duck);
    const padded = new Uint8Array(duck.byteLength + 5);
    padded.set(duck);
    const cut = withoutExtraData(padded);
    expect(Buffer.compare(Buffer.from(cut), Buffer.from(duck))).toBe(0);
  });

  it('makes a GLB with bytes after its JSON chunk readable by gltf-transform (which refuses it as it is)', async () => {
    const extra = await model('malformed/glb/extra_data.glb');
    const io = await createModelIO(false);
    await expect(io.readBinary(extra)).rejects.toThrow(/Invalid typed array length/);
    const cut = withoutExtraData(extra);
    expect(cut.byteLength).toBe(extra.byteLength - 1);
    expect((await io.readBinary(cut)).getRoot().getAsset().version).toBe('2.0');
  });

  it('leaves bytes that are not a GLB header alone', () => {
    expect(withoutExtraData(new Uint8Array(4)).byteLength).toBe(4);
    const lying = new Uint8Array(64);
    new DataView(lying.buffer).setUint32(8, 4, true); // shorter than a header
    expect(withoutExtraData(lying)).toBe(lying);
  });
});

describe('extensionsUsed and createModelIO', () => {
  it('reads extensionsUsed from the JSON chunk and decodes Draco when asked to', async () => {
    const draco = await model('Box-draco.glb');
    expect(extensionsUsed(draco)).toContain('KHR_draco_mesh_compression');
    expect(extensionsUsed(await model('Duck.glb'))).toEqual([]);
    const doc = await (await createModelIO(true)).readBinary(draco);
    expect(doc.getRoot().listAccessors().some((a) => (a.getArray()?.length ?? 0) > 0)).toBe(true);
  });
});
