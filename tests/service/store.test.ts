import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DERIVATIVE_FILE_NAME, StoreError, isValidId, newId, openFileStore, type Store } from '../../src/server/store.ts';
import { tempDir } from './helpers.ts';

const model = { _id: 'm1', latestVersionKey: 'm1/v1', outputFormat: 'glb', sourceFileName: 'a.glb' };

describe('file store', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = await tempDir('store-');
    store = await openFileStore(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates its folders and round-trips scenes and models', async () => {
    expect((await readdir(dir)).sort()).toEqual(['derivatives', 'models', 'scenes']);
    expect(await store.getScene('s1')).toBeUndefined();
    expect(await store.getModel('m1')).toBeUndefined();
    await store.putModel(model);
    const saved = await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model] });
    expect(await store.getModel('m1')).toEqual(model);
    expect(await store.getScene('s1')).toEqual(saved);
    expect(JSON.parse(await readFile(join(dir, 'scenes', 's1.json'), 'utf8'))).toEqual(saved);
    await store.putScene({ _id: 'a0', name: 'Zero', viewerConfig: {}, models: [] });
    expect((await store.listScenes()).map((s) => s._id)).toEqual(['a0', 's1']);
  });

  it('leaves no temporary files behind', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.putScene({ _id: 'same', name: `v${i}`, viewerConfig: {}, models: [] })));
    expect(await readdir(join(dir, 'scenes'))).toEqual(['same.json']);
    expect((await store.getScene('same'))?.name).toMatch(/^v\d+$/);
  });

  it('rejects bad ids before touching the disk', async () => {
    for (const id of ['', '..', '../x', 'a/b', 'a.b', '%2e%2e', 'x'.repeat(65), 'a b']) {
      expect(isValidId(id)).toBe(false);
      await expect(store.getScene(id)).rejects.toThrow(StoreError);
      await expect(store.getModel(id)).rejects.toThrow(/Invalid model id/);
    }
    await expect(store.putScene({ _id: '../evil', name: 'x', viewerConfig: {}, models: [] })).rejects.toThrow(/Invalid scene id/);
    expect(() => store.derivativePath('../../etc')).toThrow(/Invalid version key/);
    expect(() => store.derivativePath('a/../b')).toThrow(StoreError);
    expect(() => store.derivativePath('/abs')).toThrow(StoreError);
  });

  it('validates documents on write and on read', async () => {
    await expect(store.putModel({ ...model, latestVersionKey: '../x' })).rejects.toThrow(/Invalid model: latestVersionKey/);
    await expect(store.putScene({ _id: 's', name: 'x', models: 'none' } as never)).rejects.toThrow(/Invalid scene: models/);
    await writeFile(join(dir, 'scenes', 'broken.json'), '{ not json');
    await expect(store.getScene('broken')).rejects.toMatchObject({ code: 'CORRUPT' });
    await writeFile(join(dir, 'models', 'wrong.json'), JSON.stringify({ _id: 'wrong' }));
    await expect(store.getModel('wrong')).rejects.toThrow(/is not a valid model/);
  });

  it('writes derivatives under their version key', async () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    await store.writeDerivative('m1/v1', bytes);
    expect(store.derivativePath('m1/v1')).toBe(join(dir, 'derivatives', 'm1', 'v1', DERIVATIVE_FILE_NAME));
    expect(new Uint8Array(await readFile(store.derivativePath('m1/v1')))).toEqual(bytes);
  });

  it('makes short url-safe ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, newId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });
});
