import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mutation } from '../../src/protocol/mutation.ts';
import type { ModelDoc } from '../../src/protocol/scene.ts';
import {
  DERIVATIVE_FILE_NAME,
  SQLITE_FILE_NAME,
  StoreError,
  describePostgresUrl,
  isValidId,
  newId,
  openFileStore,
  openStore,
  type Store,
} from '../../src/server/store.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import { backendEnv, unavailable, useBackends } from './backends.ts';
import { tempDir } from './helpers.ts';

const model: ModelDoc = { _id: 'm1', latestVersionKey: 'm1/v1', outputFormat: 'glb', sourceFileName: 'a.glb' };

function nodeMutation(uuid: string, extra: Record<string, unknown> = {}): Mutation {
  return { key: `n1/visible`, uuid, createdAt: 1_700_000_000_000, type: 'updateNode', nodeId: 'n1', properties: { visible: false, ...extra } } as Mutation;
}

describe.each(useBackends())('store on %s', (backend) => {
  let dir: string;
  let databaseUrl: string | undefined;
  let store: Store;
  const open = () => openStore({ dataDir: dir, databaseUrl });

  /** Writes a raw document into the database, bypassing the store's checks. */
  async function rawUpdate(table: 'scenes' | 'models', id: string, doc: string): Promise<void> {
    if (backend === 'sqlite') {
      const db = new Database(join(dir, SQLITE_FILE_NAME));
      db.prepare(`UPDATE ${table} SET doc = ? WHERE id = ?`).run(doc, id);
      db.close();
    } else {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`UPDATE ${table} SET doc = $1::jsonb WHERE id = $2`, [doc, id]);
      await client.end();
    }
  }

  beforeEach(async ({ skip }) => {
    if (unavailable(backend)) skip();
    dir = await tempDir('store-');
    databaseUrl = (await backendEnv(backend)).DATABASE_URL;
    store = await open();
  });
  afterEach(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates its folders and round-trips scenes and models', async () => {
    const entries = (await readdir(dir)).sort();
    expect(entries).toEqual(expect.arrayContaining(['derivatives', 'thumbnails']));
    if (backend === 'sqlite') expect(entries).toContain(SQLITE_FILE_NAME);
    expect(store.kind).toBe(backend);
    expect(store.location).not.toMatch(/password/);
    expect(await store.getScene('s1')).toBeUndefined();
    expect(await store.getModel('m1')).toBeUndefined();
    await store.putModel(model);
    const saved = await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model], ownerId: 'u1', editors: ['u2'], public: false });
    expect(saved).toEqual({ _id: 's1', name: 'One', viewerConfig: {}, models: [model], ownerId: 'u1', editors: ['u2'], public: false });
    expect(await store.getModel('m1')).toEqual(model);
    expect(await store.getScene('s1')).toEqual(saved);
    await store.putScene({ _id: 'a0', name: 'Zero', viewerConfig: { uiConfig: { rtcVideoEnabled: false, rtcAvatarsEnabled: true } }, models: [] });
    expect((await store.listScenes()).map((s) => s._id)).toEqual(['a0', 's1']);
    expect((await store.listScenes())[1]).toEqual(saved);
    expect((await store.scenesWithModel('m1')).map((s) => s._id)).toEqual(['s1']);
  });

  it('keeps everything across a reopen', async () => {
    await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model] });
    await store.applyMutations('m1', [nodeMutation('u-1')]);
    await store.close();
    store = await open();
    expect((await store.getScene('s1'))?.models).toEqual([model]);
    expect((await store.listMutations('m1'))?.lastSeq).toBe(1);
  });

  it('links models by id: putModel changes a model in every scene, a stale scene document does not', async () => {
    await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model] });
    await store.putScene({ _id: 's2', name: 'Two', viewerConfig: {}, models: [model] });
    const v2 = { ...model, latestVersionKey: 'm1/v2' };
    await store.putModel(v2);
    expect((await store.getScene('s1'))?.models).toEqual([v2]);
    // Writing a scene that still carries the old model document keeps the stored model.
    const again = await store.putScene({ _id: 's2', name: 'Two again', viewerConfig: {}, models: [model] });
    expect(again.models).toEqual([v2]);
    expect((await store.scenesWithModel('m1')).map((s) => s._id)).toEqual(['s1', 's2']);
  });

  it('finds the scenes that list a container by its version key, copies on the same container included (issue 33, item 10)', async () => {
    const copy: ModelDoc = { ...model, _id: 'm1-copy' };
    const other: ModelDoc = { ...model, _id: 'm2', latestVersionKey: 'm2/v1' };
    await store.putScene({ _id: 's2', name: 'Two', viewerConfig: {}, models: [other, copy], public: false, ownerId: 'u1' });
    await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model, copy] });
    await store.putScene({ _id: 's3', name: 'Three', viewerConfig: {}, models: [other] });
    const found = await store.scenesWithVersion('m1/v1');
    expect(found.map((s) => s._id)).toEqual(['s1', 's2']);
    // Whole documents, as scenesWithModel gives them.
    expect(found[1]).toEqual(await store.getScene('s2'));
    expect((await store.scenesWithVersion('m2/v1')).map((s) => s._id)).toEqual(['s2', 's3']);
    expect(await store.scenesWithVersion('m1/v9')).toEqual([]);
    // A model moved to another version is found under the new key only.
    await store.putModel({ ...other, latestVersionKey: 'm2/v2' });
    expect(await store.scenesWithVersion('m2/v1')).toEqual([]);
    expect((await store.scenesWithVersion('m2/v2')).map((s) => s._id)).toEqual(['s2', 's3']);
    await expect(store.scenesWithVersion('../etc')).rejects.toMatchObject({ code: 'BAD_ID' });
    if (backend === 'sqlite') {
      // Through the index of migration 4, not a scan of every model.
      const db = new Database(join(dir, SQLITE_FILE_NAME), { readonly: true });
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id FROM models WHERE json_extract(doc, '$.latestVersionKey') = ?").all('m1/v1') as { detail: string }[];
      db.close();
      expect(plan.map((row) => row.detail).join('; ')).toContain('models_version_key');
    }
  });

  it('never stores a derivativeQuery: it belongs to one answer, not to the document', async () => {
    const signed = { ...model, derivativeQuery: 'exp=1&sig=x' };
    expect(await store.putModel(signed)).toEqual(model);
    const scene = await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [{ ...signed, _id: 'm9' }] });
    expect(scene.models).toEqual([{ ...model, _id: 'm9' }]);
    expect(await store.getModel('m9')).toEqual({ ...model, _id: 'm9' });
    expect((await store.appendModel('s1', { ...signed, _id: 'm8' }))?.models.map((m) => m.derivativeQuery)).toEqual([undefined, undefined]);
  });

  it('serialises concurrent changes of one scene: none is lost', async () => {
    await store.createScene({ _id: 'busy', name: 'Busy' });
    const models = Array.from({ length: 20 }, (_, i): ModelDoc => ({ ...model, _id: `m${i}`, latestVersionKey: `m${i}/v1` }));
    await Promise.all(models.map((m) => store.appendModel('busy', m)));
    const scene = await store.getScene('busy');
    expect(scene?.models.map((m) => m._id).sort()).toEqual(models.map((m) => m._id).sort());
    expect(await store.appendModel('nope', model)).toBeUndefined();
  });

  it('creates scenes with new ids and refuses a taken one', async () => {
    const a = await store.createScene({ name: 'A', ownerId: 'u1' });
    expect(a._id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(a).toEqual({ _id: a._id, name: 'A', viewerConfig: {}, models: [], ownerId: 'u1' });
    await expect(store.createScene({ _id: a._id, name: 'B' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.getScene(a._id))?.name).toBe('A');
  });

  it('updates viewerConfig part by part and the thumbnail', async () => {
    await store.createScene({ _id: 's', name: 'S', viewerConfig: { scene: { fogEnabled: true }, postprocessing: { ssao: 1 } } });
    const updated = await store.updateViewerConfig('s', { scene: { sunAzimuth: 90 } });
    expect(updated?.viewerConfig).toEqual({ scene: { sunAzimuth: 90 }, postprocessing: { ssao: 1 } });
    expect((await store.setThumbnail('s', '/cdn/thumbnails/x.png'))?.thumbnailUrl).toBe('/cdn/thumbnails/x.png');
    expect((await store.setThumbnail('s', null))?.thumbnailUrl).toBeUndefined();
    expect(await store.updateViewerConfig('missing', {})).toBeUndefined();
    await expect(store.updateScene('s', (scene) => ({ ...scene, _id: 'other' }))).rejects.toThrow(/must not change the id/);
    await expect(store.updateScene('s', (scene) => ({ ...scene, name: 5 as unknown as string }))).rejects.toMatchObject({ code: 'BAD_DOCUMENT' });
    expect((await store.getScene('s'))?.name).toBe('S');
  });

  it('rejects bad ids before touching the database or the disk', async () => {
    for (const id of ['', '..', '../x', 'a/b', 'a.b', '%2e%2e', 'x'.repeat(65), 'a b']) {
      expect(isValidId(id)).toBe(false);
      await expect(store.getScene(id)).rejects.toThrow(StoreError);
      await expect(store.getModel(id)).rejects.toThrow(/Invalid model id/);
      await expect(store.applyMutations(id, [])).rejects.toThrow(/Invalid model id/);
    }
    await expect(store.putScene({ _id: '../evil', name: 'x', viewerConfig: {}, models: [] })).rejects.toThrow(/Invalid scene id/);
    expect(() => store.derivativePath('../../etc')).toThrow(/Invalid version key/);
    expect(() => store.derivativePath('a/../b')).toThrow(StoreError);
    expect(() => store.derivativePath('/abs')).toThrow(StoreError);
    expect(() => store.thumbnailPath('../x.png')).toThrow(StoreError);
  });

  it('validates documents on write and on read', async () => {
    await expect(store.putModel({ ...model, latestVersionKey: '../x' })).rejects.toThrow(/Invalid model: latestVersionKey/);
    await expect(store.putScene({ _id: 's', name: 'x', models: 'none' } as never)).rejects.toThrow(/Invalid scene: models/);
    await store.putScene({ _id: 'broken', name: 'x', viewerConfig: {}, models: [model] });
    await rawUpdate('scenes', 'broken', JSON.stringify({ _id: 'broken', name: 42 }));
    await expect(store.getScene('broken')).rejects.toMatchObject({ code: 'CORRUPT' });
    await rawUpdate('models', 'm1', JSON.stringify({ _id: 'm1' }));
    await expect(store.getModel('m1')).rejects.toThrow(/is not a valid model/);
  });

  it('writes derivatives and thumbnails as files under their keys', async () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    await store.writeDerivative('m1/v1', bytes);
    expect(store.derivativePath('m1/v1')).toBe(join(dir, 'derivatives', 'm1', 'v1', DERIVATIVE_FILE_NAME));
    expect(new Uint8Array(await readFile(store.derivativePath('m1/v1')))).toEqual(bytes);
    const key = await store.writeThumbnail('s1', bytes, 'png');
    expect(key).toMatch(/^s1\/[0-9a-f]{32}\.png$/);
    expect(new Uint8Array(await readFile(store.thumbnailPath(key)))).toEqual(bytes);
    expect(await readdir(join(dir, 'thumbnails', 's1'))).toHaveLength(1); // no temporary files left
  });

  describe('mutations', () => {
    beforeEach(async () => {
      await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [model] });
    });

    it('appends a batch in order and answers each mutation with its seq', async () => {
      const batch = [nodeMutation('a'), nodeMutation('b', { castShadow: true }), nodeMutation('c')];
      expect(await store.applyMutations('m1', batch, { userId: 'u1' })).toEqual([
        { uuid: 'a', seq: 1 },
        { uuid: 'b', seq: 2 },
        { uuid: 'c', seq: 3 },
      ]);
      const log = await store.listMutations('m1');
      expect(log?.lastSeq).toBe(3);
      expect(log?.mutations.map((m) => [m.uuid, m.seq])).toEqual([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]);
      expect(log?.mutations[1]).toMatchObject({ type: 'updateNode', nodeId: 'n1', properties: { visible: false, castShadow: true } });
      expect(new Date(log!.mutations[0].savedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect((await store.listMutations('m1', { after: 1, limit: 1 }))?.mutations.map((m) => m.seq)).toEqual([2]);
      expect(await store.listMutations('nope')).toBeUndefined();
      expect(await store.applyMutations('nope', batch)).toBeUndefined();
    });

    it('is idempotent by uuid: a repeated batch changes nothing and gets the same answer', async () => {
      const batch = [nodeMutation('a'), nodeMutation('b')];
      const first = await store.applyMutations('m1', batch);
      const second = await store.applyMutations('m1', batch);
      expect(second).toEqual(first);
      // Overlapping batch: old ones keep their seq, new ones follow.
      expect(await store.applyMutations('m1', [nodeMutation('b'), nodeMutation('c')])).toEqual([
        { uuid: 'b', seq: 2 },
        { uuid: 'c', seq: 3 },
      ]);
      // The same uuid twice in one batch is stored once.
      expect(await store.applyMutations('m1', [nodeMutation('d'), nodeMutation('d')])).toEqual([
        { uuid: 'd', seq: 4 },
        { uuid: 'd', seq: 4 },
      ]);
      expect((await store.listMutations('m1'))?.mutations.map((m) => m.uuid)).toEqual(['a', 'b', 'c', 'd']);
    });

    it('refuses a known uuid with different content, storing nothing of the batch', async () => {
      await store.applyMutations('m1', [nodeMutation('a')]);
      await expect(store.applyMutations('m1', [nodeMutation('new'), nodeMutation('a', { visible: true })])).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('mutations[1].uuid'),
      });
      await expect(store.applyMutations('m1', [nodeMutation('x'), nodeMutation('x', { castShadow: true })])).rejects.toMatchObject({ code: 'CONFLICT' });
      expect((await store.listMutations('m1'))?.mutations.map((m) => m.uuid)).toEqual(['a']);
    });

    it('validates mutations itself and drops unknown properties', async () => {
      await expect(store.applyMutations('m1', [{ ...nodeMutation('a'), type: 'deleteNode' } as unknown as Mutation])).rejects.toMatchObject({ code: 'BAD_DOCUMENT' });
      await store.applyMutations('m1', [nodeMutation('a', { secret: 'dropped' })]);
      const [logged] = (await store.listMutations('m1'))!.mutations;
      expect(logged.properties).toEqual({ visible: false });
    });

    it('serialises concurrent batches from two connections: order kept, nothing lost', async () => {
      const other = await open();
      try {
        const batches = (prefix: string) => Array.from({ length: 10 }, (_, b) => Array.from({ length: 20 }, (_, i) => nodeMutation(`${prefix}-${b}-${i}`)));
        const [a, b] = [batches('a'), batches('b')];
        await Promise.all([
          (async () => {
            for (const batch of a) await store.applyMutations('m1', batch);
          })(),
          (async () => {
            for (const batch of b) await other.applyMutations('m1', batch);
          })(),
        ]);
        const log = (await store.listMutations('m1'))!;
        expect(log.mutations.map((m) => m.seq)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
        const seen = log.mutations.map((m) => m.uuid);
        expect(seen.filter((u) => u.startsWith('a-'))).toEqual(a.flat().map((m) => m.uuid));
        expect(seen.filter((u) => u.startsWith('b-'))).toEqual(b.flat().map((m) => m.uuid));
        // Each batch is contiguous: applied atomically.
        for (const batch of [...a, ...b]) {
          const seqs = batch.map((m) => log.mutations.find((x) => x.uuid === m.uuid)!.seq);
          expect(seqs[seqs.length - 1] - seqs[0]).toBe(seqs.length - 1);
        }
      } finally {
        await other.close();
      }
    });
  });

  it('takes over the JSON documents of the first file store once, leaving the files', async () => {
    await store.close();
    await mkdir(join(dir, 'scenes'), { recursive: true });
    await mkdir(join(dir, 'models'), { recursive: true });
    await writeFile(join(dir, 'models', 'm1.json'), JSON.stringify(model));
    await writeFile(join(dir, 'scenes', 'old.json'), JSON.stringify({ _id: 'old', name: 'Old', thumbnailUrl: null, viewerConfig: {}, models: [model] }));
    await writeFile(join(dir, 'scenes', 'broken.json'), '{ not json');
    store = await open();
    expect(await store.getScene('old')).toMatchObject({ _id: 'old', name: 'Old', models: [model] });
    expect(await store.getScene('broken')).toBeUndefined();
    expect(await readdir(join(dir, 'scenes'))).toContain('old.json');
  });
});

