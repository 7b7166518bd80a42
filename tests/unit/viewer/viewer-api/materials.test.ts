import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { ImageLoader, Texture, TextureLoader } from 'three';
import { MAX_ADDED_TEXTURES } from '../../../../src/protocol/host-api';
import { addModel, setup } from '../../support/viewer-api';

describe('viewer API: materials and textures', () => {
  it('lists textures with the maps that use them, and removes only unused ones of addTexture', async () => {
    const { world, run } = setup();
    const { rec, texture, material } = addModel(world);
    // Loading images is the browser's: the loaders answer at once here.
    vi.spyOn(TextureLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const t = new Texture({ width: 16, height: 16 } as HTMLImageElement);
      queueMicrotask(() => onLoad?.(t));
      return t;
    });
    vi.spyOn(ImageLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const image = { width: 32, height: 64, src: url } as never;
      queueMicrotask(() => onLoad?.(image));
      return image;
    });
    expect(await run('listTextures', {})).toEqual([
      {
        textureId: '0',
        modelId: 'm1',
        name: 'bricks',
        source: 'model',
        url: null,
        width: 8,
        height: 4,
        usedBy: [{ modelId: 'm1', materialId: 'mat', map: 'map' }],
      },
    ]);
    const { textureId } = await run('addTexture', { url: 'https://img.example/a.png' });
    expect(rec.textures.get(textureId)).toBeDefined();
    expect((await run('listTextures', {}))[0]).toMatchObject({
      textureId,
      modelId: null,
      source: 'added',
      url: 'https://img.example/a.png',
      width: 16,
      usedBy: [],
    });
    // In use: refused, kept.
    material.map = rec.textures.get(textureId)!;
    await expect(run('removeTexture', { textureId })).rejects.toThrow(
      `Texture '${textureId}' is used by map of material 'mat' of model 'm1': set those maps to another texture or null first.`,
    );
    expect(rec.textures.has(textureId)).toBe(true);
    // Its image replaced: the map's texture has it and is uploaded again; the URL is the new one.
    const before = material.map.version;
    const updated = await run('updateTexture', { textureId, url: 'https://img.example/b.png' });
    expect(updated).toMatchObject({ url: 'https://img.example/b.png', width: 32, height: 64, usedBy: [{ materialId: 'mat', map: 'map' }] });
    expect((material.map.image as { src: string }).src).toBe('https://img.example/b.png');
    expect(material.map.version).toBeGreaterThan(before);
    material.map = texture;
    expect(await run('removeTexture', { textureId })).toEqual({ ok: true });
    expect(rec.textures.has(textureId)).toBe(false);
    await expect(run('removeTexture', { textureId: '0' })).rejects.toThrow("Texture '0' is a model's own: only textures made by addTexture can be removed.");
    await expect(run('updateTexture', { textureId: 'nope', url: 'https://img.example/c.png' })).rejects.toThrow(
      "There is no texture 'nope' made by addTexture",
    );
    // A model's own texture, named with its model.
    await run('updateTexture', { textureId: '0', modelId: 'm1', url: 'https://img.example/c.png' });
    expect((texture.image as { src: string }).src).toBe('https://img.example/c.png');
    vi.restoreAllMocks();
  });

  it(`refuses addTexture past ${MAX_ADDED_TEXTURES} textures, counting those still loading`, async () => {
    const { run } = setup();
    const pending: (() => void)[] = [];
    vi.spyOn(TextureLoader.prototype, 'load').mockImplementation(function (url, onLoad) {
      const t = new Texture({ width: 1, height: 1 } as HTMLImageElement);
      pending.push(() => onLoad?.(t));
      return t;
    });
    const loads = Array.from({ length: MAX_ADDED_TEXTURES }, (_, i) => run('addTexture', { url: `https://img.example/${i}.png` }));
    await expect(run('addTexture', { url: 'https://img.example/extra.png' })).rejects.toThrow(`At most ${MAX_ADDED_TEXTURES} textures may be added`);
    for (const done of pending) done();
    await Promise.all(loads);
    vi.restoreAllMocks();
  });
});