describe('choosing the store', () => {
  it('reads DATABASE_URL (never echoing it) and SQLITE_SYNCHRONOUS', () => {
    expect(loadServerConfig({}).databaseUrl).toBeUndefined();
    expect(loadServerConfig({ DATABASE_URL: 'postgres://u:p@db:5432/app' }).databaseUrl).toBe('postgres://u:p@db:5432/app');
    expect(() => loadServerConfig({ DATABASE_URL: 'mysql://user:secret@db/x' })).toThrow(/^DATABASE_URL must be a PostgreSQL URL.*\(value hidden\)$/);
    expect(loadServerConfig({}).sqliteSynchronous).toBe('NORMAL');
    expect(loadServerConfig({ SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous).toBe('FULL');
    expect(() => loadServerConfig({ SQLITE_SYNCHRONOUS: 'OFF' })).toThrow(/SQLITE_SYNCHRONOUS must be NORMAL or FULL/);
    expect(describePostgresUrl('postgres://user:secret@db.example.com:5432/app')).toBe('postgres://db.example.com:5432/app');
  });

  it('refuses a PostgreSQL it cannot reach, saying so', async () => {
    const dir = await tempDir('store-');
    try {
      await expect(openStore({ dataDir: dir, databaseUrl: 'postgres://nobody@127.0.0.1:9/none' })).rejects.toThrow(/^PostgreSQL at postgres:\/\/127\.0\.0\.1:9\/none \(DATABASE_URL\): .*ECONNREFUSED/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('openFileStore', () => {
  it('opens the SQLite store of a DATA_DIR, which several connections share without caching', async () => {
    const dir = await tempDir('store-');
    try {
      const a = await openFileStore(dir);
      const b = await openFileStore(dir);
      expect(a.kind).toBe('sqlite');
      await a.putScene({ _id: 'shared', name: 'Shared', viewerConfig: {}, models: [] });
      expect((await b.getScene('shared'))?.name).toBe('Shared');
      await b.putScene({ _id: 'shared', name: 'Renamed', viewerConfig: {}, models: [] });
      expect((await a.getScene('shared'))?.name).toBe('Renamed');
      await a.close();
      await b.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('makes short url-safe ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, newId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });
});
